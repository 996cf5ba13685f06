"""A turn's end has one home (agents.turns): the runner's failure, a lease that ran out
and a restart fail a turn alike (peers holds its chat's messages, origins answers the
outside that it failed), and a restart ends background work as its own end would."""

import sys
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async

from agents import turns
from agents.recovery import reclaim_expired_turns, recover_interrupted_turns
from agents.runner import TurnRunner
from chats.actions import claim_next_turn
from chats.models import Turn
from origins.actions import FAILED_TURN
from origins.models import OriginReply
from peers import actions as peer_actions
from tests.origins.conftest import make_origin
from tests.origins.test_answers import ask
from tests.peers.conftest import running

pytestmark = pytest.mark.django_db(transaction=True)
FAILS = 'import sys\nsys.stdin.read()\nsys.exit("it broke")\n'


def origin_turn_with_a_message(owner, workdir):
    """An origin's request running in a chat whose command fails, and a message from
    the person waiting behind it."""
    (workdir / "agent.py").write_text(FAILS)
    command = f"{sys.executable} agent.py"
    origin = make_origin(owner, agent="command", command=command, folder=str(workdir))
    chat = ask(origin, "hello")
    peer_actions.do_set_peers(chat, enabled=True)
    turn = claim_next_turn("a worker")
    assert (turn.chat_id, turn.trigger) == (chat.pk, Turn.Trigger.OUTSIDE)
    message = peer_actions.check_send_as_person(
        owner, from_chat=None, to=chat.pk, text="ping", reply_to=None
    )
    assert (message.state, message.reason) == ("queued", "behind_turn")
    return turn, message


async def fail_by(how: str, turn: Turn) -> None:
    if how == "runner":
        await TurnRunner("tests").run_turn(turn)
    elif how == "lease":
        later = turn.lease_until + timedelta(seconds=1)
        assert await sync_to_async(reclaim_expired_turns)(later) == 1
    else:
        assert await sync_to_async(recover_interrupted_turns)() == 1


@pytest.mark.parametrize("how", ["runner", "lease", "restart"])
async def test_it_fails_a_turn_alike_whoever_fails_it(runner_owner, workdir, how):
    turn, message = await sync_to_async(origin_turn_with_a_message)(runner_owner, workdir)

    await fail_by(how, turn)

    turn = await Turn.objects.select_related("chat").aget(pk=turn.pk)
    await message.arefresh_from_db()
    assert (turn.state, turn.chat.status) == ("failed", "failed")
    assert (message.state, message.reason) == ("queued", "held_until_you_write")
    replies = OriginReply.objects.filter(thread__chat=turn.chat)
    assert [reply.text async for reply in replies] == [FAILED_TURN]


def test_it_sends_on_what_waited_with_background_work_a_restart_ended(chat, owner):
    assert turns.finish(running(chat, "background 5"), final_text="started", background=True)
    message = peer_actions.check_send_as_person(
        owner, from_chat=None, to=chat.pk, text="ping", reply_to=None
    )
    assert (message.state, message.reason) == ("queued", "with_background_work")

    assert recover_interrupted_turns() == 0

    chat.refresh_from_db()
    message.refresh_from_db()
    assert chat.status == "idle"
    assert chat.turns.get(state=Turn.State.REQUESTED).trigger == Turn.Trigger.SEND_ON
    assert (message.state, message.reason) == ("queued", "behind_turn")
