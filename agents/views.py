"""The attach panel on the chat page: "Connect your own session".

GET shows each CLI's commands and files with the key left out, one tab per CLI
(switched in the page, so a key shown stays in every tab); POST ("Show a new
key") makes a new key, turns the chat's switch on when it was off, and shows
the config with the key, this once — keys are stored as digests, so the old one
stops working. Chats of other agent kinds have no panel (404)."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from agents.attach import CLIS, attach_config
from agents.attach.actions import can_attach, check_attach, do_attach
from chats.models import Chat
from chats.views import chat_or_404

PANEL = "agents/_attach.html"
PAGE = "agents/attach_page.html"
KEY_HIDDEN = "KEY-SHOWN-WHEN-YOU-PRESS-SHOW-A-NEW-KEY"


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
    }
    # htmx swaps the panel into the chat page; without script it is a page of its own.
    return render(request, PANEL if request.htmx else PAGE, context)


class AttachPanelView(LoginRequiredMixin, View):
    def get(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        return panel(request, attachable_or_404(request, chat_id), key=None)

    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = check_attach(attachable_or_404(request, chat_id))
        attached = do_attach(chat)
        return panel(request, chat, key=attached.key, switched_on=attached.switched_on)
