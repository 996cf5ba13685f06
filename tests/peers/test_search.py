"""Full-text search over the account's messages: REST ?q=, MCP read_peers' query and the
Messages page, best match first, combined with chat and state; on both backends (the
CI's second stage runs this file on PostgreSQL)."""

from urllib.parse import quote

import pytest

from peers import actions
from peers.models import PeerMessage
from tests.peers.test_mcp_tools import answered, api_token, mcp, refusal_of


@pytest.fixture
def texts(sender, recipient) -> dict[str, PeerMessage]:
    said = {
        "port": "Which port does the payment service listen on?",
        "ports": "port port port: the payment port is 8080, the admin port 9090",
        "cart": "The cart page needs the currency field.",
        "nul": "checkout renamed amount to total",
    }
    return {
        key: actions.check_send_message(sender, to=recipient.pk, text=text)
        for key, text in said.items()
    }


def ids(body: dict) -> list[str]:
    return [item["id"] for item in body["items"]]


def test_it_finds_messages_by_their_words_best_first(owner_api, texts):
    body = owner_api.call("GET", "/api/v1/messages?q=payment+port").json()
    assert body["count"] == 2
    assert ids(body) == [texts["ports"].pk, texts["port"].pk]  # the one that says it most
    # The last word may be the start of one; every word must be there.
    assert ids(owner_api.call("GET", "/api/v1/messages?q=curr").json()) == [texts["cart"].pk]
    assert owner_api.call("GET", "/api/v1/messages?q=cart+8080").json()["count"] == 0


def test_it_search_combines_with_chat_and_state(owner_api, texts, sender, recipient, owner):
    actions.check_cancel_message(owner, message_id=texts["port"].pk)
    path = f"/api/v1/messages?q=port&chat={recipient.pk}&state=cancelled"
    assert ids(owner_api.call("GET", path).json()) == [texts["port"].pk]
    queued = owner_api.call("GET", "/api/v1/messages?q=port&state=queued").json()
    assert ids(queued) == [texts["ports"].pk]


def test_it_query_syntax_is_only_words(owner_api, texts):
    for hostile in ['"', "port OR cart", "port*", "NEAR(port cart)", "'; drop table x; --", "-"]:
        response = owner_api.call("GET", f"/api/v1/messages?q={quote(hostile)}")
        assert response.status_code == 200, hostile
    assert owner_api.call("GET", "/api/v1/messages?q=-").json()["count"] == 0


def test_it_bad_filters_are_refused_with_a_code(owner_api, texts):
    bad_state = owner_api.call("GET", "/api/v1/messages?state=lost")
    assert bad_state.status_code == 400 and bad_state.json()["code"] == "invalid_input"
    nul = owner_api.call("GET", "/api/v1/messages?q=port%00")
    assert nul.status_code == 400 and nul.json()["code"] == "invalid_input"
    huge = owner_api.call("GET", "/api/v1/messages?q=" + "a" * 501)
    assert huge.status_code == 400


def test_it_another_accounts_messages_are_never_found(outsider_api, owner_api, texts, sender):
    assert outsider_api.call("GET", "/api/v1/messages?q=port").json()["count"] == 0
    theirs = outsider_api.call("GET", f"/api/v1/messages?q=port&chat={sender.pk}")
    assert theirs.status_code == 404 and theirs.json()["code"] == "no_chat"


def test_it_mcp_read_peers_searches_as_rest_does(owner, owner_api, texts, recipient):
    person = api_token(owner)
    rest = owner_api.call("GET", f"/api/v1/messages?q=port&chat={recipient.pk}").json()
    tool = answered(mcp(person, "read_peers", {"query": "port", "chat": recipient.pk}))
    assert tool == rest and rest["count"] == 2
    assert refusal_of(mcp(person, "read_peers", {"state": "lost"}))["code"] == "invalid_input"


def test_it_an_edited_or_deleted_message_leaves_the_index_in_step(owner_api, texts):
    PeerMessage.objects.filter(pk=texts["cart"].pk).update(text="now about invoices")
    assert owner_api.call("GET", "/api/v1/messages?q=cart").json()["count"] == 0
    assert ids(owner_api.call("GET", "/api/v1/messages?q=invoices").json()) == [texts["cart"].pk]
    PeerMessage.objects.filter(pk=texts["cart"].pk).delete()
    assert owner_api.call("GET", "/api/v1/messages?q=invoices").json()["count"] == 0


def test_it_stems_the_words(owner_api, texts):
    body = owner_api.call("GET", "/api/v1/messages?q=listening+ports").json()
    assert ids(body) == [texts["port"].pk]  # "listen on? … port": listening ~ listen
