import pytest
from django.utils import timezone

from chats import actions as chat_actions
from chats.models import Chat
from tests.conftest import ApiClient, make_chat


def reachable(*chats: Chat) -> None:
    """Test setup: these chats ran just now (the reach window counts from a turn's start)."""
    now = timezone.now()
    Chat.objects.filter(pk__in=[c.pk for c in chats]).update(last_ran_at=now)
    for chat in chats:
        chat.refresh_from_db()


def running(chat: Chat, text: str = "work 5"):
    """Put a chat into a running turn the way the runner does."""
    chat_actions.check_prompt(chat, text=text)
    turn = chat_actions.claim_next_turn("tests")
    assert turn is not None and turn.chat_id == chat.pk
    chat.refresh_from_db()
    return turn


@pytest.fixture
def sender(chat):
    reachable(chat)
    return chat


@pytest.fixture
def recipient(other_chat):
    reachable(other_chat)
    return other_chat


@pytest.fixture
def command_chat(owner):
    """A chat whose agent takes messages only between turns (no hooks)."""
    chat = make_chat(owner, "billing-worker", agent="command", command="cat", peers=True)
    reachable(chat)
    return chat


@pytest.fixture
def api(sender):
    return ApiClient(sender.agent_key)


@pytest.fixture
def other_api(recipient):
    return ApiClient(recipient.agent_key)
