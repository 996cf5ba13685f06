import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.attach import CLIS, attach_config, write_files
from chats.actions import do_rotate_agent_key
from chats.models import Chat


def default_base_url() -> str:
    return os.environ.get("CROSSTALK_URL") or f"http://127.0.0.1:{os.environ.get('PORT', '8000')}"


class Command(BaseCommand):
    help = (
        "Print (or write into DIR) the MCP config, hooks settings and environment line that "
        "attach a session you run yourself to CHAT. Rotates the chat's agent key."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("chat", help="The chat's id or name.")
        parser.add_argument("--agent", required=True, choices=CLIS)
        parser.add_argument("--write", metavar="DIR", help="Write the files into DIR.")
        parser.add_argument("--user", help="The account, when several have a chat of that name.")
        parser.add_argument("--url", help="Where Crosstalk answers (default: $CROSSTALK_URL).")

    def handle(self, *args, chat: str, agent: str, write: str | None, **options) -> None:
        found = self.find_chat(chat, options["user"])
        # Keys are stored as digests only: a config needs a fresh one.
        key = do_rotate_agent_key(found)
        self.stderr.write(f"Rotated the agent key of {found.name}: its old key no longer works.")
        config = attach_config(found, agent, key=key, base_url=options["url"] or default_base_url())
        if write:
            for path in write_files(config, Path(write)):
                self.stdout.write(f"Wrote {path}")
        else:
            for relative, content in config.files.items():
                self.stdout.write(f"# {relative}\n{content}")
        self.stdout.write(f"Environment: {config.env_line}")
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
