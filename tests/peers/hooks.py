"""Shared helpers of the hooks tests: captured payloads, posting them, a CLI chat."""

import json
from pathlib import Path

from django.utils import timezone

from chats.models import Chat
from peers import actions
from peers.serializers import message_json
from tests.conftest import ApiClient, make_chat, own_folder

SAMPLES = Path(__file__).parent / "hook_samples"
FILES = {
    "claude-code": "claude-hook-payloads-turn1.jsonl",
    "codex": "codex-hook-payloads.jsonl",
    "gemini": "gemini-hook-payloads.jsonl",
}


def sample(cli: str, event: str, index: int = 0, **changes) -> dict:
    """The `index`-th captured payload of that event, as the real CLI sent it."""
    lines = (SAMPLES / FILES[cli]).read_text().splitlines()
    payloads = [json.loads(line)["stdin"] for line in lines]
    found = [p for p in payloads if p["hook_event_name"] == event]
    return {**found[index], **changes}


def cli_chat(owner, cli: str, name: str | None = None, *, hosted: bool = False) -> Chat:
    """An attached chat (no folder: the person runs the session), or a hosted one."""
    folder = str(own_folder(owner)) if hosted else ""
    chat = make_chat(owner, name or f"{cli}-chat", agent=cli, peers=True, folder=folder)
    Chat.objects.filter(pk=chat.pk).update(last_ran_at=timezone.now())
    chat.refresh_from_db()
    return chat


def hook(chat_or_key, cli: str, payload, *, slash: bool = False):
    key = chat_or_key if isinstance(chat_or_key, str) else chat_or_key.agent_key
    url = f"/api/v1/agent/hooks/{cli}" + ("/" if slash else "")
    body = payload if isinstance(payload, str) else json.dumps(payload)
    return ApiClient(key).generic("POST", url, body, content_type="application/json")


def send(sender: Chat, to: Chat, text: str = "which port does the API listen on?"):
    return actions.check_send_message(sender, to=to.pk, text=text)


def path_of(message) -> str | None:
    message.refresh_from_db()
    body = message_json(message)
    return body.get("path", body["detail"])
