"""docs/rules.md's delivery table, row by row: from send to delivered (or cancelled)."""

import asyncio
from datetime import timedelta

import pytest
import time_machine
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from chats import actions as chat_actions
from chats.models import Turn
from kernel import events
from peers import actions
from peers import actions as delivery
from peers import actions as peer_actions
from peers.actions.record import message_groups
from peers.models import Activity, PeerMessage
from tests.peers.conftest import running

State = PeerMessage.State


class Detail:
    """The API's `detail` values (docs/api.md) (derived from reason and path)."""

    NEXT_STEP, WAKING, BEHIND_TURN = "next_step", "waking", "behind_turn"
    WITH_BACKGROUND_WORK, HELD, REMOVED = "with_background_work", "held_until_you_write", "removed"
    BETWEEN_STEPS, AS_FINISHED, TURN_PROMPT = "between_steps", "as_finished", "turn_prompt"
    WAITING_CALL, INBOX = "waiting_call", "inbox"


def send(sender, recipient, text="which port?", **kwargs):
    return actions.check_send_message(sender, to=recipient.pk, text=text, **kwargs)


def delivered_paths(message):
    return list(
        Activity.objects.filter(message=message, action=Activity.Action.DELIVERY).values_list(
            "detail", flat=True
        )
    )


def test_it_leaves_message_pending_for_running_demo_and_delivers_between_steps(sender, recipient):
    turn = running(recipient)
    message = send(sender, recipient)
    assert (message.state, message.detail) == (State.PENDING, Detail.NEXT_STEP)
    assert not recipient.turns.filter(state=Turn.State.REQUESTED).exists()

    taken = delivery.deliver_between_steps(recipient)

    message.refresh_from_db()
    assert [m.pk for m in taken] == [message.pk]
    assert (message.state, message.detail) == (State.DELIVERED, Detail.BETWEEN_STEPS)
    assert message.delivered_in_turn_id == turn.pk and message.delivered_at is not None
    assert delivered_paths(message) == [Detail.BETWEEN_STEPS]


def test_it_delivers_pending_message_as_the_turn_finishes(sender, recipient):
    running(recipient)
    message = send(sender, recipient)
    delivery.deliver_as_finished(recipient)
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.DELIVERED, Detail.AS_FINISHED)


def test_it_queues_behind_the_turn_of_another_agent(sender, command_chat):
    running(command_chat)
    message = send(sender, command_chat)
    assert (message.state, message.detail) == (State.QUEUED, Detail.BEHIND_TURN)
    next_turn = command_chat.turns.get(state=Turn.State.REQUESTED)
    assert next_turn.trigger == Turn.Trigger.SEND_ON
    assert delivery.deliver_between_steps(command_chat) == []

    running_turn = command_chat.turns.get(state=Turn.State.RUNNING)
    chat_actions.do_mark_turn_done(running_turn, final_text="ok")
    started = chat_actions.claim_next_turn("tests")
    assert started.pk == next_turn.pk
    delivery.take_for_turn(started)
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.DELIVERED, Detail.TURN_PROMPT)
    assert message.delivered_in_turn_id == started.pk


def test_it_wakes_an_idle_chat_with_a_turn_of_its_own(sender, recipient):
    message = send(sender, recipient)
    assert (message.state, message.detail, message.woke) == (State.QUEUED, Detail.WAKING, True)
    turn = recipient.turns.get(state=Turn.State.REQUESTED)
    assert (turn.trigger, turn.chain, turn.hop) == (Turn.Trigger.WAKE, message.chain, message.hop)

    second = send(sender, recipient, text="and the host?")
    assert second.woke is False  # the turn on its way takes it too: one wake
    started = chat_actions.claim_next_turn("tests")
    taken = delivery.take_for_turn(started)
    assert {m.pk for m in taken} == {message.pk, second.pk}
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.DELIVERED, Detail.TURN_PROMPT)


def test_it_waits_with_background_work_and_goes_on_when_it_ends(sender, recipient):
    turn = running(recipient, "background 3")
    chat_actions.do_mark_turn_done(turn, final_text="started", background=True)
    recipient.refresh_from_db()
    assert recipient.status == "waiting"

    message = send(sender, recipient)
    assert (message.state, message.detail) == (State.QUEUED, Detail.WITH_BACKGROUND_WORK)
    assert not recipient.turns.filter(state=Turn.State.REQUESTED).exists()

    assert chat_actions.do_mark_background_done(recipient)
    next_turn = delivery.send_on_queue(recipient)
    assert next_turn is not None and next_turn.trigger == Turn.Trigger.SEND_ON
    delivery.take_for_turn(chat_actions.claim_next_turn("tests"))
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.DELIVERED, Detail.TURN_PROMPT)


@pytest.mark.parametrize("how", ["stopped", "failed"])
def test_it_holds_message_until_the_person_writes(sender, recipient, how):
    if how == "stopped":
        peer_actions.check_stop_chat(recipient)
    else:
        chat_actions.do_mark_turn_failed(running(recipient), error="boom")
    message = send(sender, recipient, wait_seconds=30)
    assert (message.state, message.detail) == (State.QUEUED, Detail.HELD)
    assert message.waiting_until is None  # the sender is told not to wait
    assert not recipient.turns.filter(state=Turn.State.REQUESTED).exists()

    chat_actions.check_prompt(recipient, text="carry on")
    turn = chat_actions.claim_next_turn("tests")
    delivery.take_for_turn(turn)
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.DELIVERED, Detail.TURN_PROMPT)


def test_it_keeps_held_messages_when_the_person_says_not_to_send_them(sender, recipient):
    peer_actions.check_stop_chat(recipient)
    message = send(sender, recipient)
    chat_actions.check_prompt(recipient, text="just this", send_queued=False)
    assert delivery.take_for_turn(chat_actions.claim_next_turn("tests")) == []
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.QUEUED, Detail.HELD)

    actions.check_cancel_message(recipient.user, message_id=message.pk)
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.CANCELLED, Detail.REMOVED)


def test_it_stopping_a_running_chat_holds_what_was_pending(sender, recipient):
    running(recipient)
    message = send(sender, recipient)
    peer_actions.check_stop_chat(recipient)
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.QUEUED, Detail.HELD)
    assert delivery.deliver_as_finished(recipient) == []


def test_it_delivers_to_a_poll_based_agent_when_marked_seen(sender, command_chat):
    running(command_chat)
    message = send(sender, command_chat)
    assert [m.pk for m in delivery.check_mark_seen(command_chat, ids=[])] == []
    message.refresh_from_db()
    assert message.state == State.QUEUED  # reading or an empty call never delivers

    delivery.check_mark_seen(command_chat, ids=[message.pk])
    message.refresh_from_db()
    assert (message.state, message.detail) == (State.DELIVERED, Detail.INBOX)


def test_it_marks_messages_not_delivered_when_the_runner_cannot_start(sender, command_chat):
    message = send(sender, command_chat)
    turn = chat_actions.claim_next_turn("tests")
    delivery.take_for_turn(turn)
    delivery.fail_delivery(turn, "the codex runner is not set up on this machine")
    message.refresh_from_db()
    assert message.state == State.NOT_DELIVERED
    assert message.detail == "the codex runner is not set up on this machine"
    notice = sender.entries.get(kind="notice")
    assert notice.message_id == message.pk and "was not sent" in notice.text


def test_it_answers_a_waiting_call_whatever_the_senders_status(sender, recipient):
    running(sender, "ask payments-api: which port?")
    question = send(sender, recipient, wait_seconds=30)
    assert question.waiting_until is not None
    turn = chat_actions.claim_next_turn("tests")
    delivery.take_for_turn(turn)

    answer = actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=question.pk)
    assert (answer.state, answer.detail) == (State.PENDING, Detail.WAITING_CALL)
    assert delivery.deliver_between_steps(sender) == []  # kept for the waiting call

    taken = delivery.take_awaited_answer(question)
    assert taken.pk == answer.pk
    answer.refresh_from_db()
    assert (answer.state, answer.detail) == (State.DELIVERED, Detail.WAITING_CALL)
    question.refresh_from_db()
    assert question.answered and question.answer_id == answer.pk


def test_it_a_wait_that_ends_routes_a_late_answer_as_usual(sender, recipient):
    question = send(sender, recipient, wait_seconds=30)
    assert delivery.end_wait(question) is None
    answer = actions.check_send_message(recipient, to=sender.pk, text="late", reply_to=question.pk)
    assert (answer.state, answer.detail) == (State.QUEUED, Detail.WAKING)


def test_it_every_change_is_pushed_only_after_commit(
    sender, recipient, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        send(sender, recipient)
    assert callbacks, "the send pushes nothing before its transaction commits"


def hints_on(groups, *, during, timeout=0.2) -> dict[str, bool]:
    """Which of `groups` heard a hint (the real channel layer) while `during()`'s
    pushes ran; `during` returns the callbacks it left for after commit."""
    layer = get_channel_layer()

    async def listen():
        channels = {group: await layer.new_channel() for group in groups}
        for group, channel in channels.items():
            await layer.group_add(group, channel)
        await sync_to_async(lambda: [callback() for callback in during()])()
        heard = {}
        for group, channel in channels.items():
            try:
                heard[group] = bool(await asyncio.wait_for(layer.receive(channel), timeout))
            except TimeoutError:
                heard[group] = False
            await layer.group_discard(group, channel)
        return heard

    return async_to_sync(listen)()


def test_it_a_message_just_sent_hints_its_own_waiters_only_when_its_sender_waits(
    sender, recipient, django_capture_on_commit_callbacks
):
    """A held send with no wait has no waiter: its hint goes to the account's pages
    alone (each group is one more trip to the channel layer); a send that waits
    hints its own group too, and cancelling it ends the wait with a hint."""
    peer_actions.check_stop_chat(recipient)
    sent = []

    def sending(**kwargs):
        def during():
            with django_capture_on_commit_callbacks(execute=False) as callbacks:
                sent.append(send(sender, recipient, **kwargs))
            return callbacks

        return during

    account = events.account_group(sender.user_id)
    held = hints_on([account], during=sending())
    assert held == {account: True}
    assert sent[-1].reason == PeerMessage.Reason.HELD
    assert message_groups(sent[-1], new=True) == []

    running(recipient)
    waits = sending(wait_seconds=30)
    assert hints_on([account], during=waits) == {account: True}
    question = events.message_group(sent[-1].pk)
    assert question in message_groups(sent[-1], new=True)

    def cancelling():
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            peer_actions.check_cancel_message(sender.user, message_id=sent[-1].pk)
        return callbacks

    assert hints_on([question], during=cancelling) == {question: True}


def test_it_an_answer_left_by_a_wait_that_died_reaches_the_chat_later(sender, recipient):
    running(sender, "ask payments-api: which port?")
    question = send(sender, recipient, wait_seconds=30)
    answer = actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=question.pk)
    assert answer.detail == Detail.WAITING_CALL

    with time_machine.travel(timezone.now() + timedelta(seconds=31)):
        taken = delivery.deliver_between_steps(sender)
    assert [m.pk for m in taken] == [answer.pk]
