from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.actions import do_set_password
from accounts.models import User
from chats.actions import do_add_entry, do_create_chat, do_delete_chats
from chats.models import Chat, Entry

USERNAME = "demo"
PASSWORD = "demo"  # noqa: S105 (the documented local demo login)

# name, repository, branch, agent-to-agent, what the person asked, what the demo agent answered
DEMO_CHATS = [
    ("checkout", "shop-web", "feat/cart", True, "work 2", "Worked 2 steps."),
    (
        "payments-api",
        "payments",
        "main",
        True,
        "The checkout team will ask about our port.",
        "The checkout team will ask about our port.",
    ),
    ("docs", "handbook", "main", False, "background 2", "Left 2 steps of background work running."),
]


class Command(BaseCommand):
    help = "(Re)create the demo account demo / demo with three demo-agent chats."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        user, created = self.demo_user()
        removed = do_delete_chats(user)
        verb = "Created" if created else f"Reset (removed {removed} chats)"
        self.stdout.write(f"{verb} the demo account: log in as {USERNAME} / {PASSWORD}.")
        for spec in DEMO_CHATS:
            chat = self.create_chat(user, *spec)
            switch = "agent-to-agent on" if chat.peers else "agent-to-agent off"
            self.stdout.write(
                f"  chat {chat.name} ({chat.repository}, {chat.branch}, demo agent, {switch})"
            )
        self.stdout.write(
            "For the admin page (/internal/admin/peers), make a staff account: "
            "python manage.py createsuperuser"
        )

    def demo_user(self) -> tuple[User, bool]:
        user = User.objects.filter(username=USERNAME).first()
        created = user is None
        if created:
            user = User.objects.create_user(USERNAME)
        # A known, weak password on purpose: this is the local demo account.
        do_set_password(user, password=PASSWORD, activate=True)
        return user, created

    def create_chat(self, user, name, repository, branch, peers, asked, answered) -> Chat:
        chat, _key = do_create_chat(
            user,
            name=name,
            repository=repository,
            branch=branch,
            agent=Chat.Agent.DEMO,
            peers=peers,
            last_ran_at=timezone.now(),
            last_asked=asked,
            last_answered=answered,
        )
        # History only: written as entries, no turn runs.
        do_add_entry(chat, kind=Entry.Kind.PROMPT, text=asked)
        do_add_entry(chat, kind=Entry.Kind.ANSWER, text=answered)
        return chat
