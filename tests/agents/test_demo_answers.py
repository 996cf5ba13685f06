"""Issue 34: a turn's final text answers every message it took, one answer per
sender, and the person's prompt keeps its answer in the conversation."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from accounts.actions import do_create_api_token
from agents.runner import TurnRunner
from chats.models import Entry, Turn
from peers import actions
from peers.models import PeerMessage
from tests.agents.conftest import claim, prompt, run_all, wait_until
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db(transaction=True)

HTMX = {"HTTP_HX_REQUEST": "true"}


@sync_to_async
def send_all(sender, recipient, *texts: str) -> list[PeerMessage]:
    # One call, milliseconds apart: the running turn's next step takes them together.
    return [actions.check_send_message(sender, to=recipient.pk, text=t) for t in texts]


@sync_to_async
def conversation(owner, chat) -> str:
    client = Client()
    client.force_login(owner)
    response = client.get(f"/chats/{chat.pk}/conversation/", **HTMX)
    assert response.status_code == 200
    return response.content.decode().split("hx-swap-oob")[0]


@sync_to_async
def peers_tab(owner, chat) -> str:
    client = Client()
    client.force_login(owner)
    return client.get(f"/chats/{chat.pk}/peers/", HTTP_HX_REQUEST="true").content.decode()


@sync_to_async
def rest_message(secret: str, message: PeerMessage) -> dict:
    response = ApiClient(secret).get(f"/api/v1/messages/{message.pk}")
    assert response.status_code == 200
    return response.json()


@sync_to_async
def answers_from(chat) -> list[PeerMessage]:
    return list(PeerMessage.objects.filter(from_chat=chat, sent_by="agent"))


@sync_to_async
def own_entries(chat) -> list[tuple[str, str]]:
    entries = chat.entries.exclude(kind__in=(Entry.Kind.PEER_IN, Entry.Kind.PEER_OUT))
    return list(entries.values_list("kind", "text"))


@sync_to_async
def api_secret(owner) -> str:
    return do_create_api_token(owner, name="tests")[1]


def card(html: str, message: PeerMessage) -> str:
    start = html.index(f'id="conversation-msg-{message.pk}"')
    return html[start : html.index("</article>", start)]


async def run_with_messages(chat, other_chat, settings, *texts: str) -> list[PeerMessage]:
    """The person prompts `work 20` in chat; other_chat's messages join the turn."""
    settings.DEMO_STEP_SECONDS = 0
    await prompt(chat, "hello")
    await prompt(other_chat, "hello")
    await run_all()
    settings.DEMO_STEP_SECONDS = 0.1
    await prompt(chat, "work 20")
    turn = await claim()
    running = asyncio.create_task(TurnRunner("tests").run_turn(turn))
    await wait_until(lambda: Turn.objects.filter(pk=turn.pk).exclude(input="").exists(), "work")
    sent = await send_all(other_chat, chat, *texts)
    await asyncio.wait_for(running, 10)
    await run_all()  # the answers wake other_chat; a turn woken by an answer answers none
    return sent


async def test_it_answers_three_messages_from_one_chat_with_the_one_answer(
    chat, other_chat, owner, settings
):
    sent = await run_with_messages(chat, other_chat, settings, "one?", "two?", "three?")

    (answer,) = await answers_from(chat)  # one answer per sender still
    assert answer.to_chat_id == other_chat.pk and answer.reply_to_id == sent[-1].pk
    secret = await api_secret(owner)
    for message in sent:
        shape = await rest_message(secret, message)
        assert (shape["state"], shape["answered"], shape["answer"]) == (
            "delivered",
            True,
            answer.pk,
        )
        assert shape["answer_refused"] is None
    asked = await conversation(owner, other_chat)
    for message in sent:
        assert "Worked 20 steps." in card(asked, message)  # the answer, inside each card
        assert "not answered yet" not in card(asked, message)
    # Three questions and the one answer they share.
    # Three cards, the one answer inside each: the group counts the cards it shows.
    assert '<span class="muted small">3 messages</span>' in await peers_tab(owner, other_chat)
    assert (await own_entries(chat))[-1] == (
        Entry.Kind.NOTICE,
        "Answered your prompt and 3 messages",
    )


async def test_it_shows_the_final_text_under_the_prompt_and_in_the_card(
    chat, other_chat, owner, settings
):
    (question,) = await run_with_messages(chat, other_chat, settings, "which port?")

    (answer,) = await answers_from(chat)
    assert answer.text.endswith("Worked 20 steps.")
    entries = await own_entries(chat)
    assert entries[-3:] == [
        (Entry.Kind.PROMPT, "work 20"),
        (Entry.Kind.ANSWER, answer.text),
        (Entry.Kind.NOTICE, "Answered your prompt and 1 message"),
    ]
    answered = await conversation(owner, chat)
    below = answered[answered.rindex("work 20") :]
    assert "entry-answer" in below and "Worked 20 steps." in below
    assert "Worked 20 steps." in card(answered, question)
    assert "Worked 20 steps." in card(await conversation(owner, other_chat), question)
