from pathlib import Path
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.attach import CLIS, ConfigFileError, apply, attach_config, check, config_edits
from agents.attach.actions import check_attach, do_attach
from chats.models import Chat
from kernel import listen
from kernel.refusals import Refusal


def checked_url(url: str) -> str:
    """An http(s) URL the generated files and shell lines can carry as they are."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise CommandError(f"--url must be like http://127.0.0.1:8000, not {url!r}.")
    if any(char.isspace() or char in "\"'\\$`\0" for char in url):
        raise CommandError(f"--url must not hold spaces, quotes or $: {url!r}.")
    return url.rstrip("/")


class Command(BaseCommand):
    requires_system_checks = []  # they run at serve and migrate; this one starts often
    help = (
        "Print the config that attaches a session you run yourself (Claude Code, Codex, "
        "Gemini) to CHAT, or merge it into the files the CLI reads in DIR (--write), or "
        "take it out again (--remove). --write and printing make a key for this attachment."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("chat", help="The chat's id or name.")
        parser.add_argument("--agent", required=True, choices=CLIS)
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--write", metavar="DIR", help="Merge the config into DIR's files.")
        action.add_argument("--remove", metavar="DIR", help="Take Crosstalk's entries out of DIR.")
        parser.add_argument("--user", help="The account, when several have a chat of that name.")
        parser.add_argument(
            "--url", help="Where Crosstalk answers (default: where the running server listens)."
        )

    def handle(self, *args, chat: str, agent: str, **options) -> None:
        found = self.find_chat(chat, options["user"])
        if options["remove"]:
            return self.remove(found, agent, Path(options["remove"]))
        try:
            check_attach(found)
        except Refusal as refusal:
            raise CommandError(refusal.message) from refusal
        base_url = checked_url(options["url"]) if options["url"] else self.running_url()
        write = options["write"]
        if write:
            self.check_folder(found, agent, Path(write), base_url)
        folder = str(Path(write).resolve()) if write else ""
        attached = do_attach(found, cli=agent, folder=folder)
        self.say_attached(found, agent, attached.switched_on)
        config = attach_config(found, agent, key=attached.key, base_url=base_url)
        if write:
            edits = config_edits(found, agent, key=attached.key, base_url=base_url, folder=write)
            self.apply(edits, Path(write), remove=False)
        else:
            for relative, content in config.files.items():
                self.stdout.write(f"# {relative}\n{content}")
        self.show(config, attached.key)

    def check_folder(self, chat: Chat, agent: str, folder: Path, base_url: str) -> None:
        """Refuse a write that could not happen before a new key is made for it."""
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder.")
        edits = config_edits(chat, agent, key="cak_check", base_url=base_url, folder=folder)
        try:
            check(edits, folder)
        except ConfigFileError as error:
            raise CommandError(str(error)) from error

    def remove(self, chat: Chat, agent: str, folder: Path) -> None:
        """Needs no key and no server: Crosstalk's entries are found by what they are."""
        edits = config_edits(chat, agent, key="", base_url="", folder=folder)
        self.apply(edits, folder, remove=True)

    def apply(self, edits, folder: Path, *, remove: bool) -> None:
        try:
            done = apply(edits, folder, remove=remove)
        except ConfigFileError as error:
            raise CommandError(str(error)) from error
        for line in done:
            self.stdout.write(line)

    def running_url(self) -> str:
        url = listen.running_url()
        if url is None:
            raise CommandError(
                "No running Crosstalk server was found for this database (start it with "
                "`make run`), so the URL the session should use is unknown: pass --url URL."
            )
        return url

    def say_attached(self, chat: Chat, agent: str, switched_on: bool) -> None:
        self.stderr.write(
            f"Made a key for this {agent} attachment of {chat.name}: its other sessions' "
            "keys keep working (one made earlier for this CLI and folder is replaced)."
        )
        if switched_on:
            self.stderr.write(f"Turned Agent-to-agent on for {chat.name}: the session needs it.")

    def show(self, config, key: str) -> None:
        self.stdout.write(f"Key: {key}")
        if config.env:
            self.stdout.write(f"Environment: {config.env_line}")
        for command in config.commands:
            self.stdout.write(f"Or add the server with: {command}")
        if config.mcp_start:
            self.stdout.write(f"Then start it with: {config.mcp_start}")
        self.stdout.write(f"Start: {config.one_liner}")
        for note in config.notes:
            self.stdout.write(f"Note: {note}")

    def find_chat(self, ref: str, username: str | None) -> Chat:
        chats = Chat.objects.select_related("user")
        if username:
            chats = chats.filter(user__username=username)
        by_id = chats.filter(pk=ref).first()
        if by_id is not None:
            return by_id
        named = list(chats.filter(name__iexact=ref)[:2])
        if not named:
            raise CommandError(f"There is no chat with the id or name {ref!r}.")
        if len(named) > 1:
            raise CommandError(f"Several accounts have a chat named {ref!r}; pass --user.")
        return named[0]
