"""The person's inbox, REST and MCP alike: what waits for them across chats, newest
first, and "done" kept on the server per account."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chats.models import Chat, Turn
from crosstalk.inbox.selectors import inbox_count
from peers.actions import check_send_as_person, check_send_message, check_stop_chat
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable, running
from tests.peers.test_asks_for_you import to_person
from tests.peers.test_mcp_tools import answered, mcp, refusal_of

pytestmark = pytest.mark.django_db
ITEM_FIELDS = {"id", "kind", "chat", "message", "text", "created_at", "done"}


def secret_of(api: ApiClient) -> str:
    return api.defaults["HTTP_AUTHORIZATION"].removeprefix("Bearer ")


def inbox(api, query: str = "") -> dict:
    response = api.call("GET", f"/api/v1/inbox{query}")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def everything(owner, chat, other_chat):
    """One item of each kind: held, to_you, answer_to_you, failed_turn."""
    reachable(chat, other_chat)
    check_stop_chat(other_chat)
    held = check_send_message(chat, to=other_chat.pk, text="held one")
    mine = check_send_as_person(owner, from_chat=None, to=chat.pk, text="question")
    asked = to_person(chat, "a question for you", ago=timedelta(seconds=-1))
    answer = to_person(chat, "the answer", ago=timedelta(seconds=-2))
    answer.reply_to = mine
    answer.save(update_fields=["reply_to"])
    turn = Turn.objects.create(chat=chat, trigger="prompt", state="failed", error="CLI gone")
    return {"held": held, "to_you": asked, "answer_to_you": answer, "failed_turn": turn}


def test_it_lists_each_kind_with_its_chat_and_text(owner_api, everything, chat, other_chat):
    body = inbox(owner_api)
    by_kind = {item["kind"]: item for item in body["items"]}
    assert set(by_kind) == {"held", "to_you", "answer_to_you", "failed_turn"}
    assert body["count"] == 4 and all(set(item) == ITEM_FIELDS for item in body["items"])
    assert by_kind["held"]["chat"] == other_chat.pk
    assert by_kind["held"]["message"] == everything["held"].pk
    assert by_kind["to_you"]["text"] == "a question for you"
    assert by_kind["answer_to_you"]["message"] == everything["answer_to_you"].pk
    assert by_kind["failed_turn"] == {
        **by_kind["failed_turn"],
        "chat": chat.pk,
        "message": None,
        "text": "CLI gone",
        "done": False,
    }
    moments = [item["created_at"] for item in body["items"]]
    assert moments == sorted(moments, reverse=True)


def test_done_items_leave_the_default_list(owner_api, everything):
    first = inbox(owner_api)["items"][0]
    response = owner_api.call("POST", "/api/v1/inbox/done", {"items": [first["id"]]})
    assert response.status_code == 200 and response.json() == {"items": [first["id"]]}
    assert first["id"] not in [item["id"] for item in inbox(owner_api)["items"]]
    assert inbox(owner_api)["count"] == 3
    every = inbox(owner_api, "?done=1")
    assert every["count"] == 4
    assert [item["done"] for item in every["items"] if item["id"] == first["id"]] == [True]
    # Again: nothing new, no error.
    again = owner_api.call("POST", "/api/v1/inbox/done", {"items": [first["id"]]})
    assert again.status_code == 200


def test_mark_all_done_empties_it(owner_api, everything):
    assert owner_api.call("POST", "/api/v1/inbox/done", {"all": True}).status_code == 200
    assert inbox(owner_api) == {"items": [], "count": 0}


def test_the_count_is_one_query(owner, everything):
    with CaptureQueriesContext(connection) as queries:
        assert inbox_count(owner) == 4
    assert len(queries) == 1


def test_the_top_bar_shows_the_count_on_every_page(owner_client, everything):
    for page in ("/chats/", "/messages/", "/inbox/"):
        html = owner_client.get(page).content.decode()
        assert 'id="inbox-count"' in html and ">4<" in html, page


def test_the_inbox_page_lists_and_marks_done(owner_client, everything):
    html = owner_client.get("/inbox/").content.decode()
    item = f"to_you:{everything['to_you'].pk}"
    assert f'data-item="{item}"' in html and "CLI gone" in html
    response = owner_client.post("/inbox/done/", {"items": item})
    assert response.status_code == 302
    assert f'data-item="{item}"' not in owner_client.get("/inbox/").content.decode()
    assert f'data-item="{item}"' in owner_client.get("/inbox/?done=1").content.decode()
    owner_client.post("/inbox/done/", {"all": "1"})
    assert "Nothing waits for you." in owner_client.get("/inbox/").content.decode()


def test_the_inbox_page_is_not_found_for_another_accounts_item(outsider_client, everything):
    item = f"to_you:{everything['to_you'].pk}"
    assert outsider_client.post("/inbox/done/", {"items": item}).status_code == 404
    assert f'data-item="{item}"' not in outsider_client.get("/inbox/").content.decode()


def test_another_accounts_item_is_not_found(outsider_api, owner_api, everything):
    item = inbox(owner_api)["items"][0]["id"]
    response = outsider_api.call("POST", "/api/v1/inbox/done", {"items": [item]})
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert inbox(outsider_api) == {"items": [], "count": 0}
    assert inbox(owner_api)["count"] == 4
    refused = refusal_of(mcp(secret_of(outsider_api), "mark_done", {"items": [item]}))
    assert refused["code"] == "not_found"


@pytest.mark.parametrize(
    "items", [["-rf"], ["held:\x00"], ["held:" + "x" * 5000], ["nope:msg_1"], ["held:msg_none"]]
)
def test_odd_item_ids_are_refused(owner_api, items):
    response = owner_api.call("POST", "/api/v1/inbox/done", {"items": items})
    assert response.status_code in (400, 404)


def test_a_chat_key_is_refused(agent_api, chat):
    assert agent_api.call("GET", "/api/v1/inbox").status_code == 401
    assert agent_api.call("POST", "/api/v1/inbox/done", {"all": True}).status_code == 401
    assert mcp(chat.agent_key, "read_inbox", {}).is_error


def test_mcp_answers_like_rest(owner_api, everything):
    token = secret_of(owner_api)
    assert answered(mcp(token, "read_inbox", {})) == inbox(owner_api)
    item = inbox(owner_api)["items"][-1]["id"]
    assert answered(mcp(token, "mark_done", {"items": [item]})) == {"items": [item]}
    assert answered(mcp(token, "read_inbox", {"done": True})) == inbox(owner_api, "?done=1")


def test_an_outside_answer_that_failed_waits_and_leaves_with_its_chat(owner, owner_api):
    from django.utils import timezone

    from crosstalk.chat_lifecycle import check_delete_chat
    from origins.models import OriginReply, OriginThread
    from tests.origins.conftest import make_origin

    outside = make_chat(owner, "issue-7", origin="webhook")
    thread = OriginThread.objects.create(origin=make_origin(owner), thread_key="7", chat=outside)
    now = timezone.now()
    OriginReply.objects.create(
        thread=thread,
        text="done",
        state="failed",
        last_error="The receiver answered 500.",
        next_attempt_at=now,
        created_at=now,
    )
    [item] = inbox(owner_api)["items"]
    assert item["kind"] == "origin_failed" and item["chat"] == outside.pk
    assert item["text"] == "The receiver answered 500."
    check_delete_chat(owner, outside.pk)
    assert inbox(owner_api)["count"] == 0


def test_a_failed_turn_of_a_running_chat_counts_once(owner, chat):
    running(chat)
    Turn.objects.filter(chat=chat).update(state="failed", error="boom")
    assert inbox_count(owner) == 1


def test_the_inbox_list_refetches_live_with_the_counts(owner_client, everything):
    html = owner_client.get("/inbox/", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in html and "CLI gone" in html
    assert 'id="inbox-count"' in html and 'hx-swap-oob="true"' in html


def test_it_lists_a_message_awaiting_approval_and_approves_it_from_the_page(
    owner_api, owner_client, chat, other_chat
):
    reachable(chat, other_chat)
    Chat.objects.filter(pk=other_chat.pk).update(inbound="ask")
    waiting = check_send_message(chat, to=other_chat.pk, text="may I?")
    [item] = [i for i in inbox(owner_api)["items"] if i["kind"] == "awaiting_approval"]
    assert (item["chat"], item["message"]) == (other_chat.pk, waiting.pk)
    assert item["text"] == f"From {chat.name}: may I?"
    page = owner_client.get("/inbox/").content.decode()
    approve = f"/chats/{other_chat.pk}/messages/{waiting.pk}/approve/"
    assert approve in page and f"/chats/{other_chat.pk}/messages/{waiting.pk}/deny/" in page
    response = owner_client.post(approve, {"back": "inbox"})
    assert response.status_code == 302 and response["Location"] == "/inbox/"
    waiting.refresh_from_db()
    assert waiting.reason != "awaiting_approval"
    assert all(i["kind"] != "awaiting_approval" for i in inbox(owner_api)["items"])


def test_another_account_cannot_deny_from_its_inbox(outsider_client, chat, other_chat):
    reachable(chat, other_chat)
    Chat.objects.filter(pk=other_chat.pk).update(inbound="ask")
    waiting = check_send_message(chat, to=other_chat.pk, text="may I?")
    deny = f"/chats/{other_chat.pk}/messages/{waiting.pk}/deny/"
    assert outsider_client.post(deny, {"back": "inbox"}).status_code == 404
    waiting.refresh_from_db()
    assert waiting.reason == "awaiting_approval"


def test_the_page_renders_an_items_markdown_and_escapes_its_html(owner_client, chat):
    to_person(chat, "**Reserve** order `42` <script>alert(1)</script>")
    page = owner_client.get("/inbox/").content.decode()
    assert "<strong>Reserve</strong>" in page and "<code>42</code>" in page
    assert "<script>alert(1)" not in page


def test_it_refuses_a_page_deeper_than_it_reads(owner_api, owner):
    deep = owner_api.call("GET", "/api/v1/inbox?offset=2147483000")
    assert deep.status_code == 400 and deep.json()["code"] == "invalid_input"
    refused = mcp(secret_of(owner_api), "read_inbox", {"offset": 2147483000})
    assert refusal_of(refused)["code"] == "invalid_input"
