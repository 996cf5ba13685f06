from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.actions import do_allow_runners, do_lend_logins, do_set_password
from accounts.models import User
from chats.actions import do_add_entry, do_create_chat, do_delete_chats
from chats.models import Chat, Entry
from chats.selectors import account_chats

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
# A Claude Code chat with no working folder: a session you run yourself attaches to it
# (README's example: `bin/crosstalk agent_config api-claude --agent claude-code …`).
ATTACHABLE = ("api-claude", "shop-api", "main")


class Command(BaseCommand):
    help = (
        "Create the demo account demo / demo and its demo-agent chats where they are missing, "
        "never touching what the person made; --reset starts the demo account over."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help="Delete every chat of the demo account and set its password back to demo.",
        )

    @transaction.atomic
    def handle(self, *args, reset: bool = False, **options) -> None:
        user, created = self.demo_user(reset=reset)
        # The local demo runs hosted and command chats too (agents.run_hosted).
        do_allow_runners(user, allowed=True)
        # …with the operator's own model logins (ANTHROPIC_API_KEY=… make run).
        do_lend_logins(user, lent=True)
        if created:
            self.stdout.write(f"Created the demo account: log in as {USERNAME} / {PASSWORD}.")
        elif reset:
            removed = do_delete_chats(user)
            self.stdout.write(
                f"Reset the demo account (removed {removed} chats): "
                f"log in as {USERNAME} / {PASSWORD}."
            )
        else:
            self.stdout.write(f"The demo account {USERNAME} is there; kept what it holds.")
        taken = {name.lower() for name in account_chats(user).values_list("name", flat=True)}
        for spec in DEMO_CHATS:
            if spec[0].lower() in taken:
                continue
            chat = self.create_chat(user, *spec)
            switch = "agent-to-agent on" if chat.peers else "agent-to-agent off"
            self.stdout.write(
                f"  added chat {chat.name} ({chat.repository}, {chat.branch}, demo agent, {switch})"
            )
        if ATTACHABLE[0] not in taken:
            self.create_attachable(user, *ATTACHABLE)
        if not User.objects.filter(is_staff=True).exists():
            self.stdout.write(
                "For the admin page (/internal/admin/peers), make a staff account: "
                ".venv/bin/python manage.py createsuperuser"
            )

    def demo_user(self, *, reset: bool) -> tuple[User, bool]:
        user = User.objects.filter(username=USERNAME).first()
        created = user is None
        if created:
            user = User.objects.create_user(USERNAME)
        if created or reset:
            # A known, weak password on purpose: this is the local demo account.
            do_set_password(user, password=PASSWORD, activate=True)
        return user, created

    def create_attachable(self, user, name, repository, branch) -> Chat:
        chat, _key = do_create_chat(
            user, name=name, repository=repository, branch=branch,
            agent=Chat.Agent.CLAUDE_CODE, peers=True,
        )  # fmt: skip
        self.stdout.write(
            f"  added chat {name} ({repository}, {branch}, Claude Code in your own terminal: "
            f"bin/crosstalk agent_config {name} --agent claude-code --write YOUR-FOLDER)"
        )
        return chat

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
