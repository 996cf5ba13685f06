"""The property behind test_every_shape.py, with Hypothesis choosing the history: any
sequence of sends (the person, the person as a chat, agents, to and from a chat
started outside), stops, cancels, turns that answer, fail or stay silent, and limits
that refuse answers leaves an account whose every message and activity row reads
back through the person's routes and MCP's read_peers as the OpenAPI schema says."""

import contextlib
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.actions import do_create_api_token
from accounts.models import User
from chats import actions as chat_actions
from chats.models import Turn
from kernel.refusals import Refusal
from peers import actions
from peers.models import PeerMessage
from tests.api.test_every_shape import valid
from tests.conftest import ApiClient, make_chat
from tests.peers.conftest import reachable
from tests.peers.test_mcp_tools import answered, mcp

CHATS = 4  # the last one was started from outside
NUMBERS = itertools.count()
chat_index = st.integers(0, CHATS - 1)
steps = st.one_of(
    st.tuples(st.just("person"), chat_index),
    st.tuples(st.just("as"), chat_index, chat_index),
    st.tuples(st.just("agent"), chat_index, chat_index),
    st.tuples(st.just("turn"), st.sampled_from(["answer", "silent", "fail"])),
    st.tuples(st.just("stop"), chat_index),
    st.tuples(st.just("cancel"), st.integers(0, 20)),
    st.tuples(st.just("limit"), st.integers(1, 3)),
)


def account():
    user = User.objects.create_user(f"p{next(NUMBERS)}", password="pw-12345678")
    chats = [make_chat(user, f"c{i}", peers=True) for i in range(CHATS - 1)]
    chats.append(make_chat(user, "outside", origin="slack", peers=True))
    reachable(*chats)
    return user, chats


def run_a_turn(how: str) -> None:
    turn = chat_actions.claim_next_turn("tests")
    if turn is None:
        return
    actions.take_for_turn(turn)
    if how == "fail":
        actions.fail_delivery(turn, "could not start")
        chat_actions.do_mark_turn_failed(turn, error="could not start")
        return
    chat_actions.do_mark_turn_done(turn, final_text="the answer" if how == "answer" else "")
    turn.refresh_from_db()
    actions.answer_from_final_text(turn)


def apply(user, chats, step) -> None:
    kind, *args = step
    match kind:
        case "person":
            actions.check_send_as_person(user, from_chat=None, to=chats[args[0]].pk, text="q")
        case "as":
            frm, to = chats[args[0]], chats[args[1]]
            actions.check_send_as_person(user, from_chat=frm.pk, to=to.pk, text="q")
        case "agent":
            frm, to = chats[args[0]], chats[args[1]]
            frm.refresh_from_db()
            actions.check_send_message(frm, to=to.pk, text="q", wait_seconds=0)
        case "turn":
            run_a_turn(args[0])
        case "stop":
            actions.check_stop_chat(chats[args[0]])
        case "cancel":
            ids = list(PeerMessage.objects.filter(user=user).values_list("pk", flat=True))
            if ids:
                actions.check_cancel_message(user, message_id=ids[args[0] % len(ids)])
        case "limit":
            actions.do_set_limits({"pair_per_window": args[0], "wakes_per_hour": args[0] + 2})


@pytest.mark.django_db
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=st.lists(steps, min_size=3, max_size=14))
def test_it_any_history_reads_back_through_every_route(client, history):
    document = client.get("/api/v1/openapi.json").json()

    def schema(path: str) -> dict:
        found = document["paths"][path]["get"]["responses"]["200"]["content"]
        return {**found["application/json"]["schema"], "components": document["components"]}

    user, chats = account()
    for step in history:
        with contextlib.suppress(Refusal):  # refused sends and cancels are history too
            apply(user, chats, step)
    Turn.objects.filter(state__in=[Turn.State.REQUESTED, Turn.State.RUNNING]).update(
        state=Turn.State.CANCELLED
    )
    secret = do_create_api_token(user, name="shape")[1]
    api = ApiClient(secret)
    reads = [("/api/v1/messages?limit=100", "/api/v1/messages")]
    reads += [("/api/v1/activity?limit=100", "/api/v1/activity")]
    reads += [(f"/api/v1/messages?chat={c.pk}&limit=100", "/api/v1/messages") for c in chats]
    reads += [
        (f"/api/v1/messages/{pk}", "/api/v1/messages/{message_id}")
        for pk in PeerMessage.objects.filter(user=user).values_list("pk", flat=True)
    ]
    for url, template in reads:
        response = api.get(url)
        assert response.status_code == 200, (history, url, response.content[:300])
        valid(response.json(), schema(template))
    body = answered(mcp(secret, "read_peers", {"limit": 100}))
    valid(body, schema("/api/v1/messages"))
