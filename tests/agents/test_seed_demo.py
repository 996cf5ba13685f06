"""`manage.py seed_demo` creates what is missing of the demo account; --reset starts it over."""

from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from accounts.models import User
from chats.actions import do_prompt
from chats.models import Chat, Entry
from tests.conftest import make_chat

EXPECTED = {
    ("checkout", "shop-web", "feat/cart", True),
    ("payments-api", "payments", "main", True),
    ("docs", "handbook", "main", False),
    ("api-claude", "shop-api", "main", True),  # a session you run attaches to it
}


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def seed_and_change_password() -> User:
    seed()
    demo = User.objects.get(username="demo")
    demo.set_password("changed-it-1")
    demo.save(update_fields=["password"])
    return demo


def demo_chats() -> set[tuple]:
    chats = Chat.objects.filter(user__username="demo")
    return set(chats.values_list("name", "repository", "branch", "peers"))


@pytest.mark.django_db
def test_it_creates_the_demo_account_with_three_demo_chats_and_one_to_attach():
    output = seed()

    assert "demo / demo" in output and "agent_config api-claude --agent claude-code" in output
    assert authenticate(username="demo", password="demo") is not None
    assert demo_chats() == EXPECTED
    attachable = Chat.objects.get(user__username="demo", name="api-claude")
    assert (attachable.agent, attachable.folder, attachable.status) == ("claude-code", "", "idle")
    for chat in Chat.objects.filter(user__username="demo").exclude(pk=attachable.pk):
        assert chat.agent == "demo" and chat.status == "idle"
        assert chat.last_ran_at is not None and chat.last_asked and chat.last_answered
        kinds = list(chat.entries.values_list("kind", "text"))
        assert kinds == [
            (Entry.Kind.PROMPT, chat.last_asked),
            (Entry.Kind.ANSWER, chat.last_answered),
        ]


@pytest.mark.django_db
def test_it_keeps_what_the_person_made_when_run_again():
    demo = seed_and_change_password()
    scratch = make_chat(demo, "scratch")
    Chat.objects.filter(user=demo, name="docs").delete()
    do_prompt(Chat.objects.get(user=demo, name="checkout"), text="work 5")

    output = seed()

    assert "added chat docs" in output and "added chat checkout" not in output
    assert Chat.objects.filter(pk=scratch.pk).exists()
    assert authenticate(username="demo", password="changed-it-1") is not None
    names = {"checkout", "payments-api", "docs", "api-claude", "scratch"}
    assert {row[0] for row in demo_chats()} == names
    checkout = Chat.objects.get(user=demo, name="checkout")
    assert checkout.entries.filter(kind=Entry.Kind.PROMPT, text="work 5").exists()


@pytest.mark.django_db
def test_it_starts_the_demo_account_over_with_reset():
    demo = seed_and_change_password()
    make_chat(demo, "scratch")
    do_prompt(Chat.objects.get(user=demo, name="checkout"), text="work 5")

    out = StringIO()
    call_command("seed_demo", "--reset", stdout=out)

    assert "removed 5 chats" in out.getvalue()
    assert User.objects.get(username="demo").pk == demo.pk
    assert authenticate(username="demo", password="demo") is not None
    assert demo_chats() == EXPECTED
    assert Entry.objects.filter(chat__user=demo).count() == 6


@pytest.mark.django_db
def test_it_leaves_other_accounts_alone(chat):
    seed()
    seed()
    assert Chat.objects.filter(pk=chat.pk).exists()
