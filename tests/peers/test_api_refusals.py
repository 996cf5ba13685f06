"""Every refusal through REST: its status, its code, a sentence, and nothing recorded
but one `refused` activity row (no message, no entry, no turn)."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from chats.actions import check_prompt
from chats.models import Entry, Turn
from peers.actions import do_set_limits
from peers.models import Activity, PeerMessage
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable


def snapshot() -> tuple:
    last_row = dict(Activity.objects.values_list("id", "count"))
    counts = (PeerMessage.objects.count(), Entry.objects.count(), Turn.objects.count())
    return last_row, counts


def assert_refused(call, status: int, code: str) -> dict:
    last_row, counts = snapshot()
    response = call()
    body = response.json()
    assert (response.status_code, body["code"]) == (status, code), body
    assert body["message"].strip()
    assert (PeerMessage.objects.count(), Entry.objects.count(), Turn.objects.count()) == counts
    # A repeat of the same refusal within a minute is counted into its row.
    rows = Activity.objects.order_by("id")
    recorded = [
        (row.action, row.detail) for row in rows for _ in range(row.count - last_row.get(row.pk, 0))
    ]
    assert recorded == [("refused", code)]
    return body


def send(api: ApiClient, to: str, text: str = "which port?", **fields):
    body = {"to": to, "text": text, "wait_seconds": 0, **fields}
    return api.call("POST", "/api/v1/agent/messages", body)


def sent(response) -> dict:
    assert response.status_code == 201, response.json()
    return response.json()


@pytest.fixture
def third_chat(owner):
    chat = make_chat(owner, "search", peers=True)
    reachable(chat)
    return chat


@pytest.fixture
def clock():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


# The checks before any limit --------------------------------------------------


def test_it_refuses_a_chat_that_does_not_exist(api):
    assert_refused(lambda: send(api, "chat_0000000000000000"), 404, "no_chat")


def test_it_refuses_another_accounts_chat_exactly_like_a_missing_one(api, outsider_chat):
    missing = assert_refused(lambda: send(api, "chat_0000000000000000"), 404, "no_chat")
    theirs = assert_refused(lambda: send(api, outsider_chat.pk), 404, "no_chat")
    assert theirs == missing
    assert not Activity.objects.filter(target=outsider_chat).exists()


def test_it_refuses_messaging_itself(api, sender):
    assert_refused(lambda: send(api, sender.pk), 400, "not_yourself")


def test_it_refuses_a_chat_started_from_outside(owner, recipient):
    github = make_chat(owner, "pr-review", origin="github", peers=True)
    reachable(github)
    assert_refused(lambda: send(ApiClient(github.agent_key), recipient.pk), 403, "outside_origin")


def test_it_refuses_a_chat_that_has_not_run_within_reach(api, other_chat):
    assert_refused(lambda: send(api, other_chat.pk), 403, "not_reachable")


def test_it_refuses_a_chat_with_messaging_off(api, owner):
    off = make_chat(owner, "quiet", peers=False)
    reachable(off)
    assert_refused(lambda: send(api, off.pk), 403, "not_reachable")


def test_it_refuses_blank_text(api, recipient):
    assert_refused(lambda: send(api, recipient.pk, " \n\t "), 400, "empty_message")


def test_it_refuses_text_over_the_longest(api, recipient):
    body = assert_refused(lambda: send(api, recipient.pk, "x" * 8001), 400, "message_too_long")
    assert "8000" in body["message"]


def test_it_refuses_a_reply_to_no_message_the_recipient_sent(api, other_api, sender, recipient):
    mine = sent(send(api, recipient.pk))
    assert_refused(lambda: send(api, recipient.pk, reply_to="msg_nope"), 400, "no_such_message")
    # Replying to one's own message is no reply either.
    assert_refused(lambda: send(api, recipient.pk, reply_to=mine["id"]), 400, "no_such_message")
    answer = sent(send(other_api, sender.pk, "8080", reply_to=mine["id"]))
    assert answer["reply_to"] == mine["id"]


def test_it_refuses_an_agent_whose_switch_is_off(owner, recipient):
    off = make_chat(owner, "quiet", peers=False)
    reachable(off)
    assert_refused(lambda: send(ApiClient(off.agent_key), recipient.pk), 403, "peers_off")


@pytest.mark.parametrize(
    "fields",
    [{"wait_seconds": "soon"}, {"to": 7}, {"text": None}, {"cc": "x"}],
)
def test_it_refuses_input_of_the_wrong_type(api, recipient, fields):
    body = {"to": recipient.pk, "text": "hi", "wait_seconds": 0, **fields}
    call = lambda: api.call("POST", "/api/v1/agent/messages", body)  # noqa: E731
    assert_refused(call, 400, "invalid_input")


def test_it_refuses_a_message_without_a_recipient(api):
    call = lambda: api.call("POST", "/api/v1/agent/messages", {"text": "hi"})  # noqa: E731
    assert_refused(call, 400, "invalid_input")


def test_it_refuses_a_body_that_is_not_json(api):
    call = lambda: api.generic(  # noqa: E731
        "POST", "/api/v1/agent/messages", "{nope", content_type="application/json"
    )
    assert_refused(call, 400, "invalid_input")


# The limits -------------------------------------------------------------------


def test_it_limits_what_one_chat_sends_an_hour(api, recipient, third_chat, clock):
    do_set_limits({"chat_per_hour": 2})
    sent(send(api, recipient.pk))
    sent(send(api, third_chat.pk))
    assert_refused(lambda: send(api, recipient.pk), 429, "limit_chat_hour")
    clock.shift(timedelta(minutes=59))
    assert_refused(lambda: send(api, recipient.pk), 429, "limit_chat_hour")
    clock.shift(timedelta(minutes=2))
    sent(send(api, recipient.pk))


def test_it_limits_messages_between_two_chats_both_ways(api, other_api, sender, recipient, clock):
    do_set_limits({"pair_per_window": 2, "pair_window_minutes": 15})
    sent(send(api, recipient.pk))
    sent(send(other_api, sender.pk))
    assert_refused(lambda: send(api, recipient.pk), 429, "limit_pair_window")
    assert_refused(lambda: send(other_api, sender.pk), 429, "limit_pair_window")
    clock.shift(timedelta(minutes=16))
    sent(send(api, recipient.pk))


def test_it_limits_a_pair_without_the_person(api, other_api, sender, recipient):
    do_set_limits({"pair_without_you": 2})
    sent(send(api, recipient.pk))
    sent(send(other_api, sender.pk))
    body = assert_refused(lambda: send(api, recipient.pk), 429, "limit_pair_without_you")
    assert "tell the person" in body["message"]


def test_it_a_persons_message_gives_both_chats_a_fresh_pair(
    api, other_api, owner_api, sender, recipient
):
    do_set_limits({"pair_without_you": 1})
    sent(send(api, recipient.pk))
    assert_refused(lambda: send(other_api, sender.pk), 429, "limit_pair_without_you")
    person = {"to_chat": recipient.pk, "text": "Carry on, you two."}
    assert owner_api.call("POST", "/api/v1/messages", person).status_code == 201
    sent(send(other_api, sender.pk))
    assert_refused(lambda: send(api, recipient.pk), 429, "limit_pair_without_you")


def test_it_a_persons_prompt_gives_the_chat_fresh_pairs(api, sender, recipient, clock):
    do_set_limits({"pair_without_you": 1})
    sent(send(api, recipient.pk))
    assert_refused(lambda: send(api, recipient.pk), 429, "limit_pair_without_you")
    clock.shift(timedelta(seconds=1))
    check_prompt(sender, text="Ask payments-api once more.")
    clock.shift(timedelta(seconds=1))
    sent(send(api, recipient.pk))


def test_it_limits_wakes_across_the_account(api, recipient, third_chat, clock):
    do_set_limits({"wakes_per_hour": 1})
    assert sent(send(api, recipient.pk))["detail"] == "waking"
    assert_refused(lambda: send(api, third_chat.pk), 429, "limit_wakes")
    # A chat already woken takes more messages without another wake.
    assert sent(send(api, recipient.pk))["detail"] == "waking"
    clock.shift(timedelta(minutes=61))
    assert sent(send(api, third_chat.pk))["detail"] == "waking"


def test_it_limits_a_chain_without_the_person(api, other_api, sender, recipient):
    do_set_limits({"chain_without_you": 2})
    first = sent(send(api, recipient.pk))
    second = sent(send(other_api, sender.pk, "8080", reply_to=first["id"]))
    assert second["chain"] == first["chain"] and second["hop"] == 2
    assert_refused(
        lambda: send(api, recipient.pk, "thanks", reply_to=second["id"]), 429, "limit_chain"
    )
    # A new line, outside any chain, is still fine.
    assert sent(send(api, recipient.pk, "another thing"))["chain"] != first["chain"]


def test_it_limits_list_and_read_calls(api, recipient, clock):
    do_set_limits({"list_read_per_hour": 2})
    assert api.call("GET", "/api/v1/agent/chats").status_code == 200
    assert api.call("GET", f"/api/v1/agent/chats/{recipient.pk}").status_code == 200
    assert_refused(lambda: api.call("GET", "/api/v1/agent/chats"), 429, "limit_list_read")
    assert_refused(
        lambda: api.call("GET", f"/api/v1/agent/chats/{recipient.pk}"), 429, "limit_list_read"
    )
    clock.shift(timedelta(minutes=61))
    assert api.call("GET", "/api/v1/agent/chats").status_code == 200


# The person's refusals ------------------------------------------------------------


def test_it_refuses_cancelling_no_message(owner_api):
    assert_refused(
        lambda: owner_api.call("POST", "/api/v1/messages/msg_nope/cancel"), 404, "no_message"
    )


def test_it_refuses_cancelling_a_message_that_arrived(api, recipient, owner_api):
    message = sent(send(api, recipient.pk))
    seen = ApiClient(recipient.agent_key).call(
        "POST", "/api/v1/agent/inbox/seen", {"ids": [message["id"]]}
    )
    assert seen.json()["items"][0]["state"] == "delivered"
    path = f"/api/v1/messages/{message['id']}/cancel"
    assert_refused(lambda: owner_api.call("POST", path), 409, "already_delivered")
    assert Activity.objects.get(detail="already_delivered").message_id == message["id"]


def test_it_refuses_the_persons_message_from_a_missing_chat(owner_api, recipient):
    body = {"from_chat": "chat_nope", "to_chat": recipient.pk, "text": "hi"}
    assert_refused(lambda: owner_api.call("POST", "/api/v1/messages", body), 404, "no_chat")


def test_it_refuses_the_persons_blank_message(owner_api, recipient):
    body = {"to_chat": recipient.pk, "text": "  "}
    assert_refused(lambda: owner_api.call("POST", "/api/v1/messages", body), 400, "empty_message")


@pytest.mark.parametrize(
    ("chats", "code", "status"),
    [(["one"], "invalid_input", 400), (["chat_a", "chat_b"], "no_chat", 404)],
)
def test_it_refuses_connecting_anything_but_two_of_your_chats(owner_api, chats, code, status):
    body = {"chats": chats, "brief": "Agree on the cart API."}
    assert_refused(lambda: owner_api.call("POST", "/api/v1/connections", body), status, code)
