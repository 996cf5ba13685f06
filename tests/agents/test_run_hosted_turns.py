"""A wake or send-on of a command or hosted chat whose owner lost `agents.run_hosted`
fails the turn with that reason instead of running anything; its messages wait."""

import sys

import pytest
from asgiref.sync import sync_to_async

from chats.models import Chat
from peers.actions import check_send_message
from peers.models import PeerMessage
from tests.agents.conftest import fresh, prompt, run_all
from tests.chats.test_run_hosted import revoke_after
from tests.conftest import make_chat
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


async def test_a_wake_runs_nothing_once_the_owner_lost_the_permission(owner, chat, tmp_path):
    message = await woken_after_revoke(owner, chat, tmp_path)

    await run_all()

    shell = await fresh(message.to_chat)
    assert shell.status == Chat.Status.FAILED
    assert "may not run agents on this server" in shell.failure
    assert "allow_runners" in shell.failure
    assert not (tmp_path / "ran").exists()
    message = await sync_to_async(PeerMessage.objects.get)(pk=message.pk)
    assert (message.state, message.reason) == ("queued", "held_until_you_write")


async def test_a_turn_runs_nothing_once_its_folder_leads_outside_agent_folders(
    owner, tmp_path, settings
):
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    settings.AGENT_FOLDERS = [inside]
    command = f"{sys.executable} -c \"open('ran', 'w')\""
    link = inside / "repo"
    link.mkdir()
    chat = await sync_to_async(make_chat)(
        owner, "shell", agent="command", command=command, folder=str(link)
    )
    link.rmdir()
    link.symlink_to(outside)  # swapped for a link that leads out after the chat was made
    await prompt(chat, "go")

    await run_all()

    chat = await fresh(chat)
    assert chat.status == Chat.Status.FAILED
    assert "must be inside" in chat.failure
    assert not (outside / "ran").exists()
