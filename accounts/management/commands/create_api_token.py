from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.actions import do_create_api_token, do_set_password
from accounts.models import User


class Command(BaseCommand):
    requires_system_checks = []  # they run at serve and migrate; this one starts often
    help = "Print a new API token for USERNAME, alone on the last line of output."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--create-user", action="store_true", help="Create the user if it does not exist."
        )
        parser.add_argument(
            "--password", help="Set the user's password to this, as given (no strength checks)."
        )
        parser.add_argument("--name", default="command line", help="The token's name.")

    @transaction.atomic
    def handle(
        self, *args, username: str, create_user: bool, password: str | None, name: str, **options
    ) -> None:
        user = self.find_user(username, create_user)
        if password is not None:
            # An operator's tool: the password is set as given, on purpose.
            do_set_password(user, password=password)
            self.stdout.write(f"Set the password of {username}.")
        token, secret = do_create_api_token(user, name=name)
        self.stdout.write(f"API token “{token.name}” for {username} (shown this once):")
        self.stdout.write(secret)

    def find_user(self, username: str, create_user: bool) -> User:
        user = User.objects.filter(username=username).first()
        if user is not None:
            return user
        if not create_user:
            raise CommandError(
                f"There is no user named {username!r}; pass --create-user to create one."
            )
        self.stdout.write(f"Created user {username}.")
        return User.objects.create_user(username)
