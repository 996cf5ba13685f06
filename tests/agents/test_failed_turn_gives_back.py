"""A failed or stopped turn gives back what it took and did not answer: held again
(or not delivered when its chat can no longer take it), its sender told once, and the
next turn answers it (docs/rules.md, "A failed or stopped turn gives back")."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from agents import turns
from agents.recovery import reclaim_expired_turns
from chats.models import Chat, Entry
from peers import actions as peer_actions
from peers.cards import trail
from peers.delivery_table import words
from peers.models import PeerMessage
from tests.agents.conftest import prompt, run_all
from tests.conftest import make_chat
from tests.peers.conftest import reachable, running

HELD = ("queued", "held_until_you_write")


@pytest.fixture
def checkout(chat) -> Chat:
    reachable(chat)
    return chat


@pytest.fixture
def payments(other_chat) -> Chat:
    reachable(other_chat)
    return other_chat


def send(checkout: Chat, payments: Chat, text: str) -> PeerMessage:
    return peer_actions.check_send_message(checkout, to=payments.pk, text=text)


def taken_between_steps(payments: Chat, *messages: PeerMessage) -> list[PeerMessage]:
    taken = peer_actions.deliver_between_steps(payments)
    assert {m.pk for m in taken} == {m.pk for m in messages}
    return taken


def fresh(message: PeerMessage) -> PeerMessage:
    return PeerMessage.objects.select_related("to_chat").get(pk=message.pk)


def went_back_notices(chat: Chat) -> list[str]:
    notices = chat.entries.filter(kind=Entry.Kind.NOTICE, text__contains="went back")
    return list(notices.values_list("text", flat=True))


@pytest.mark.django_db
def test_it_holds_again_what_a_failed_turn_took_and_tells_its_sender_once(
    checkout, payments, owner
):
    turn = running(payments)
    first, second = send(checkout, payments, "rename total?"), send(checkout, payments, "and tax?")
    yours = peer_actions.check_send_as_person(owner, from_chat=None, to=payments.pk, text="hi")
    taken_between_steps(payments, first, second, yours)

    assert turns.fail(turn, error="model unreachable: no answer from 127.0.0.1")

    for message in (first, second, yours):
        message = fresh(message)
        assert (message.state, message.reason) == HELD
        assert (message.path, message.delivered_in_turn_id, message.answered) == ("", None, False)
        assert words(message) == "Queued — held until you write"
        assert "then went back" in trail(message)
        assert "its turn failed (model unreachable: no answer from 127.0.0.1)" in trail(message)
    # One notice for the checkout's batch; the person reads the cards.
    assert went_back_notices(checkout) == [
        "Your 2 messages to payments-api went back: its turn failed (model unreachable: "
        "no answer from 127.0.0.1); they are held until the person writes to "
        "payments-api, and that turn answers."
    ]
    payments.refresh_from_db()
    assert payments.status == "failed"


@pytest.mark.django_db
def test_it_gives_back_nothing_a_turn_answered(checkout, payments, owner):
    docs = make_chat(owner, "docs", peers=True)
    reachable(docs)
    turn = running(payments)
    asked, told = send(checkout, payments, "which port?"), send(docs, payments, "fyi")
    taken_between_steps(payments, asked, told)
    # The agent answered checkout's message itself before the turn failed.
    peer_actions.check_send_message(payments, to=checkout.pk, text="8080", reply_to=asked.pk)

    assert turns.fail(turn, error="claude reported an error")

    asked, told = fresh(asked), fresh(told)
    assert (asked.state, asked.path, asked.answered) == ("delivered", "between_steps", True)
    assert (told.state, told.reason) == HELD
    assert went_back_notices(checkout) == []
    assert len(went_back_notices(docs)) == 1


@pytest.mark.django_db
def test_it_marks_not_delivered_what_its_chat_can_no_longer_take(checkout, payments):
    turn = running(payments)
    message = send(checkout, payments, "rename total?")
    taken_between_steps(payments, message)
    peer_actions.do_set_peers(payments, enabled=False)

    assert turns.fail(turn, error="model unreachable")

    message = fresh(message)
    reason = "its turn failed (model unreachable), and payments-api no longer takes"
    assert (message.state, message.reason) == ("not_delivered", "turn_failed")
    assert words(message).startswith(f"Not delivered — {reason}")
    assert went_back_notices(checkout) == [
        f"Your message to payments-api went back and was not sent: {reason} agent-to-agent messages"
    ]


@pytest.mark.django_db
def test_it_holds_again_what_a_stopped_turn_took_once(checkout, payments):
    turn = running(payments)
    message = send(checkout, payments, "rename total?")
    taken_between_steps(payments, message)

    peer_actions.check_stop_chat(payments)
    peer_actions.check_stop_chat(payments)  # a second Stop gives back nothing more
    turns.stopped(turn)  # nor does the runner, seeing the turn stopped

    assert (fresh(message).state, fresh(message).reason) == HELD
    assert "its turn was stopped" in trail(fresh(message))
    assert went_back_notices(checkout) == [
        "Your message to payments-api went back: its turn was stopped; it is held until "
        "the person writes to payments-api, and that turn answers."
    ]


@pytest.mark.django_db
def test_it_holds_again_what_a_lost_worker_s_turn_took(checkout, payments):
    turn = running(payments)
    message = send(checkout, payments, "rename total?")
    taken_between_steps(payments, message)

    assert reclaim_expired_turns(timezone.now() + timedelta(hours=1)) == 1

    turn.refresh_from_db()
    assert turn.state == "failed"
    assert (fresh(message).state, fresh(message).reason) == HELD
    assert len(went_back_notices(checkout)) == 1


@pytest.mark.django_db
def test_it_never_gives_back_what_a_finished_turn_took(checkout, payments):
    turn = running(payments)
    message = send(checkout, payments, "rename total?")
    taken_between_steps(payments, message)
    assert turns.finish(turn, final_text="")  # no final text: no answer either

    assert peer_actions.give_back_failed(turn, error="late") == []
    assert fresh(message).state == "delivered"


# The whole way, with the demo agent and the runner ---------------------------------


@sync_to_async
def sync_send(checkout: Chat, payments: Chat, text: str) -> PeerMessage:
    return send(checkout, payments, text)


@sync_to_async
def state_of(message: PeerMessage) -> tuple[str, str, bool]:
    message = fresh(message)
    return message.state, message.reason or message.path, message.answered


@sync_to_async
def answer_to(message: PeerMessage) -> PeerMessage:
    answer = fresh(message).answer
    assert answer is not None
    return answer


async def ran_once(*chats: Chat) -> None:
    for each in chats:
        await prompt(each, "hello")
    await run_all()


@pytest.mark.django_db(transaction=True)
async def test_it_answers_with_the_next_turn_what_a_failed_turn_took(chat, other_chat, fast_steps):
    await ran_once(chat, other_chat)
    await prompt(other_chat, "fail")
    message = await sync_send(chat, other_chat, "which port?")  # joins the failing turn

    await run_all()

    assert await state_of(message) == ("queued", "held_until_you_write", False)
    await prompt(other_chat, "hello again")
    await run_all()

    assert await state_of(message) == ("delivered", "turn_prompt", True)
    answer = await answer_to(message)
    assert (answer.from_chat_id, answer.to_chat_id) == (other_chat.pk, chat.pk)
    assert len(await sync_to_async(went_back_notices)(chat)) == 1


@pytest.mark.django_db(transaction=True)
async def test_it_answers_with_the_next_turn_what_a_stopped_turn_took(chat, other_chat, fast_steps):
    await ran_once(chat, other_chat)
    await sync_to_async(running)(other_chat)
    message = await sync_send(chat, other_chat, "which port?")
    await sync_to_async(taken_between_steps)(other_chat, message)
    await sync_to_async(peer_actions.check_stop_chat)(other_chat)

    assert await state_of(message) == ("queued", "held_until_you_write", False)
    await prompt(other_chat, "hello again")
    await run_all()

    assert await state_of(message) == ("delivered", "turn_prompt", True)
    assert (await answer_to(message)).to_chat_id == chat.pk
