"""Search over everything said (GET /api/v1/search, MCP search): prompts, answers and peer
messages, stemmed, the words found marked and everything else escaped, narrowed by chat,
kind and days, never another account's; on both backends (run it with DATABASE_URL set)."""

from datetime import timedelta
from urllib.parse import quote

import pytest
from django.utils import timezone

from chats import actions as chat_actions
from chats.models import Entry
from peers import actions
from tests.conftest import ApiClient, make_chat
from tests.peers.test_mcp_tools import answered, api_token, mcp, refusal_of


@pytest.fixture
def said(sender, recipient, owner) -> dict[str, Entry]:
    """One of each kind: a prompt, an answer, a peer message between two chats."""
    chat_actions.do_add_entry(sender, kind=Entry.Kind.PROMPT, text="Which **ports** are open?")
    chat_actions.do_add_entry(
        sender, kind=Entry.Kind.ANSWER, text="The service listens on port 8080 <script>x</script>"
    )
    actions.check_send_message(sender, to=recipient.pk, text="Is the port still 8080?")
    chat_actions.do_add_entry(sender, kind=Entry.Kind.NOTICE, text="port notice, not said")
    return {e.kind: e for e in Entry.objects.filter(chat__user=owner)}


def search(client, query: str, **filters):
    params = "&".join(f"{k}={quote(str(v))}" for k, v in {"q": query, **filters}.items())
    return client.call("GET", f"/api/v1/search?{params}")


def kinds(body: dict) -> list[str]:
    return [item["kind"] for item in body["items"]]


def test_it_finds_prompts_answers_and_messages_stemmed_newest_first(owner_api, said, sender):
    body = search(owner_api, "ports").json()
    assert kinds(body) == ["message", "answer", "prompt"]  # notices are not said
    assert body["count"] == 3 and body["more"] is False
    # A message between two chats is found once, on its sender's side.
    assert body["items"][0]["chat"] == sender.pk and body["items"][0]["message"]
    assert body["items"][0]["chat_name"] == sender.name
    assert kinds(search(owner_api, "listening").json()) == ["answer"]  # listens ~ listening
    assert search(owner_api, "port 9090").json()["count"] == 0  # every word must be there


def test_it_marks_the_words_and_escapes_everything_else(owner_api, said):
    items = {item["kind"]: item for item in search(owner_api, "port").json()["items"]}
    answer = items["answer"]
    assert "<mark>port</mark>" in answer["html"]
    assert "<script>" not in answer["html"] and "&lt;script&gt;" in answer["html"]
    assert answer["text"] == "The service listens on port 8080 <script>x</script>"
    # Rendered as Markdown like the chat: **ports** is strong, the word marked inside it.
    assert "<strong><mark>ports</mark></strong>" in items["prompt"]["html"]


def test_it_narrows_by_chat_kind_and_days(owner_api, said, sender, recipient):
    assert kinds(search(owner_api, "port", kind="prompt").json()) == ["prompt"]
    assert kinds(search(owner_api, "port", kind="message").json()) == ["message"]
    # In the recipient's chat the message is found on its side.
    theirs = search(owner_api, "port", chat=recipient.pk).json()
    assert kinds(theirs) == ["message"] and theirs["items"][0]["chat"] == recipient.pk
    today = timezone.now().date()
    assert search(owner_api, "port", since=str(today)).json()["count"] == 3
    assert search(owner_api, "port", until=str(today - timedelta(days=1))).json()["count"] == 0
    Entry.objects.filter(kind=Entry.Kind.PROMPT).update(
        created_at=timezone.now() - timedelta(days=3)
    )
    older = search(owner_api, "port", until=str(today - timedelta(days=2))).json()
    assert kinds(older) == ["prompt"]


def test_it_never_finds_another_accounts_words(owner_api, outsider_api, said, sender, outsider):
    theirs = make_chat(outsider, "theirs")
    chat_actions.do_add_entry(theirs, kind=Entry.Kind.PROMPT, text="port of theirs")
    assert search(outsider_api, "port").json()["count"] == 1
    assert search(owner_api, "theirs").json()["count"] == 0
    refused = search(outsider_api, "port", chat=sender.pk)
    unknown = search(outsider_api, "port", chat="c" * 20)
    assert refused.status_code == unknown.status_code == 404
    assert refused.json() == unknown.json() and refused.json()["code"] == "no_chat"


def test_it_refuses_bad_input_with_a_code(owner_api, said, chat):
    cases = [
        "/api/v1/search?q=port%00",
        "/api/v1/search?q=" + "a" * 10_000,
        "/api/v1/search?q=%2B%2B%2B",  # no word in it
        "/api/v1/search",
        "/api/v1/search?q=port&kind=tool",
        "/api/v1/search?q=port&since=2026-02-30",
        "/api/v1/search?q=port&until=-1",
        "/api/v1/search?q=port&chat=-x",
    ]
    for path in cases:
        response = owner_api.call("GET", path)
        assert response.status_code in (400, 404), path
        assert response.json()["code"] in ("invalid_input", "no_chat"), path
    assert owner_api.call("GET", "/api/v1/search?q=port").status_code == 200


def test_it_query_syntax_is_only_words(owner_api, said):
    for hostile in ['"', "port OR cart", "port*", "NEAR(port x)", "owner : u1", "-port", "'; --"]:
        response = search(owner_api, hostile)
        assert response.status_code in (200, 400), hostile
    assert search(owner_api, "owner u1").json()["count"] == 0
    assert search(owner_api, "-port").json()["count"] == 3  # a word, not a negation


def test_it_follows_edits_and_deletes(owner_api, said):
    answer = said[Entry.Kind.ANSWER]
    Entry.objects.filter(pk=answer.pk).update(text="now about invoices")
    assert kinds(search(owner_api, "invoice").json()) == ["answer"]
    assert "answer" not in kinds(search(owner_api, "listens").json())
    Entry.objects.filter(pk=answer.pk).delete()
    assert search(owner_api, "invoice").json()["count"] == 0


def test_it_counts_to_a_cap(owner_api, sender):
    Entry.objects.bulk_create(
        Entry(chat=sender, kind=Entry.Kind.PROMPT, text=f"deploy number {i}") for i in range(105)
    )
    body = search(owner_api, "deploys", limit=5, offset=100).json()
    assert body["count"] == 100 and body["more"] is True and len(body["items"]) == 5


def test_it_mcp_search_answers_as_rest_does(owner, owner_api, said, recipient, outsider):
    person = api_token(owner)
    rest = search(owner_api, "port", kind="message").json()
    tool = answered(mcp(person, "search", {"query": "port", "kind": "message"}))
    assert tool == rest and rest["count"] == 1
    result = mcp(person, "search", {"query": "ports"})
    assert "3 of 3 found" in result.content[0].text
    for bad in ({"query": "port\x00"}, {"query": "x" * 10_000}, {"query": "port", "kind": "x"}):
        assert refusal_of(mcp(person, "search", bad))["code"] == "invalid_input"
    mallory = api_token(outsider)
    assert refusal_of(mcp(mallory, "search", {"query": "port", "chat": recipient.pk})) == (
        refusal_of(mcp(mallory, "search", {"query": "port", "chat": "nope"}))
    )


def test_it_a_chat_key_cannot_search(said, sender):
    agent = ApiClient(sender.agent_key)
    assert agent.call("GET", "/api/v1/search?q=port").status_code == 401
    # An agent has no search tool: it is no tool of its list.
    assert refusal_of(mcp(sender.agent_key, "search", {"query": "port"}))["code"] == "not_found"


def test_it_the_search_page_marks_escapes_and_hides_other_accounts(client, owner, said, outsider):
    client.force_login(owner)
    page = client.get("/search/?q=ports").content.decode()
    assert "3 found" in page and "<mark>port</mark>" in page
    assert "<strong><mark>ports</mark></strong>" in page
    assert "<script>x" not in page and "&lt;script&gt;x" in page
    assert 'aria-current="page">Search' in page
    assert "has those words" in client.get("/search/?q=invoices").content.decode()
    bad = client.get("/search/?q=port&since=someday").content.decode()
    assert "must be a day" in bad
    client.force_login(outsider)
    theirs = client.get(f"/search/?q=port&chat={said['prompt'].chat_id}")
    assert theirs.status_code == 404
    assert "0 found" in client.get("/search/?q=port").content.decode()


def test_it_the_search_page_pages_to_the_cap(client, owner, sender):
    Entry.objects.bulk_create(
        Entry(chat=sender, kind=Entry.Kind.PROMPT, text=f"deploy number {i}") for i in range(130)
    )
    client.force_login(owner)
    first = client.get("/search/?q=deploy").content.decode()
    assert "100+ found" in first and "page=2" in first
    last = client.get("/search/?q=deploy&page=99").content.decode()
    assert "Page 6" in last and "Older →" not in last and "number 10</p>" in last


def test_a_page_past_what_one_search_reads_is_empty_not_a_full_scan(owner_api):
    deep = owner_api.call("GET", "/api/v1/search?q=port&offset=2147483000")
    assert deep.status_code == 200 and deep.json()["items"] == []
