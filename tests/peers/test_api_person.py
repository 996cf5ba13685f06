"""REST for people: reach, connect, send (as a chat or as yourself), read, cancel,
activity; an outsider gets exactly what a missing id gets."""

import pytest

from chats.models import Chat
from peers import actions
from peers import actions as delivery
from peers import actions as peer_actions
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable, running

MISSING_CHAT = "chat_0000000000000000"
MISSING_MESSAGE = "msg_0000000000000000"


@pytest.fixture
def message(sender, recipient) -> PeerMessage:
    return actions.check_send_message(sender, to=recipient.pk, text="Which port?")


# Reach, connect ------------------------------------------------------------------------


def test_it_lists_the_chats_a_chat_could_message_now(owner_api, sender, recipient, owner):
    make_chat(owner, "never-ran", peers=True)
    peer_actions.check_stop_chat(recipient)

    body = owner_api.call("GET", f"/api/v1/chats/{sender.pk}/reach").json()

    assert body["count"] == 1 and body["items"][0]["id"] == recipient.pk
    assert body["items"][0]["how_fast"] == {
        "path": "held",
        "words": "held until you write to it",
        "median_seconds": None,
    }


def test_it_reach_tells_the_median_time_of_the_path(owner_api, sender, recipient):
    running(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="hi")
    delivery.deliver_between_steps(recipient)
    message.refresh_from_db()
    item = owner_api.call("GET", f"/api/v1/chats/{sender.pk}/reach/").json()["items"][0]
    assert item["how_fast"]["path"] == "between_steps"
    assert item["how_fast"]["median_seconds"] == pytest.approx(
        (message.delivered_at - message.created_at).total_seconds(), abs=0.01
    )


def test_it_a_chat_with_messaging_off_reaches_nobody(owner_api, owner, recipient):
    off = make_chat(owner, "quiet", peers=False)
    reachable(off)
    assert owner_api.call("GET", f"/api/v1/chats/{off.pk}/reach").json() == {
        "items": [],
        "count": 0,
    }


def test_it_connects_two_chats_with_a_brief(owner_api, owner):
    api_chat = make_chat(owner, "api", repository="shop-api", branch="main")
    web_chat = make_chat(owner, "web", repository="shop-web", branch="feat/cart")
    reachable(api_chat, web_chat)

    response = owner_api.call(
        "POST",
        "/api/v1/connections",
        {"chats": [api_chat.pk, web_chat.pk], "brief": "Agree on the cart's fields."},
    )

    assert response.status_code == 201
    body = response.json()
    assert body["count"] == 2
    assert [item["to_chat"] for item in body["items"]] == [api_chat.pk, web_chat.pk]
    assert all(item["sent_by"] == "person" and item["from_chat"] is None for item in body["items"])
    assert (
        "web" in body["items"][0]["text"]
        and "Agree on the cart's fields." in (body["items"][0]["text"])
    )
    assert set(Chat.objects.filter(pk__in=[api_chat.pk, web_chat.pk]).values_list("peers")) == {
        (True,)
    }
    assert Activity.objects.filter(action="connect", chat=api_chat, target=web_chat).exists()


# Sending, reading, cancelling ----------------------------------------------------------


def test_it_the_person_sends_as_themselves(owner_api, recipient):
    response = owner_api.call(
        "POST", "/api/v1/messages", {"to_chat": recipient.pk, "text": "Any news?"}
    )
    assert response.status_code == 201
    body = response.json()
    assert (body["from_chat"], body["to_chat"], body["sent_by"]) == (None, recipient.pk, "person")


def test_it_the_person_sends_as_a_chat(owner_api, sender, recipient, message):
    response = owner_api.call(
        "POST",
        "/api/v1/messages",
        {"from_chat": sender.pk, "to_chat": recipient.pk, "text": "Use 8080.", "reply_to": None},
    )
    body = response.json()
    assert response.status_code == 201
    assert (body["from_chat"], body["sent_by"]) == (sender.pk, "person")


def test_it_the_person_cannot_send_to_a_chat_that_has_not_run(owner_api, other_chat):
    # One rule for agents and the person (peers.selectors.reachable), as every list offers.
    response = owner_api.call("POST", "/api/v1/messages", {"to_chat": other_chat.pk, "text": "hi"})
    assert response.status_code == 403 and response.json()["code"] == "not_reachable"


def test_it_lists_a_chats_messages_both_ways_newest_first(
    owner_api, sender, recipient, owner, message
):
    answer = actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=message.pk)
    elsewhere = make_chat(owner, "elsewhere", peers=True)
    reachable(elsewhere)
    unrelated = actions.check_send_message(elsewhere, to=recipient.pk, text="unrelated")

    body = owner_api.call("GET", f"/api/v1/messages?chat={sender.pk}").json()
    assert [item["id"] for item in body["items"]] == [answer.pk, message.pk]
    assert body["count"] == 2
    assert body["items"][1]["answered"] is True and body["items"][1]["answer"] == answer.pk

    page = owner_api.call("GET", f"/api/v1/messages?chat={recipient.pk}&limit=1&offset=1").json()
    assert page["count"] == 3 and [item["id"] for item in page["items"]] == [answer.pk]
    everything = owner_api.call("GET", "/api/v1/messages").json()
    assert everything["count"] == 3 and everything["items"][0]["id"] == unrelated.pk


def test_it_shows_one_message(owner_api, message):
    body = owner_api.call("GET", f"/api/v1/messages/{message.pk}").json()
    assert body["id"] == message.pk and body["text"] == "Which port?"
    assert body["words"] == "Queued — waking it"


def test_it_cancels_a_queued_message(owner_api, message):
    body = owner_api.call("POST", f"/api/v1/messages/{message.pk}/cancel").json()
    assert (body["state"], body["detail"]) == ("cancelled", "removed")
    assert body["words"] == "Cancelled — removed from the queue"
    assert Activity.objects.filter(action="cancel", message=message).count() == 1


def test_it_lists_activity_involving_a_chat_newest_first(
    owner_api, owner, sender, recipient, message
):
    bystander = make_chat(owner, "bystander", peers=True)
    reachable(bystander)
    actions.check_list_chats(recipient)
    actions.check_list_chats(bystander)

    body = owner_api.call("GET", f"/api/v1/activity?chat={sender.pk}").json()

    assert [(row["action"], row["chat"], row["target"]) for row in body["items"]] == [
        ("message", sender.pk, recipient.pk)
    ]
    rows = owner_api.call("GET", f"/api/v1/activity?chat={recipient.pk}").json()["items"]
    assert [row["action"] for row in rows] == ["list", "message"]
    assert rows[1]["message"] == message.pk
    assert owner_api.call("GET", "/api/v1/activity").json()["count"] == 3


# Another account reads exactly like nothing ---------------------------------------------

PERSON_ROUTES = [
    ("GET", "/api/v1/chats/{chat}/reach", None),
    ("POST", "/api/v1/connections", {"chats": ["{chat}", "{other}"], "brief": "hi"}),
    ("POST", "/api/v1/messages", {"to_chat": "{chat}", "text": "hi"}),
    ("POST", "/api/v1/messages", {"from_chat": "{chat}", "to_chat": "{other}", "text": "hi"}),
    ("GET", "/api/v1/messages?chat={chat}", None),
    ("GET", "/api/v1/messages/{message}", None),
    ("POST", "/api/v1/messages/{message}/cancel", None),
    ("POST", "/api/v1/messages/{message}/approve", None),
    ("POST", "/api/v1/messages/{message}/deny", None),
    ("GET", "/api/v1/activity?chat={chat}", None),
]


def fill(template, ids: dict):
    if isinstance(template, str):
        return template.format(**ids)
    if isinstance(template, list):
        return [fill(item, ids) for item in template]
    if isinstance(template, dict):
        return {key: fill(value, ids) for key, value in template.items()}
    return template


@pytest.mark.parametrize(("method", "path", "body"), PERSON_ROUTES)
def test_it_an_outsider_gets_what_a_missing_id_gets(
    outsider_api, sender, recipient, message, method, path, body
):
    theirs = {"chat": sender.pk, "other": recipient.pk, "message": message.pk}
    missing = {"chat": MISSING_CHAT, "other": "chat_1111111111111111", "message": MISSING_MESSAGE}
    before = list(PeerMessage.objects.values_list("pk", "state"))

    owned = outsider_api.call(method, fill(path, theirs), fill(body, theirs))
    absent = outsider_api.call(method, fill(path, missing), fill(body, missing))

    assert owned.status_code in (404,) and owned.json()["code"] in ("no_chat", "no_message")
    assert (owned.status_code, owned.json()) == (absent.status_code, absent.json())
    assert list(PeerMessage.objects.values_list("pk", "state")) == before
    assert not Activity.objects.filter(user=sender.user, action="refused").exists()
