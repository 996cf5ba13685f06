from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.actions import do_allow_runners
from accounts.models import User


class Command(BaseCommand):
    requires_system_checks = []  # they run at serve and migrate; this one starts often
    help = (
        "Grant USERNAME the permission agents.run_hosted (hosted chats with a working folder, "
        "and command chats, run processes on this server); --revoke takes it back."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true", help="Take the permission back.")

    @transaction.atomic
    def handle(self, *args, username: str, revoke: bool, **options) -> None:
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"There is no user named {username!r}.")
        self.stdout.write(do_allow_runners(user, allowed=not revoke))
