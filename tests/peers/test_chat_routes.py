"""One route table for /chats/<id>/…, in any include order, and the pages' counts
computed once per render (no queries in template tags)."""

import types

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import include, path, resolve, reverse

from crosstalk import chat_urls
from peers.actions import check_send_message
from tests.peers.conftest import reachable

HTMX = {"HTTP_HX_REQUEST": "true"}
CHAT_ROUTES = {
    "chat-page": "get",
    "chat-header": "get",
    "chat-conversation": "get",
    "chat-peers": "get",
    "chat-peers-live": "get",
    "peers-connect": "post",
    "peers-send": "post",
    "chat-stop": "post",
    "chat-inbound": "post",
    "attach-panel": "get",
    "chat-rename": "post",
    "chat-archive": "post",
    "chat-delete": "post",
}


def urlconf(*modules: str):
    module = types.ModuleType("test_urls")
    module.urlpatterns = [path("", include(name)) for name in modules]
    return module


def test_it_every_chat_sub_route_is_in_the_one_table():
    names = {route.name for route in chat_urls.chat_routes}
    # attach-revoke takes a key's id too (tests/agents/test_attach_panel.py: 404s).
    assert names == {*CHAT_ROUTES, "peers-cancel", "peers-sent", "peers-decide", "attach-revoke"}


@pytest.mark.parametrize(
    "order", [("chats.urls", "crosstalk.chat_urls"), ("crosstalk.chat_urls", "chats.urls")]
)
def test_it_the_chat_list_rows_are_never_taken_for_a_chat(order):
    conf = urlconf(*order)
    assert resolve("/chats/rows/", urlconf=conf).url_name == "chat-rows"
    assert resolve("/chats/chat_1/", urlconf=conf).url_name == "chat-page"
    assert resolve("/chats/rowsy/", urlconf=conf).kwargs == {"chat_id": "rowsy"}


@pytest.mark.parametrize(("name", "method"), CHAT_ROUTES.items())
def test_it_each_chat_route_answers_404_for_another_accounts_chat(
    name, method, outsider_chat, owner_client
):
    call = getattr(owner_client, method)
    theirs = call(reverse(name, args=[outsider_chat.pk]), {"other": "x", "to": "x"})
    missing = call(reverse(name, args=["chat_0000000000000000"]), {"other": "x", "to": "x"})
    assert theirs.status_code == missing.status_code == 404


def peer_queries(captured) -> list[str]:
    """The pages' own queries of messages; the inbox's count (one query, which counts
    held messages among the rest) is counted apart."""
    sqls = [q["sql"] for q in captured.captured_queries if "peers_peermessage" in q["sql"]]
    return [sql for sql in sqls if "crosstalk_inboxdone" not in sql]


def inbox_queries(captured) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if "crosstalk_inboxdone" in q["sql"]]


def test_it_the_held_count_is_one_query_per_page(owner, owner_client, chat, other_chat):
    with CaptureQueriesContext(connection) as captured:
        html = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    held = [sql for sql in peer_queries(captured) if "held_until_you_write" in sql]
    assert len(held) == 1 and 'data-count="0"' in html
    assert len(inbox_queries(captured)) == 1


def test_it_a_partial_without_the_title_count_does_not_count(owner_client, chat):
    with CaptureQueriesContext(connection) as captured:
        owner_client.get(f"/chats/{chat.pk}/header/")
    assert peer_queries(captured) == []


def test_it_the_chat_list_counts_waiting_messages_in_one_query(owner_client, chat, other_chat):
    reachable(chat, other_chat)
    check_send_message(chat, to=other_chat.pk, text="hello")
    with CaptureQueriesContext(connection) as captured:
        html = owner_client.get("/chats/rows/", **HTMX).content.decode()
    counts = [sql for sql in peer_queries(captured) if "COUNT" in sql.upper()]
    # The waiting counts and, in the title's out-of-band part, the held count.
    assert len(counts) == 2
    assert len(inbox_queries(captured)) == 1  # the top bar's inbox count, out of band
    assert "1 waiting" in html
