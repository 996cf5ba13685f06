"""A Stop holds whatever session registers after it: a SessionStart during the Stop is
recorded (and noted) but cannot lift it; only the session registered before the Stop,
or the person, can. Through the hooks' HTTP route, with each CLI's captured payloads."""

import pytest

from chats.models import Chat, Entry, Turn
from peers.actions import check_stop_chat
from peers.models import PeerMessage
from tests.peers.conftest import reachable
from tests.peers.hooks import cli_chat, hook, path_of, sample, send

# (cli, the event its prompt comes in)
CLIS = [
    ("claude-code", "UserPromptSubmit"),
    ("codex", "UserPromptSubmit"),
    ("gemini", "BeforeAgent"),
]
OWN, INTRUDER = "own-session-1", "intruder-session-2"


@pytest.fixture
def sender(chat):
    reachable(chat)
    return chat


def register(chat: Chat, cli: str, session_id: str) -> None:
    assert hook(chat, cli, sample(cli, "SessionStart", session_id=session_id)).status_code == 200


def prompt(chat: Chat, cli: str, event: str, session_id: str) -> dict:
    payload = sample(cli, event, prompt="carry on", session_id=session_id)
    response = hook(chat, cli, payload)
    assert response.status_code == 200
    return response.json()


def held(message: PeerMessage) -> bool:
    message.refresh_from_db()
    return (message.state, message.reason) == ("queued", "held_until_you_write")


@pytest.mark.parametrize(("cli", "event"), CLIS)
def test_it_a_session_registered_after_the_stop_cannot_lift_it(owner, sender, cli, event):
    agent = cli_chat(owner, cli)
    register(agent, cli, OWN)
    check_stop_chat(agent)
    message = send(sender, agent)

    register(agent, cli, INTRUDER)
    agent.refresh_from_db()
    assert agent.session_id == INTRUDER  # recorded...
    notice = agent.entries.filter(kind=Entry.Kind.NOTICE).latest("id")
    assert INTRUDER in notice.text and "cannot restart it" in notice.text and OWN in notice.text

    assert prompt(agent, cli, event, INTRUDER) == {}  # ...but it lifts nothing
    agent.refresh_from_db()
    assert agent.status == Chat.Status.STOPPED and held(message)
    assert not agent.entries.filter(kind=Entry.Kind.PROMPT).exists()
    assert not agent.turns.filter(state=Turn.State.RUNNING).exists()

    context = prompt(agent, cli, event, OWN)["hookSpecificOutput"]["additionalContext"]
    agent.refresh_from_db()
    assert f'id="{message.pk}"' in context and path_of(message) == "turn_prompt"
    assert (agent.status, agent.session_id) == (Chat.Status.RUNNING, OWN)


@pytest.mark.parametrize(("cli", "event"), CLIS)
def test_it_a_second_stop_keeps_the_first_ones_session(owner, sender, cli, event):
    agent = cli_chat(owner, cli)
    register(agent, cli, OWN)
    check_stop_chat(agent)
    register(agent, cli, INTRUDER)
    check_stop_chat(Chat.objects.get(pk=agent.pk))  # the person presses Stop again
    message = send(sender, agent)

    assert prompt(agent, cli, event, INTRUDER) == {}
    agent.refresh_from_db()
    assert agent.status == Chat.Status.STOPPED and held(message)


def test_it_a_chat_stopped_before_any_session_registered_stays_stopped(owner, sender):
    cli, event = CLIS[0]
    agent = cli_chat(owner, cli)
    check_stop_chat(agent)
    register(agent, cli, INTRUDER)
    notice = agent.entries.filter(kind=Entry.Kind.NOTICE).latest("id")
    assert "Only you, writing here, can." in notice.text

    assert prompt(agent, cli, event, INTRUDER) == {}
    agent.refresh_from_db()
    assert agent.status == Chat.Status.STOPPED


def test_it_registering_while_not_stopped_notes_nothing(owner):
    cli = CLIS[0][0]
    agent = cli_chat(owner, cli)
    register(agent, cli, OWN)
    register(agent, cli, INTRUDER)
    agent.refresh_from_db()
    assert agent.session_id == INTRUDER
    assert not agent.entries.filter(kind=Entry.Kind.NOTICE).exists()
