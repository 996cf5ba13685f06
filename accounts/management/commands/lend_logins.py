from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.actions import do_lend_logins
from accounts.models import User


class Command(BaseCommand):
    requires_system_checks = []  # they run at serve and migrate; this one starts often
    help = (
        "Lend USERNAME the operator's own model logins (agents.use_operator_logins: its hosted "
        "Claude Code, Codex and Gemini chats use this server's provider keys and CLI logins); "
        "--revoke takes them back, and the account then needs its own in Settings → Agents."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true", help="Take the lend back.")

    @transaction.atomic
    def handle(self, *args, username: str, revoke: bool, **options) -> None:
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"There is no user named {username!r}.")
        self.stdout.write(do_lend_logins(user, lent=not revoke))
