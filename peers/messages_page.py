"""The Messages page: every message of the account, both ways, filtered by chat, state,
path and who sent it, searched by its words (peers.search), paginated and live."""

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from chats.selectors import listed_chats
from chats.views import chat_or_404
from kernel.refusals import Refusal
from peers.inputs import MessageSearch
from peers.models import PeerMessage
from peers.selectors import find_messages
from peers.serializers import words

PER_PAGE = 25  # a screenful or two; 50 rows doubled the time to render the page
SentBy = PeerMessage.SentBy
# Who sent it: an agent, the person as themselves, the person in a chat's name.
SENDERS = {
    "agent": ("An agent", {"sent_by": SentBy.AGENT}),
    "person": ("You", {"sent_by": SentBy.PERSON, "from_chat__isnull": True}),
    "person_as_chat": ("You, as a chat", {"sent_by": SentBy.PERSON, "from_chat__isnull": False}),
}
RELATED = ("from_chat", "to_chat", "reply_to")


def chosen(request: HttpRequest, name: str, allowed) -> str:
    value = request.GET.get(name, "")
    return value if value in allowed else ""


def present_row(message: PeerMessage) -> PeerMessage:
    message.words = words(message)
    message.sender = (
        "You"
        if message.from_chat is None
        else f"You, as {message.from_chat.name}"
        if message.sent_by == SentBy.PERSON
        else message.from_chat.name
    )
    message.recipient = message.to_chat.name if message.to_chat else "you"
    is_answer = bool(message.reply_to_id) and message.reply_to.answer_id == message.pk
    message.answered_words = (
        "An answer" if is_answer else "Answered" if message.answer_id else "Not answered"
    )
    message.place = message.to_chat or message.from_chat
    return message


def rows_page(messages, number):
    """One page of rows in two steps: the page's ids in the search's order (a narrow sort
    over the hits), then only those rows with their chats, so nothing joins every hit."""
    page = Paginator(messages.values_list("pk", flat=True), PER_PAGE).get_page(number)
    ids = list(page.object_list)
    found = PeerMessage.objects.filter(pk__in=ids).select_related(*RELATED).in_bulk()
    page.object_list = [present_row(found[pk]) for pk in ids if pk in found]
    return page


def messages_context(request: HttpRequest) -> dict:
    chat = chat_or_404(request, request.GET["chat"]) if request.GET.get("chat") else None
    filters = {
        "state": chosen(request, "state", PeerMessage.State.values),
        "path": chosen(request, "path", PeerMessage.Path.values),
        "sender": chosen(request, "sender", SENDERS),
    }
    query = request.GET.get("q", "").strip()
    spec = MessageSearch(
        chat=chat.pk if chat else None, state=filters["state"] or None, query=query
    )
    error = ""
    try:
        messages = find_messages(request.user, spec)
    except Refusal as refusal:
        error, messages = refusal.message, PeerMessage.objects.none()
    if filters["path"]:
        messages = messages.filter(path=filters["path"])
    if filters["sender"]:
        messages = messages.filter(**SENDERS[filters["sender"]][1])
    page = rows_page(messages, request.GET.get("page"))
    return {
        "page": page,
        "chosen": chat,
        "q": query,
        "error": error,
        **filters,
        "states": PeerMessage.State.choices,
        "paths": PeerMessage.Path.choices,
        "senders": [(key, label) for key, (label, _) in SENDERS.items()],
        "chats": listed_chats(request.user),
        "query": query_string(chat, query, filters),
    }


@login_required
@require_safe
def messages(request: HttpRequest) -> HttpResponse:
    return render(request, "peers/messages.html", messages_context(request))


@login_required
@require_safe
def message_rows(request: HttpRequest) -> HttpResponse:
    return render(request, "peers/messages.html#rows", messages_context(request))


def query_string(chat, query: str, filters: dict) -> str:
    """The filter as a query string for the pager and the live refetch ("" or "a=b&")."""
    parts = {"chat": chat.pk if chat else "", "q": query, **filters}
    return "".join(f"{urlencode({key: value})}&" for key, value in parts.items() if value)
