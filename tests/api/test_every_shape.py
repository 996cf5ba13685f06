"""Every output model matches every row: the account holds every kind of message and
chat the product can hold — to the person, from the person, the person as a chat,
agent to agent, to and from a chat started outside, held, cancelled, not delivered,
awaiting approval, denied (with the sender's notices),
pending, answered, an answer refused by a limit, connect's briefs — and every list
and detail route (REST person and agent routes, activity, pages) and every reading
MCP tool answers it, each answer valid against the OpenAPI document's schema."""

import jsonschema
import pytest

from accounts.actions import do_create_api_token
from peers import actions
from peers.models import PeerMessage
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable, running
from tests.peers.test_answers_and_chains import finish, woken_turn
from tests.peers.test_mcp_tools import answered, mcp

State = PeerMessage.State


def every_kind(owner) -> dict[str, object]:
    """One account holding each kind; the chats by role."""
    a = make_chat(owner, "asker", peers=True)
    b = make_chat(owner, "answerer", peers=True)
    outside = make_chat(owner, "from-github", origin="github", peers=True)
    stopped = make_chat(owner, "stopped", peers=True)
    poller = make_chat(owner, "poller", agent="command", command="cat", peers=True)
    busy = make_chat(owner, "busy", peers=True)
    careful = make_chat(owner, "careful", peers=True, inbound="ask")
    make_chat(owner, "quiet", peers=False)
    reachable(a, b, outside, stopped, poller, busy, careful)
    person = owner

    # To and from the person, answered (the answer has to_chat null).
    actions.check_send_as_person(person, from_chat=None, to=b.pk, text="status?")
    finish(woken_turn(b), "All green.")
    # The person as a chat, answered to that chat.
    actions.check_send_as_person(person, from_chat=a.pk, to=b.pk, text="as asker")
    finish(woken_turn(b), "hello asker")
    finish(woken_turn(a), "noted")  # woken by an answer: never answers back
    # Agent to agent, answered; then the same pair over the window: refused answer.
    actions.check_send_message(a, to=b.pk, text="which port?")
    finish(woken_turn(b), "8080")
    finish(woken_turn(a), "")
    # To an outside chat: its answer to a chat is refused, to the person it goes.
    actions.check_send_message(a, to=outside.pk, text="ci status?")
    actions.check_send_as_person(person, from_chat=None, to=outside.pk, text="and for me?")
    finish(woken_turn(outside), "green")
    # Held, then cancelled; held and kept.
    actions.check_stop_chat(stopped)
    held = actions.check_send_message(a, to=stopped.pk, text="held one")
    actions.check_cancel_message(person, message_id=held.pk)
    actions.check_send_message(b, to=stopped.pk, text="held two")
    # Not delivered: the poller's agent could not start.
    actions.check_send_message(a, to=poller.pk, text="for the poller")
    actions.fail_delivery(woken_turn(poller), "could not start")
    # Pending on a running chat, and a waiting send.
    running(busy)
    actions.check_send_message(a, to=busy.pk, text="pending", wait_seconds=30)
    # To a chat that asks first: one awaiting approval, one denied (its sender told).
    actions.check_send_message(a, to=careful.pk, text="may I?")
    denied = actions.check_send_message(b, to=careful.pk, text="and I?")
    actions.check_deny_message(person, message_id=denied.pk)
    # Connect: two briefs from the person.
    actions.check_connect_chats(person, chat_ids=[a.pk, b.pk], brief="work it out")
    # The answer refused by a limit.
    actions.do_set_limits({"pair_per_window": 1})
    actions.check_send_message(b, to=poller.pk, text="q")  # poller: no turn to answer it
    chats = [a, b, outside, stopped, poller, busy, careful]
    return {"chats": chats, "agents": [a, b, busy]}


@pytest.fixture
def account(owner):
    return every_kind(owner)


@pytest.fixture
def schemas(client):
    document = client.get("/api/v1/openapi.json").json()

    def schema(path: str) -> dict:
        found = document["paths"][path]["get"]["responses"]["200"]["content"]
        return {**found["application/json"]["schema"], "components": document["components"]}

    return schema


def valid(body, schema: dict) -> None:
    jsonschema.Draft202012Validator(schema).validate(body)


def test_it_the_account_holds_every_kind(account):
    states = set(PeerMessage.objects.values_list("state", flat=True))
    assert states == {State.DELIVERED, State.QUEUED, State.PENDING, State.CANCELLED} | {
        State.NOT_DELIVERED
    }
    assert PeerMessage.objects.filter(to_chat=None).exists()
    assert PeerMessage.objects.filter(from_chat=None).exists()
    assert PeerMessage.objects.filter(sent_by="person", from_chat__isnull=False).exists()
    assert PeerMessage.objects.filter(from_chat__origin="github").exists()
    assert PeerMessage.objects.filter(to_chat__origin="github").exists()
    assert PeerMessage.objects.exclude(answer_refused="").exists()
    assert PeerMessage.objects.filter(answer__isnull=False).count() >= 3


def person_routes(chats) -> list[tuple[str, str]]:
    routes = [
        ("/api/v1/messages", "/api/v1/messages"),
        ("/api/v1/activity", "/api/v1/activity"),
        ("/api/v1/chats", "/api/v1/chats"),
    ]
    for chat in chats:
        routes += [
            (f"/api/v1/messages?chat={chat.pk}", "/api/v1/messages"),
            (f"/api/v1/activity?chat={chat.pk}", "/api/v1/activity"),
            (f"/api/v1/chats/{chat.pk}", "/api/v1/chats/{chat_id}"),
            (f"/api/v1/chats/{chat.pk}/reach", "/api/v1/chats/{chat_id}/reach"),
        ]
    for message_id in PeerMessage.objects.values_list("pk", flat=True):
        routes.append((f"/api/v1/messages/{message_id}", "/api/v1/messages/{message_id}"))
    return routes


def test_it_every_person_route_reads_every_row(account, owner_api, schemas):
    for url, template in person_routes(account["chats"]):
        response = owner_api.get(url)
        assert response.status_code == 200, (url, response.content[:300])
        valid(response.json(), schemas(template))


def test_it_every_agent_route_reads_every_row(account, schemas):
    for chat in account["agents"]:
        api = ApiClient(chat.agent_key)
        routes = [("/api/v1/agent/chats", "/api/v1/agent/chats")]
        routes += [("/api/v1/agent/inbox", "/api/v1/agent/inbox")]
        routes += [
            (f"/api/v1/agent/chats/{other.pk}?limit=100", "/api/v1/agent/chats/{chat_id}")
            for other in account["chats"]
            if other.pk != chat.pk
        ]
        for url, template in routes:
            response = api.get(url)
            assert response.status_code == 200, (chat.name, url, response.content[:300])
            valid(response.json(), schemas(template))


def test_it_every_mcp_tool_reads_every_row(account, owner, schemas):
    secret = do_create_api_token(owner, name="mcp")[1]
    calls = [("read_peers", {}, "/api/v1/messages"), ("list_peer_chats", {}, "/api/v1/chats")]
    for chat in account["chats"]:
        calls += [
            ("read_peers", {"chat": chat.pk, "limit": 100}, "/api/v1/messages"),
            ("list_peer_chats", {"chat": chat.pk}, "/api/v1/chats/{chat_id}/reach"),
        ]
    for name, arguments, template in calls:
        valid(answered(mcp(secret, name, arguments)), schemas(template))
    for chat in account["agents"]:
        listed = answered(mcp(chat.agent_key, "ListChats"))
        valid(rest_body(listed), schemas("/api/v1/agent/chats"))
        for other in account["chats"]:
            if other.pk != chat.pk:
                body = answered(mcp(chat.agent_key, "ReadChat", {"chat": other.pk, "limit": 100}))
                valid(rest_body(body), schemas("/api/v1/agent/chats/{chat_id}"))


def rest_body(body: dict) -> dict:
    """The REST twin's body: without the messages an agent tool's answer carries
    (peers.mcp.carried, docs/mcp.md), which REST does not."""
    extra = {"peer_messages", "peer_message_ids", "peer_messages_left"}
    extra |= {"crosstalk_notices", "crosstalk_notices_ids"}
    return {key: value for key, value in body.items() if key not in extra}


def test_it_every_page_shows_every_row(account, owner_client):
    urls = ["/chats/", "/activity/", "/activity/rows/"]
    for chat in account["chats"]:
        urls += [f"/chats/{chat.pk}/", f"/chats/{chat.pk}/peers/", f"/chats/{chat.pk}/header/"]
        urls += [f"/chats/{chat.pk}/conversation/", f"/activity/?chat={chat.pk}"]
    for url in urls:
        assert owner_client.get(url, HTTP_HX_REQUEST="true").status_code == 200, url
