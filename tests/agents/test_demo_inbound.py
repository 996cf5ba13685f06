"""The demo agent and inbound `ask`, end to end through the runner: a told message waits
for the person without waking its chat; approved, it wakes it (the fastest path for an
idle chat) and its answer comes back; the sender hears approved/denied at a step."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats.inputs import ChatUpdate
from chats.models import Turn
from peers import actions
from peers.models import PeerMessage
from tests.agents.conftest import claim, prompt, run_all, texts, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def ask_first(chat) -> None:
    actions.check_update_chat(chat.user, chat, spec=ChatUpdate(inbound="ask"))


@sync_to_async
def the_message(sender) -> PeerMessage:
    return PeerMessage.objects.get(from_chat=sender)


async def told(chat, other_chat, text: str = "tell payments-api: may I rename amount?"):
    """Both ran once (within reach); `other_chat` asks first; `chat` tells it something."""
    for each in (chat, other_chat):
        await prompt(each, "hello")
    await run_all()
    await ask_first(other_chat)
    await prompt(chat, text)
    await run_all()
    return await the_message(chat)


async def test_an_ask_chat_is_not_woken_until_the_person_approves(
    owner, chat, other_chat, fast_steps
):
    message = await told(chat, other_chat)
    assert (message.state, message.detail) == ("queued", "awaiting_approval")
    assert not await sync_to_async(other_chat.turns.filter(trigger=Turn.Trigger.WAKE).exists)()

    await sync_to_async(actions.check_approve_message)(owner, message_id=message.pk)
    await run_all()

    await sync_to_async(message.refresh_from_db)()
    assert (message.state, message.path, message.woke) == ("delivered", "turn_prompt", True)
    heard = 'payments-api got checkout\'s message "may I rename amount?"'
    assert (await texts(other_chat))[-1] == heard
    assert message.answer_id is not None


async def test_a_demo_sender_hears_the_denial_at_its_next_step(owner, chat, other_chat, settings):
    settings.DEMO_STEP_SECONDS = 0
    message = await told(chat, other_chat)
    settings.DEMO_STEP_SECONDS = 0.05
    await prompt(chat, "work 20")
    turn = await claim()
    running = asyncio.create_task(TurnRunner("tests").run_turn(turn))
    await wait_until(lambda: Turn.objects.filter(pk=turn.pk).exclude(input="").exists(), "work")

    await sync_to_async(actions.check_deny_message)(owner, message_id=message.pk)
    await asyncio.wait_for(running, 10)

    said = (await texts(chat))[-1]
    assert f"Heard: Your message {message.pk} to payments-api was denied" in said
    assert not await sync_to_async(other_chat.turns.filter(trigger=Turn.Trigger.WAKE).exists)()
