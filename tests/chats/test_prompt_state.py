"""State that never lags its request: a prompt's 202 leaves the chat running at once,
before any runner claims its turn, and its card shows the new question with no
answer until this turn's answer exists (docs/api.md, docs/rules.md)."""

import re

import pytest
from asgiref.sync import sync_to_async

from agents import turns
from chats import actions
from chats.models import Chat, Turn
from peers import actions as peer_actions
from tests.agents.conftest import fresh, prompt, run_all


def card_lines(html: str, chat: Chat) -> tuple[str, str]:
    """The chat-list card's "You asked" and "It answered" lines."""
    card = html[html.index(f'href="/chats/{chat.pk}/"') :]
    asked, answered = re.findall(r'<span class="line-text">(.*?)</span>', card)[:2]
    return asked, answered


@pytest.mark.django_db
def test_it_reads_running_right_after_the_prompt_s_202(owner_api, chat):
    response = owner_api.call("POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": "work 3"})

    assert response.status_code == 202
    assert response.json()["status"] == "running"
    # No runner has claimed the turn: the chat reads running all the same.
    assert response.json()["turn"]["state"] == "requested"
    read = owner_api.call("GET", f"/api/v1/chats/{chat.pk}").json()
    assert (read["status"], read["last_asked"], read["last_answered"]) == ("running", "work 3", "")


@pytest.mark.django_db
def test_it_shows_the_new_question_without_the_old_answer(owner_client, chat):
    turn = actions.check_prompt(chat, text="work 2")
    actions.claim_next_turn("tests")
    turns.finish(turn, final_text="Worked 2 steps.")
    assert card_lines(owner_client.get("/chats/").content.decode(), chat) == (
        "work 2",
        "Worked 2 steps.",
    )

    owner_client.post(f"/chats/{chat.pk}/", {"text": "work 3", "send_queued": "on"})

    html = owner_client.get("/chats/").content.decode()
    assert card_lines(html, chat) == ("work 3", "—")
    chat.refresh_from_db()
    assert chat.status == "running"


@pytest.mark.django_db
def test_it_stays_running_when_a_turn_ends_with_a_prompt_queued(chat):
    first = actions.check_prompt(chat, text="work 2")
    actions.claim_next_turn("tests")
    actions.check_prompt(chat, text="work 3")  # queued behind the running turn

    assert turns.finish(first, final_text="Worked 2 steps.")

    chat.refresh_from_db()
    assert chat.status == "running"
    # The card keeps the queued question, unanswered; the answer is in the conversation.
    assert (chat.last_asked, chat.last_answered) == ("work 3", "")
    assert chat.entries.filter(kind="answer", text="Worked 2 steps.").exists()
    second = actions.claim_next_turn("tests")
    assert second.prompt == "work 3"
    assert turns.finish(second, final_text="Worked 3 steps.")
    chat.refresh_from_db()
    assert (chat.status, chat.last_answered) == ("idle", "Worked 3 steps.")


@pytest.mark.django_db
def test_it_stays_running_when_a_turn_fails_with_a_prompt_queued(chat):
    first = actions.check_prompt(chat, text="work 2")
    actions.claim_next_turn("tests")
    actions.check_prompt(chat, text="work 3")

    assert turns.fail(first, error="model unreachable")

    chat.refresh_from_db()
    assert chat.status == "running"
    assert chat.entries.filter(kind="notice", text="The turn failed: model unreachable").exists()


@pytest.mark.django_db
def test_it_runs_a_stopped_chat_again_from_the_prompt_on(chat):
    peer_actions.check_stop_chat(chat)

    actions.check_prompt(chat, text="go on")

    chat.refresh_from_db()
    assert chat.status == "running"
    assert chat.turns.filter(state=Turn.State.REQUESTED).count() == 1


@pytest.mark.django_db(transaction=True)
async def test_it_ends_the_demo_agent_s_turn_idle_with_its_answer(chat, settings):
    settings.DEMO_STEP_SECONDS = 0
    await prompt(chat, "work 1")
    assert (await fresh(chat)).status == "running"

    await run_all()

    done = await fresh(chat)
    assert (done.status, done.last_asked, done.last_answered) == (
        "idle",
        "work 1",
        "Worked 1 step.",
    )
    await prompt(chat, "say hi")
    again = await fresh(chat)
    assert (again.status, again.last_asked, again.last_answered) == ("running", "say hi", "")
    assert await sync_to_async(chat.turns.filter(state=Turn.State.REQUESTED).count)() == 1
