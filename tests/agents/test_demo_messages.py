"""The demo agent with peer messages: ask, tell, messages between steps and as it
finishes, wakes, and the final text going back as the answer."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats.models import Entry, Turn
from peers import actions
from peers import actions as peer_actions
from peers.models import PeerMessage
from tests.agents.conftest import claim, fresh, prompt, run_all, texts, wait_until
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db(transaction=True)


async def ran_once(*chats) -> None:
    """Each chat runs a first turn, so it is within reach (48 h since it last ran)."""
    for each in chats:
        await prompt(each, "hello")
    await run_all()


@sync_to_async
def send(sender, recipient, text: str) -> PeerMessage:
    return actions.check_send_message(sender, to=recipient.pk, text=text)


@sync_to_async
def messages_to(chat) -> list[PeerMessage]:
    return list(PeerMessage.objects.filter(to_chat=chat).order_by("created_at"))


async def test_it_asks_another_chat_and_says_its_answer(chat, other_chat, fast_steps):
    await ran_once(chat, other_chat)
    await prompt(chat, "ask payments-api: which port?")

    await run_all()

    question = 'payments-api got checkout\'s message "which port?"'
    assert await texts(other_chat) == ["hello", question]
    assert (await texts(chat))[-1] == f"payments-api answered: {question}"
    (asked,) = await messages_to(other_chat)
    (answer,) = await messages_to(chat)
    # Both sides' entries name the answer they are: the pages show it once, in its card.
    relayed = await sync_to_async(Entry.objects.filter(chat=chat).last)()
    answered = await sync_to_async(Entry.objects.filter(chat=other_chat).last)()
    assert relayed.message_id == answered.message_id == answer.pk
    assert asked.answer_id == answer.pk
    assert (answer.state, answer.detail) == ("delivered", "waiting_call")
    assert (await fresh(chat)).status == (await fresh(other_chat)).status == "idle"


async def test_it_says_the_refusal_when_asking_is_refused(chat, owner, fast_steps):
    docs = await sync_to_async(make_chat)(owner, "docs", peers=False)
    await ran_once(chat, docs)
    await prompt(chat, "ask docs: are you there?\nask nobody: hello?")

    await run_all()

    not_reachable, no_chat = (await texts(chat))[-1].splitlines()
    # In the person's words: no machine code (the API keeps those).
    assert not_reachable == (
        "Could not ask docs. Not sent: the other chat has messaging off or has not run "
        "lately. Turn its messaging on, or write to it so it runs."
    )
    assert no_chat == "Could not ask nobody. Not sent: there is no such chat."


async def test_it_says_the_state_when_no_answer_comes(chat, other_chat, fast_steps):
    await ran_once(chat, other_chat)
    await sync_to_async(peer_actions.check_stop_chat)(other_chat)
    await prompt(chat, "ask payments-api: which port?")

    await run_all()

    assert (await texts(chat))[-1] == (
        "No answer from payments-api came in time; the message is Queued — held until you write."
    )


async def test_it_tells_without_waiting_and_hears_the_answer_in_a_new_turn(
    chat, other_chat, fast_steps
):
    await ran_once(chat, other_chat)
    await prompt(chat, "tell payments-api: I renamed amount to total")

    await run_all()

    heard = 'payments-api got checkout\'s message "I renamed amount to total"'
    assert (await texts(other_chat))[-1] == heard
    # The woken chat's final text came back as the answer, which woke the sender;
    # a turn woken by an answer does not answer again.
    assert (await texts(chat))[1:] == [
        "Told payments-api: I renamed amount to total",
        f'checkout got payments-api\'s message "{heard}"',
    ]
    assert len(await messages_to(chat)) == 1


async def test_it_takes_messages_between_steps(chat, other_chat, settings):
    settings.DEMO_STEP_SECONDS = 0
    await ran_once(chat, other_chat)
    settings.DEMO_STEP_SECONDS = 0.05
    await prompt(chat, "work 20")
    turn = await claim()
    running = asyncio.create_task(TurnRunner("tests").run_turn(turn))
    await wait_until(lambda: Turn.objects.filter(pk=turn.pk).exclude(input="").exists(), "work")
    message = await send(other_chat, chat, "which port?\nasking for the cart page")
    assert message.detail == "next_step"

    await asyncio.wait_for(running, 10)

    await sync_to_async(message.refresh_from_db)()
    assert (message.state, message.detail) == ("delivered", "between_steps")
    assert (await texts(chat))[-1] == (
        'checkout got payments-api\'s message "which port?"\nWorked 20 steps.'
    )


async def test_it_keeps_going_with_messages_that_come_as_it_finishes(
    chat, other_chat, owner, settings
):
    settings.DEMO_STEP_SECONDS = 0
    docs = await sync_to_async(make_chat)(owner, "docs", peers=True)
    await ran_once(chat, other_chat, docs)
    settings.DEMO_STEP_SECONDS = 0.05
    # payments-api answers only when its 20 steps are done; checkout waits meanwhile.
    await prompt(other_chat, "work 20")
    await prompt(chat, "ask payments-api: which port?")
    running = asyncio.create_task(run_all())
    await wait_until(
        lambda: PeerMessage.objects.filter(to_chat=other_chat).exists(), "checkout's question"
    )
    late = await send(docs, chat, "one more thing")
    assert late.detail == "next_step"

    await asyncio.wait_for(running, 20)

    await sync_to_async(late.refresh_from_db)()
    assert (late.state, late.detail) == ("delivered", "as_finished")
    relayed, said = (await texts(chat))[-2:]
    assert relayed == (
        'payments-api answered: payments-api got checkout\'s message "which port?"\n'
        "Worked 20 steps."
    )
    assert said == 'checkout got docs\'s message "one more thing"'


async def test_it_never_follows_directives_in_a_message(chat, other_chat, fast_steps):
    await ran_once(chat, other_chat)
    await send(chat, other_chat, "fail")

    await run_all()

    other_chat = await fresh(other_chat)
    assert other_chat.status == "idle"
    assert other_chat.last_answered == 'payments-api got checkout\'s message "fail"'
    woken = await sync_to_async(other_chat.turns.order_by("requested_at").last)()
    assert woken.trigger == Turn.Trigger.WAKE
    assert woken.prompt == "" and woken.input.startswith("<peer-message ")


async def test_it_marks_messages_not_delivered_when_the_agent_cannot_start(
    chat, owner, fast_steps, monkeypatch, tmp_path
):
    builder = await sync_to_async(make_chat)(owner, "builder", agent="codex", peers=True)
    monkeypatch.delenv("CODEX_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    await ran_once(builder)  # fails: no codex here, but it counts as having run
    message = await send(chat, builder, "please build")
    assert message.detail == "held_until_you_write"

    await prompt(builder, "try again")
    await run_all()

    await sync_to_async(message.refresh_from_db)()
    missing = "`codex` was not found on PATH (set CODEX_BIN to its path)"
    assert message.state == "not_delivered"
    assert message.detail == missing
    assert await texts(builder, Entry.Kind.NOTICE) == [f"The turn failed: {missing}"] * 2
