"""The attach panel on the chat page: "Connect your own session".

GET shows each CLI's commands with the key left out (nothing holding a key can be
copied before one exists), one tab per CLI; POST ("Show a new key") makes a key for
the chosen CLI's attachment, turns the chat's switch on when it was off, and shows
the config with it, this once (keys are stored as digests). Each attachment has its
own key, listed with its CLI, folder and when it was last seen, and revocable, so
attaching another CLI never breaks the first. Chats of other agent kinds have no
panel (404)."""

from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View
from django.views.decorators.http import require_POST

from agents.attach import CLIS, attach_config
from agents.attach.actions import can_attach, check_attach, do_attach
from chats.actions import do_revoke_attachment_key
from chats.models import Chat
from chats.selectors import attachment_keys
from chats.views import chat_or_404

PANEL = "agents/_attach.html"
PAGE = "agents/attach_page.html"
KEY_HIDDEN = "KEY-SHOWN-WHEN-YOU-PRESS-SHOW-A-NEW-KEY"  # never offered for copying


def entry_point() -> str:
    """bin/crosstalk: manage.py with the repository's own venv, none activated."""
    return str(Path(settings.BASE_DIR) / "bin" / "crosstalk")


def chosen_cli(request: HttpRequest, chat: Chat) -> str:
    asked = request.POST.get("agent") or request.GET.get("agent")
    if asked in CLIS:
        return asked
    return chat.agent if chat.agent in CLIS else CLIS[0]


def attachable_or_404(request: HttpRequest, chat_id: str) -> Chat:
    chat = chat_or_404(request, chat_id)
    if not can_attach(chat):
        raise Http404("This chat's agent kind does not attach to a session you run.")
    return chat


def panel(request: HttpRequest, chat: Chat, *, key: str | None, switched_on: bool = False):
    agent = chosen_cli(request, chat)
    base_url = request.build_absolute_uri("/").rstrip("/")
    tabs = [
        {
            "cli": cli,
            "label": Chat.Agent(cli).label,
            "selected": cli == agent,
            "config": attach_config(chat, cli, key=key or KEY_HIDDEN, base_url=base_url),
        }
        for cli in CLIS
    ]
    context = {
        "chat": chat,
        "agent": agent,
        "tabs": tabs,
        "new_key": key,
        "switched_on": switched_on,
        "keys": attachment_keys(chat),
        "entry_point": entry_point(),
    }
    # htmx swaps the panel into the chat page; without script it is a page of its own.
    return render(request, PANEL if request.htmx else PAGE, context)


class AttachPanelView(LoginRequiredMixin, View):
    def get(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        return panel(request, attachable_or_404(request, chat_id), key=None)

    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = check_attach(attachable_or_404(request, chat_id))
        attached = do_attach(chat, cli=chosen_cli(request, chat))
        return panel(request, chat, key=attached.key, switched_on=attached.switched_on)


@login_required
@require_POST
def revoke_key(request: HttpRequest, chat_id: str, key_id: int) -> HttpResponse:
    """One attachment's key revoked; another chat's key (or another account's) is 404."""
    chat = attachable_or_404(request, chat_id)
    if not do_revoke_attachment_key(chat, key_id) and not chat.agent_keys.filter(pk=key_id):
        raise Http404("No such key for this chat.")
    return panel(request, chat, key=None)
