from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import User
from chats.inputs import ChatCreate
from kernel.inputs import parse
from kernel.refusals import Refusal
from origins.actions import check_start_automation

TEMPLATE_OPTIONS = ["name", "agent", "repository", "branch", "folder", "model", "permission_mode"]


class Command(BaseCommand):
    requires_system_checks = []  # they run at serve and migrate; this one starts often
    help = (
        "Start a chat from outside (a cron job, a script): it runs a turn at once with the "
        "text framed as outside content, and can receive messages but never list, read or "
        "message other chats (docs/origins.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--origin",
            default="automation",
            help="`automation` (the account's Automation origin, made on first use), or an "
            "automation origin's id or name, whose template the chat takes.",
        )
        parser.add_argument("--user", required=True, help="The account's username.")
        parser.add_argument("--text", required=True, help="The request for the agent.")
        parser.add_argument("--thread", default="", help="Continue this thread's chat.")
        parser.add_argument("--author", default="", help="Who asks (shown to the agent).")
        for option in TEMPLATE_OPTIONS:
            parser.add_argument(f"--{option.replace('_', '-')}", dest=option, default=None)

    def handle(self, *args, **options) -> None:
        user = User.objects.filter(username=options["user"], is_active=True).first()
        if user is None:
            raise CommandError(f"There is no active account {options['user']!r}.")
        try:
            thread = check_start_automation(
                user,
                text=options["text"],
                origin_ref=options["origin"],
                template=template(options),
                thread=options["thread"],
                author=options["author"],
            )
        except Refusal as refusal:
            raise CommandError(f"{refusal.code}: {refusal.message}") from None
        self.stdout.write(f"{thread.chat_id} {thread.thread_key}")


def template(options: dict) -> ChatCreate | None:
    """The chat's own fields when any is given (its name then required), else the origin's."""
    given = {name: options[name] for name in TEMPLATE_OPTIONS if options[name] is not None}
    if not given:
        return None
    if "name" not in given:
        raise CommandError("--name: a chat given its own fields needs a name.")
    return parse(ChatCreate, given)
