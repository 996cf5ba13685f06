"""The attach panel on the chat page: "Connect your own session".

GET shows each CLI's one-liner and files with the key left out; POST ("Show a
new key") rotates the chat's key and shows the config with it, this once —
keys are stored as digests, so the old one stops working."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from agents.attach import CLIS, attach_config
from chats.actions import do_rotate_agent_key
from chats.models import Chat
from chats.views import chat_or_404

PANEL = "agents/_attach.html"
PAGE = "agents/attach_page.html"
KEY_HIDDEN = "<press “Show a new key”>"


def chosen_cli(request: HttpRequest, chat: Chat) -> str:
    asked = request.GET.get("agent")
    if asked in CLIS:
        return asked
    return chat.agent if chat.agent in CLIS else CLIS[0]


def panel(request: HttpRequest, chat: Chat, *, key: str | None) -> HttpResponse:
    agent = chosen_cli(request, chat)
    base_url = request.build_absolute_uri("/").rstrip("/")
    config = attach_config(chat, agent, key=key or KEY_HIDDEN, base_url=base_url)
    tabs = [(cli, Chat.Agent(cli).label) for cli in CLIS]
    context = {"chat": chat, "agent": agent, "tabs": tabs, "config": config, "new_key": key}
    # htmx swaps the panel into the chat page; without script it is a page of its own.
    return render(request, PANEL if request.htmx else PAGE, context)


class AttachPanelView(LoginRequiredMixin, View):
    def get(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        return panel(request, chat_or_404(request, chat_id), key=None)

    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        return panel(request, chat, key=do_rotate_agent_key(chat))
