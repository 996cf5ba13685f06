"""A wake or send-on of a command or hosted chat whose owner lost `agents.run_hosted`
fails the turn with that reason instead of running anything; its messages wait."""

import sys

import pytest
from asgiref.sync import sync_to_async

from agents.runner import TurnRunner
from chats.models import Chat, Turn
from peers.actions import check_send_message
from peers.models import PeerMessage
from tests.agents.conftest import fresh, prompt, run_all
from tests.chats.test_run_hosted import revoke_after
from tests.conftest import make_chat, own_folder
from tests.peers.conftest import reachable

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def woken_after_revoke(owner, sender, folder) -> PeerMessage:
    command = f"{sys.executable} -c \"open('ran', 'w')\""
    chat = make_chat(
        owner, "shell", agent="command", command=command, folder=str(folder), peers=True
    )
    revoke_after(chat)
    reachable(chat, sender)
    return check_send_message(sender, to=chat.pk, text="wake up")


async def test_it_a_wake_runs_nothing_once_the_owner_lost_the_permission(owner, chat):
    folder = await sync_to_async(own_folder)(owner)
    message = await woken_after_revoke(owner, chat, folder)

    await run_all()

    shell = await fresh(message.to_chat)
    assert shell.status == Chat.Status.FAILED
    assert "may not run agents on this server" in shell.failure
    assert "allow_runners" in shell.failure
    assert not (folder / "ran").exists()
    message = await sync_to_async(PeerMessage.objects.get)(pk=message.pk)
    assert (message.state, message.reason) == ("queued", "held_until_you_write")


async def test_it_a_turn_runs_nothing_once_its_folder_leads_to_another_accounts(
    owner, agent_folders
):
    command = f"{sys.executable} -c \"open('ran', 'w')\""
    link, theirs = own_folder(owner, "repo"), agent_folders / "mallory" / "repo"
    theirs.mkdir(parents=True)
    chat = await sync_to_async(make_chat)(
        owner, "shell", agent="command", command=command, folder=str(link)
    )
    link.rmdir()
    link.symlink_to(theirs)  # swapped for a link to another account's after the chat was made
    await prompt(chat, "go")

    await run_all()

    chat = await fresh(chat)
    assert chat.status == Chat.Status.FAILED
    assert chat.failure == (
        f"{link} leads to {theirs}, which is in another account's folders; "
        f"your working folders go inside {agent_folders / 'alice'}/."
    )
    assert not (theirs / "ran").exists()


@sync_to_async
def woken_in_folder(owner, sender, folder: str) -> PeerMessage:
    """A chat made before folders belonged to one account: its row names `folder`."""
    chat = make_chat(owner, "shell", agent="command", command="cat", peers=True)
    Chat.objects.filter(pk=chat.pk).update(folder=folder)
    reachable(chat, sender)
    return check_send_message(sender, to=chat.pk, text="wake up")


async def test_it_an_older_chat_whose_folder_breaks_the_rule_fails_its_next_turn(
    owner, chat, agent_folders
):
    message = await woken_in_folder(owner, chat, "/")

    await run_all()

    shell = await fresh(message.to_chat)
    assert shell.status == Chat.Status.FAILED
    mine = agent_folders / "alice"
    assert shell.failure == f"/ is the root folder; your working folders go inside {mine}/."
    message = await sync_to_async(PeerMessage.objects.get)(pk=message.pk)
    assert (message.state, message.reason) == ("queued", "held_until_you_write")


async def test_it_a_turn_runs_in_its_folder_as_resolved_at_the_check(owner, chat):
    real, link = own_folder(owner, "real"), own_folder(owner, "elsewhere").parent / "link"
    link.symlink_to(real)  # a link inside the person's own folder, to another of theirs
    message = await woken_in_folder(owner, chat, str(link))
    turn = await sync_to_async(message.to_chat.turns.get)()
    turn = await sync_to_async(Turn.objects.select_related("chat__user").get)(pk=turn.pk)

    ctx = await TurnRunner("tests").prepare(turn)

    assert (ctx.chat.folder, ctx.folder) == (str(link), str(real))
