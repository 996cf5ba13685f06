"""The people's side of peer messaging beyond the chat page (peers.chat_page):
a card's Cancel, Stop, and the activity page. Thin function views over
peers.actions and the selectors; another account's chat or message answers
404, exactly like a missing one."""

from urllib.parse import urlencode

from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import trigger_client_event

from chats.models import Chat
from chats.selectors import listed_chats
from chats.views import chat_or_404
from kernel.refusals import Refusal
from peers.actions import (
    check_approve_message,
    check_cancel_message,
    check_deny_message,
    check_stop_chat,
)
from peers.cards import card_for
from peers.chat_page import after_chat_change, refused
from peers.models import Activity, PeerMessage
from peers.refusal_words import for_person
from peers.selectors import access_message, account_activity

ACTIVITY_PER_PAGE = 50


@login_required
@require_POST
def stop_chat(request: HttpRequest, chat_id: str) -> HttpResponse:
    chat = check_stop_chat(chat_or_404(request, chat_id))
    return after_chat_change(request, chat)


def message_of_chat_or_404(request: HttpRequest, chat: Chat, message_id: str) -> PeerMessage:
    """A message of this account to or from `chat`; any other answers like a missing one."""
    message = access_message(request.user, message_id)
    if message is None or chat.pk not in (message.from_chat_id, message.to_chat_id):
        raise Http404("No such message.")
    return message


@login_required
@require_safe
def sent_status(request: HttpRequest, chat_id: str, message_id: str) -> HttpResponse:
    """The Send form's status line alone: what it refetches on every hint and resync."""
    chat = chat_or_404(request, chat_id)
    message = message_of_chat_or_404(request, chat, message_id)
    context = {"chat": chat, "sent": card_for(message, chat)}
    return render(request, "peers/_sent.html", context)


@login_required
@require_POST
def cancel_message(request: HttpRequest, chat_id: str, message_id: str) -> HttpResponse:
    """A card's, the tab's or the Send form's Cancel; answers the button's slot (empty,
    or the refusal)."""
    chat = chat_or_404(request, chat_id)
    message = message_of_chat_or_404(request, chat, message_id)
    try:
        check_cancel_message(request.user, message_id=message.pk)
    except Refusal as refusal:
        refused(refusal)
        return cancel_refused(request, chat, refusal)
    if not request.htmx:
        return redirect("chat-page", chat_id=chat.pk)
    return trigger_client_event(HttpResponse(""), "live-message")


DECISIONS = {"approve": check_approve_message, "deny": check_deny_message}


@login_required
@require_POST
def decide_message(
    request: HttpRequest, chat_id: str, message_id: str, decision: str
) -> HttpResponse:
    """A card's Approve or Deny (the conversation's and the Peers tab's); answers the
    buttons' slot (empty, or the refusal), as Cancel does."""
    chat = chat_or_404(request, chat_id)
    message = message_of_chat_or_404(request, chat, message_id)
    try:
        DECISIONS[decision](request.user, message_id=message.pk)
    except Refusal as refusal:
        refused(refusal)
        return cancel_refused(request, chat, refusal)
    if not request.htmx:  # the inbox's buttons come back to it; the card's to the chat
        back_to_inbox = request.POST.get("back") == "inbox"
        return redirect("inbox") if back_to_inbox else redirect("chat-page", chat_id=chat.pk)
    return trigger_client_event(HttpResponse(""), "live-message")


def cancel_refused(request: HttpRequest, chat: Chat, refusal: Refusal) -> HttpResponse:
    if not request.htmx:
        flash.error(request, for_person(refusal))
        return redirect("chat-page", chat_id=chat.pk)
    response = render(request, "peers/_cancel_refused.html", {"refusal": refusal})
    return trigger_client_event(response, "live-message")


# The activity page ------------------------------------------------------------


def activity_context(request: HttpRequest) -> dict:
    """The log in words, filterable by chat and action, newest first, paginated."""
    chosen = request.GET.get("chat") or None
    chat = chat_or_404(request, chosen) if chosen else None
    action = request.GET.get("action", "")
    action = action if action in Activity.Action.values else ""
    rows = account_activity(request.user, chat, action=action or None)
    rows = rows.select_related("message", "message__from_chat", "message__to_chat")
    return {
        "page": Paginator(rows, ACTIVITY_PER_PAGE).get_page(request.GET.get("page")),
        "chosen": chat,
        "action": action,
        "actions": Activity.Action.choices,
        "chats": listed_chats(request.user),
        "query": query_string(chat, action),
    }


@login_required
@require_safe
def activity(request: HttpRequest) -> HttpResponse:
    return render(request, "peers/activity.html", activity_context(request))


@login_required
@require_safe
def activity_rows(request: HttpRequest) -> HttpResponse:
    return render(request, "peers/activity.html#rows", activity_context(request))


def query_string(chat: Chat | None, action: str) -> str:
    """The filter as a query string for the pager and the live refetch ("" or "a=b&")."""
    parts = {"chat": chat.pk if chat else "", "action": action}
    return "".join(f"{urlencode({key: value})}&" for key, value in parts.items() if value)
