"""Outside stays outside: only a turn answering its origin's own request sends its final
text back; peer messages to an outside chat wait for turns of their own, whose answers
stay in Crosstalk (docs/origins.md, "Answers going back")."""

import json

import pytest
from asgiref.sync import sync_to_async

from agents import turns
from agents.runner import TurnRunner
from chats.actions import claim_next_turn, do_mark_turn_done
from chats.models import Chat, Turn
from origins.actions import send_due_replies
from origins.models import OriginReply
from peers import actions
from peers.models import PeerMessage
from peers.selectors import inbox
from tests.origins.test_answers import ask, webhook_origin
from tests.peers.conftest import reachable

pytestmark = pytest.mark.django_db(transaction=True)
SECRET = "INSIDE-ONLY the staging password is hunter2"
Trigger = Turn.Trigger


@pytest.fixture(autouse=True)
def fast_steps(settings):
    settings.DEMO_STEP_SECONDS = 0


@pytest.fixture
def sender(chat):
    reachable(chat)
    return chat


def answered_outside(receiver) -> list[str]:
    """Every text that reached the origin's callback (and every reply still queued)."""
    send_due_replies()
    posted = [json.loads(request.body)["text"] for request in receiver.requests]
    queued = list(OriginReply.objects.values_list("text", flat=True))
    assert not any(SECRET in text for text in posted + queued)
    return posted


def switched_on(chat: Chat) -> Chat:
    """The person turns an outside chat's messaging on (Connect cannot)."""
    actions.do_set_peers(chat, enabled=True)
    chat.refresh_from_db()
    return chat


def origin_turn_running(origin, text: str = "first request") -> tuple[Chat, Turn]:
    chat = switched_on(ask(origin, text))
    turn = claim_next_turn("tests")
    assert (turn.chat_id, turn.trigger) == (chat.pk, Trigger.OUTSIDE)
    chat.refresh_from_db()
    return chat, turn


def final_texts(chat: Chat, trigger: str) -> list[str]:
    return list(chat.turns.filter(trigger=trigger).values_list("final_text", flat=True))


async def run_turns() -> None:
    await TurnRunner("tests").run_until_idle()


async def test_it_answers_the_origins_requests_but_never_an_agents_or_a_send_as_message(
    owner, sender, receiver
):
    origin = await sync_to_async(webhook_origin)(owner, receiver)
    outside = await sync_to_async(ask)(origin, "first request")
    await run_turns()
    outside = await sync_to_async(switched_on)(outside)

    await sync_to_async(actions.check_send_message)(sender, to=outside.pk, text=SECRET)
    await run_turns()
    await sync_to_async(actions.check_send_as_person)(
        owner, from_chat=sender.pk, to=outside.pk, text=f"{SECRET} (as checkout)"
    )
    await run_turns()
    await sync_to_async(ask)(origin, "second request")
    await run_turns()

    # The inside turns did read the secret: without the fence it would have gone out.
    woken = await sync_to_async(final_texts)(outside, Trigger.WAKE)
    assert len(woken) == 2 and all(SECRET in text for text in woken)
    assert await sync_to_async(answered_outside)(receiver) == [
        'Read a request from webhook by bob: "first request"',
        'Read a request from webhook by bob: "second request"',
    ]


async def test_it_a_message_during_an_origin_turn_waits_for_a_turn_of_its_own(
    owner, sender, receiver
):
    origin = await sync_to_async(webhook_origin)(owner, receiver)
    outside, turn = await sync_to_async(origin_turn_running)(origin)
    message = await sync_to_async(actions.check_send_message)(sender, to=outside.pk, text=SECRET)
    assert (message.state, message.reason) == ("queued", "behind_turn")

    assert await sync_to_async(actions.deliver_between_steps)(outside) == []
    assert await sync_to_async(actions.deliver_as_finished)(outside) == []
    assert await sync_to_async(inbox)(outside) == []
    assert await sync_to_async(actions.check_mark_seen)(outside, ids=[message.pk]) == []
    assert await sync_to_async(turns.finish)(turn, final_text="the origin's answer")
    await run_turns()

    await message.arefresh_from_db()
    own = await Turn.objects.aget(pk=message.delivered_in_turn_id)
    assert (message.state, message.path, own.trigger) == ("delivered", "turn_prompt", "send_on")
    assert SECRET in own.final_text
    # Its block names no tool the outside chat could never use.
    assert "started from outside" in own.input and "MessageChat" not in own.input
    assert await sync_to_async(answered_outside)(receiver) == ["the origin's answer"]


def pending_as_the_origin_turn_starts(origin, sender) -> tuple[Chat, Turn, PeerMessage]:
    """A message pending for an inside turn, whose end races with a second runner
    claiming the origin's request before the queue is sent on."""
    outside = switched_on(ask(origin, "first request"))
    first = claim_next_turn("tests")
    assert turns.finish(first, final_text="first answer")
    actions.check_send_message(sender, to=outside.pk, text="wake up")
    woken = claim_next_turn("tests")
    actions.take_for_turn(woken)
    outside.refresh_from_db()
    message = actions.check_send_message(sender, to=outside.pk, text=SECRET)
    assert message.state == "pending"
    ask(origin, "second request")
    # Only chats' half: the queue is not sent on, as when a second runner claims first.
    assert do_mark_turn_done(woken, final_text="woken answer")
    answering = claim_next_turn("tests")
    assert answering.trigger == Trigger.OUTSIDE
    outside.refresh_from_db()
    return outside, answering, message


async def test_it_a_message_pending_as_an_origin_turn_starts_is_not_taken_into_it(
    owner, sender, receiver
):
    origin = await sync_to_async(webhook_origin)(owner, receiver)
    outside, answering, message = await sync_to_async(pending_as_the_origin_turn_starts)(
        origin, sender
    )
    assert await sync_to_async(actions.take_for_turn)(answering) == []
    assert await sync_to_async(actions.deliver_between_steps)(outside) == []
    assert await sync_to_async(actions.deliver_as_finished)(outside) == []
    assert await sync_to_async(turns.finish)(answering, final_text="second answer")
    await run_turns()

    await message.arefresh_from_db()
    own = await Turn.objects.aget(pk=message.delivered_in_turn_id)
    assert (message.state, own.trigger) == ("delivered", "send_on")
    assert await sync_to_async(answered_outside)(receiver) == ["first answer", "second answer"]


def inside_turn_running(origin, sender) -> tuple[Chat, Turn]:
    outside = switched_on(ask(origin, "first request"))
    assert turns.finish(claim_next_turn("tests"), final_text="first answer")
    actions.check_send_message(sender, to=outside.pk, text=SECRET)
    woken = claim_next_turn("tests")
    assert woken.trigger == Trigger.WAKE
    assert [m.text for m in actions.take_for_turn(woken)] == [SECRET]
    return outside, woken


async def test_it_an_origin_request_during_an_inside_turn_gets_a_turn_of_its_own(
    owner, sender, receiver
):
    origin = await sync_to_async(webhook_origin)(owner, receiver)
    outside, woken = await sync_to_async(inside_turn_running)(origin, sender)
    await sync_to_async(ask)(origin, "second request")
    requested = [turn async for turn in outside.turns.filter(state="requested")]
    assert [turn.trigger for turn in requested] == [Trigger.OUTSIDE]

    assert await sync_to_async(turns.finish)(woken, final_text=f"I read {SECRET}")
    await run_turns()

    assert await sync_to_async(answered_outside)(receiver) == [
        "first answer",
        'Read a request from webhook by bob: "second request"',
    ]


async def test_it_a_failed_inside_turn_sends_no_could_not_finish_note(owner, sender, receiver):
    origin = await sync_to_async(webhook_origin)(owner, receiver)
    _, woken = await sync_to_async(inside_turn_running)(origin, sender)
    assert await sync_to_async(turns.fail)(woken, error="it broke")
    assert await sync_to_async(answered_outside)(receiver) == ["first answer"]
