"""The Claude Code hooks endpoint, driven with the payloads the real CLI sent."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.hooks.handling import PROMPT_LINE
from chats.actions import claim_next_turn, do_stop_chat
from chats.models import Chat, Entry, Turn
from peers.models import PeerMessage
from peers.serializers import message_json
from tests.peers.conftest import reachable, running
from tests.peers.hooks import cli_chat, hook, path_of, sample, send

CLI = "claude-code"
State = PeerMessage.State


@pytest.fixture
def claude(owner):
    return cli_chat(owner, CLI, "api-claude")


@pytest.fixture
def sender(chat):
    reachable(chat)
    return chat


def start_prompt(claude, text="hi there"):
    response = hook(claude, CLI, sample(CLI, "UserPromptSubmit", prompt=text))
    assert response.status_code == 200 and response.json() == {}
    claude.refresh_from_db()
    return claude.turns.get(state=Turn.State.RUNNING)


def test_it_registers_the_session_and_gives_the_prompt_line(claude):
    payload = sample(CLI, "SessionStart")
    response = hook(claude, CLI, payload)
    assert response.status_code == 200
    assert response.json() == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": PROMPT_LINE}
    }
    assert "ListChats" in PROMPT_LINE and "crosstalk" in PROMPT_LINE
    claude.refresh_from_db()
    assert claude.session_id == payload["session_id"]


def test_it_opens_a_turn_for_an_attached_session_at_its_prompt(claude):
    turn = start_prompt(claude, "fix the cart")
    assert turn.trigger == Turn.Trigger.PROMPT
    assert turn.worker == f"attached:{sample(CLI, 'Stop')['session_id']}"
    assert (claude.status, claude.last_asked) == (Chat.Status.RUNNING, "fix the cart")
    assert claude.person_wrote_at is not None and claude.last_ran_at is not None
    assert claude.entries.filter(kind=Entry.Kind.PROMPT, text="fix the cart").exists()


def test_it_delivers_pending_messages_between_steps_as_framed_blocks(claude, sender):
    turn = start_prompt(claude)
    message = send(sender, claude, "port <8080> & more")
    assert message.state == State.PENDING

    response = hook(claude, CLI, sample(CLI, "PostToolUse"))

    out = response.json()["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse"
    assert out["additionalContext"].startswith(f'<peer-message id="{message.pk}" from="checkout"')
    assert "port &lt;8080&gt; &amp; more" in out["additionalContext"]
    assert path_of(message) == "between_steps"
    assert message.state == State.DELIVERED and message.delivered_in_turn_id == turn.pk


def test_it_answers_nothing_after_a_step_when_nothing_is_pending(claude):
    start_prompt(claude)
    assert hook(claude, CLI, sample(CLI, "PostToolUse")).json() == {}


def test_it_blocks_the_stop_with_a_pending_message(claude, sender):
    turn = start_prompt(claude)
    message = send(sender, claude)

    response = hook(claude, CLI, sample(CLI, "Stop"))

    assert response.json()["decision"] == "block"
    assert response.json()["reason"].startswith(f'<peer-message id="{message.pk}"')
    assert path_of(message) == "as_finished"
    turn.refresh_from_db()
    assert turn.state == Turn.State.RUNNING  # it keeps going


def test_it_never_blocks_when_the_stop_hook_is_already_active(claude, sender):
    start_prompt(claude)
    message = send(sender, claude)

    response = hook(claude, CLI, sample(CLI, "Stop", 1))

    assert sample(CLI, "Stop", 1)["stop_hook_active"] is True
    assert response.json() == {}
    message.refresh_from_db()
    assert message.state != State.DELIVERED


def test_it_ends_the_attached_turn_with_its_last_message(claude):
    turn = start_prompt(claude)
    payload = sample(CLI, "Stop")

    assert hook(claude, CLI, payload).json() == {}

    turn.refresh_from_db()
    claude.refresh_from_db()
    assert (turn.state, turn.final_text) == (Turn.State.DONE, payload["last_assistant_message"])
    assert claude.status == Chat.Status.IDLE
    assert claude.last_answered == payload["last_assistant_message"]


def test_it_sends_the_final_text_back_to_the_sender_as_the_answer(claude, sender):
    start_prompt(claude)
    message = send(sender, claude, "which port?")
    hook(claude, CLI, sample(CLI, "PostToolUse"))

    hook(claude, CLI, sample(CLI, "Stop", last_assistant_message="It listens on 8080."))

    message.refresh_from_db()
    answer = PeerMessage.objects.get(pk=message.answer_id)
    assert (answer.from_chat_id, answer.to_chat_id) == (claude.pk, sender.pk)
    assert (answer.text, answer.reply_to_id) == ("It listens on 8080.", message.pk)


def test_it_ends_an_attached_turn_still_open_when_the_session_ends(claude):
    turn = start_prompt(claude)
    assert hook(claude, CLI, sample(CLI, "SessionEnd")).json() == {}
    turn.refresh_from_db()
    claude.refresh_from_db()
    assert (turn.state, claude.status) == (Turn.State.DONE, Chat.Status.IDLE)


@pytest.fixture
def hosted(runner_owner):
    """A Claude Code chat the runner starts (a working folder)."""
    return cli_chat(runner_owner, CLI, "hosted-claude", hosted=True)


def test_it_leaves_a_runner_turn_to_the_runner(hosted, sender):
    claude = hosted
    turn = running(claude, text="from the person")
    wrote = claude.person_wrote_at
    hook(claude, CLI, sample(CLI, "UserPromptSubmit", prompt="from the person"))
    hook(claude, CLI, sample(CLI, "Stop"))
    turn.refresh_from_db()
    claude.refresh_from_db()
    assert turn.state == Turn.State.RUNNING and claude.turns.count() == 1
    assert claude.person_wrote_at == wrote


def test_it_does_not_count_a_wake_as_the_person_writing(hosted, sender):
    claude = hosted
    Chat.objects.filter(pk=claude.pk).update(person_wrote_at=None)
    send(sender, claude)  # idle: wakes it
    turn = claim_next_turn("tests")
    assert turn.trigger == Turn.Trigger.WAKE
    hook(claude, CLI, sample(CLI, "UserPromptSubmit", prompt="<peer-message ...>"))
    claude.refresh_from_db()
    assert claude.person_wrote_at is None
    assert claude.turns.filter(state=Turn.State.RUNNING).count() == 1


def test_it_answers_empty_json_to_everything_when_the_switch_is_off(claude, sender):
    start_prompt(claude)
    send(sender, claude)
    Chat.objects.filter(pk=claude.pk).update(peers=False)
    for event in ("SessionStart", "PostToolUse", "Stop"):
        response = hook(claude, CLI, sample(CLI, event))
        assert (response.status_code, response.json()) == (200, {})
    claude.refresh_from_db()
    assert claude.status == Chat.Status.IDLE  # still kept
    assert claude.last_answered == sample(CLI, "Stop")["last_assistant_message"]


def test_it_keeps_status_and_last_asked_with_the_switch_off(claude):
    Chat.objects.filter(pk=claude.pk).update(peers=False)
    start_prompt(claude, "asked while off")
    claude.refresh_from_db()
    assert (claude.status, claude.last_asked) == (Chat.Status.RUNNING, "asked while off")


def test_it_answers_the_same_with_a_trailing_slash(claude):
    response = hook(claude, CLI, sample(CLI, "SessionStart"), slash=True)
    assert response.status_code == 200 and "hookSpecificOutput" in response.json()


def test_it_answers_an_event_it_does_not_act_on_with_empty_json(claude):
    payload = sample(CLI, "SessionStart", hook_event_name="Notification")
    assert hook(claude, CLI, payload).json() == {}


def test_it_a_hosted_chats_prompt_hook_never_counts_as_the_person(hosted, sender):
    """Crosstalk gave a hosted chat its prompts: a prompt hook with its key, while
    idle or during a wake, writes no "You" entry and resets nothing."""
    Chat.objects.filter(pk=hosted.pk).update(person_wrote_at=None)
    response = hook(hosted, CLI, sample(CLI, "UserPromptSubmit", prompt="I am the person"))
    assert (response.status_code, response.json()) == (200, {})

    message = send(sender, hosted)  # idle: wakes it
    claim_next_turn("tests")
    hook(hosted, CLI, sample(CLI, "UserPromptSubmit", prompt="I am the person, really"))

    hosted.refresh_from_db()
    assert hosted.person_wrote_at is None and hosted.last_asked == ""
    assert not hosted.entries.filter(kind=Entry.Kind.PROMPT).exists()
    assert hosted.turns.get(state=Turn.State.RUNNING).trigger == Turn.Trigger.WAKE
    message.refresh_from_db()
    assert message.reason == "waking"  # the runner's turn takes it, not the hook


def test_it_the_first_prompt_of_an_idle_attached_session_carries_what_waits(claude, sender):
    """No folder: Crosstalk cannot start it, so nothing wakes it; the message waits
    for the session, and its very next prompt carries it (no step needed)."""
    message = send(sender, claude, "which port <now> & then?")
    assert (message.state, message.reason) == (State.QUEUED, PeerMessage.Reason.FOR_ITS_SESSION)
    assert message_json(message)["words"] == "Queued — waits for its session to run"
    assert not claude.turns.exists()

    response = hook(claude, CLI, sample(CLI, "UserPromptSubmit", prompt="go on"))

    context = response.json()["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert f'id="{message.pk}"' in context["additionalContext"]
    assert "which port &lt;now&gt; &amp; then?" in context["additionalContext"]
    assert path_of(message) == "turn_prompt"
    assert message.delivered_in_turn == claude.turns.get(state=Turn.State.RUNNING)


def register(chat, session_id: str) -> None:
    hook(chat, CLI, sample(CLI, "SessionStart", session_id=session_id))


def test_it_sends_on_held_messages_when_the_person_writes_in_their_session(claude, sender):
    register(claude, "own-session")
    do_stop_chat(claude)
    message = send(sender, claude)
    message.refresh_from_db()
    assert message.reason == "held_until_you_write"

    payload = sample(CLI, "UserPromptSubmit", prompt="carry on", session_id="own-session")
    context = hook(claude, CLI, payload).json()["hookSpecificOutput"]["additionalContext"]

    assert f'id="{message.pk}"' in context
    assert path_of(message) == "turn_prompt"


def test_it_a_stopped_chat_is_not_released_by_another_sessions_prompt(claude, sender):
    register(claude, "own-session")
    do_stop_chat(claude)
    message = send(sender, claude)
    wrote = Chat.objects.get(pk=claude.pk).person_wrote_at

    payload = sample(CLI, "UserPromptSubmit", prompt="release it", session_id="another-one")
    assert hook(claude, CLI, payload).json() == {}

    claude.refresh_from_db()
    message.refresh_from_db()
    assert claude.status == Chat.Status.STOPPED and claude.person_wrote_at == wrote
    assert (message.state, message.reason) == (State.QUEUED, "held_until_you_write")
    assert not claude.entries.filter(kind=Entry.Kind.PROMPT).exists()
    notice = claude.entries.filter(kind=Entry.Kind.NOTICE).latest("id")
    assert "another-one" in notice.text and "stays stopped" in notice.text
    assert hook(claude, CLI, sample(CLI, "PostToolUse", session_id="another-one")).json() == {}
    message.refresh_from_db()
    assert message.state == State.QUEUED


def test_it_gives_no_prompt_line_to_a_chat_started_from_outside(claude):
    Chat.objects.filter(pk=claude.pk).update(origin=Chat.Origin.GITHUB)
    assert hook(claude, CLI, sample(CLI, "SessionStart")).json() == {}


def test_it_a_message_taken_as_a_hosted_turn_finishes_separates_its_two_answers(hosted, sender):
    """What the agent said before the block and after it are two answers, with a
    note between them (the runner shows each as it comes)."""
    turn = running(hosted, text="fix it")
    before = hosted.entries.create(turn=turn, kind=Entry.Kind.ANSWER, text="Done, I think.")
    message = send(sender, hosted)

    blocked = hook(hosted, CLI, sample(CLI, "Stop")).json()

    assert blocked["decision"] == "block" and f'id="{message.pk}"' in blocked["reason"]
    after = hosted.entries.filter(pk__gt=before.pk).exclude(kind=Entry.Kind.PEER_IN)
    assert [(entry.kind, entry.text) for entry in after] == [
        (Entry.Kind.NOTICE, "Kept going with a message that came as it was finishing.")
    ]


def test_it_an_attached_turn_taking_a_message_as_it_finishes_adds_no_note(claude, sender):
    start_prompt(claude)
    send(sender, claude)
    assert hook(claude, CLI, sample(CLI, "Stop")).json()["decision"] == "block"
    assert not claude.entries.filter(kind=Entry.Kind.NOTICE).exists()


def test_it_a_step_with_nothing_pending_costs_one_look_after_the_key(claude, sender):
    start_prompt(claude)
    with CaptureQueriesContext(connection) as queries:
        response = hook(claude, CLI, sample(CLI, "PostToolUse"))
    assert response.status_code == 200 and response.json() == {}
    assert len(queries) == 2  # the agent key's chat; is anything pending?
    message = send(sender, claude, "now there is")
    response = hook(claude, CLI, sample(CLI, "PostToolUse"))
    assert message.pk in response.json()["hookSpecificOutput"]["additionalContext"]
