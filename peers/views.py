"""The people's side of peer messaging: cards in the conversation, the Peers tab
and the activity page.

Thin views over peers.actions and the selectors. The chat page and its
conversation are chats' views, extended here (peers sits above chats), so a
peer_in / peer_out entry renders as a live card. Another account's chat or
message answers 404, exactly like a missing one."""

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django import forms
from django.contrib import messages as flash
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View
from django_htmx.http import trigger_client_event

from chats import views as chat_views
from chats.models import Chat, Entry
from chats.refusals import Refusal
from chats.selectors import account_chats
from chats.views import chat_or_404
from peers.actions import (
    check_cancel_message,
    check_connect_chats,
    check_send_as_person,
    check_stop_chat,
    do_set_peers,
)
from peers.limits import current_limits
from peers.models import Activity, PeerMessage
from peers.refusal_words import for_person
from peers.selectors import (
    access_message,
    account_activity,
    messages_of_chat,
    offered_chats,
)
from peers.serializers import words

HELD = PeerMessage.Reason.HELD

CARD_TEMPLATE = "peers/_card.html"
TAB_TEMPLATE = "peers/_tab.html"
LIVE_OOB_TEMPLATE = "peers/_live_oob.html"
MESSAGES_SHOWN = 200
ACTIVITY_PER_PAGE = 50
# The group of messages between this chat and the person themselves.
YOU = "you"
CANCELLABLE = {PeerMessage.State.PENDING, PeerMessage.State.QUEUED}
RELATED = ("from_chat", "to_chat", "reply_to", "answer", "answer__from_chat", "answer__to_chat")


# One card per message, in the conversation and the Peers tab -------------------


def present(message: PeerMessage, chat: Chat) -> PeerMessage:
    """Attach what the card shows, as seen from `chat`."""
    message.words = words(message)
    message.outgoing = message.from_chat_id == chat.pk
    message.other = message.to_chat if message.outgoing else message.from_chat
    message.other_name = message.other.name if message.other else "you"
    message.peer_key = message.other.pk if message.other else YOU
    message.held = message.state == PeerMessage.State.QUEUED and message.reason == HELD
    message.cancellable = message.state in CANCELLABLE
    message.author = author(message)
    message.is_answer = bool(message.reply_to_id) and message.reply_to.answer_id == message.pk
    message.answer_shown = present_answer(message.answer, chat) if message.answer_id else None
    message.trail = trail(message)
    return message


def trail(message: PeerMessage) -> str:
    """How it got where it is, from the data: a message to an idle chat is woken and
    delivered within a second, and the card says so rather than seeming born Delivered."""
    if message.delivered_at is None:
        return ""
    seconds = (message.delivered_at - message.created_at).total_seconds()
    took = f"{seconds:.1f} s" if seconds < 60 else f"{seconds / 60:.0f} min"
    woke = f"woke {message.to_chat.name}, then " if message.woke and message.to_chat else ""
    return f"Sent, {woke}delivered {took} later"


def present_answer(answer: PeerMessage, chat: Chat) -> PeerMessage:
    answer.words = words(answer)
    answer.cancellable = answer.state in CANCELLABLE
    return answer


def author(message: PeerMessage) -> str:
    """Who wrote it; one the person sent in a chat's name reads "You, as that chat"."""
    if message.from_chat is None:
        return "You"
    if message.sent_by == PeerMessage.SentBy.PERSON:
        return f"You, as {message.from_chat.name}"
    return message.from_chat.name


CARD_KINDS = (Entry.Kind.PEER_IN, Entry.Kind.PEER_OUT)


def attach_messages(entries: list[Entry], chat: Chat) -> None:
    """Every card's message in one query. An answer shows inside the card it answers, so
    its own card is hidden, and so is an agent's entry linked to it by message id (the
    turn's text that became the answer, or the demo agent saying what came back)."""
    ids = {entry.message_id for entry in entries if entry.message_id and entry.kind in CARD_KINDS}
    found = (
        PeerMessage.objects.filter(user_id=chat.user_id).select_related(*RELATED).in_bulk(ids)
        if ids
        else {}
    )
    shown = set()
    for entry in entries:
        if entry.kind not in CARD_KINDS:
            continue
        message = found.get(entry.message_id)
        entry.message = present(message, chat) if message else None
        entry.hidden = bool(message and message.is_answer and message.reply_to_id in found)
        if message and not entry.hidden:
            shown.add(message.pk)
            if message.answer_id:
                shown.add(message.answer_id)
    for entry in entries:
        if entry.kind == Entry.Kind.ANSWER and entry.message_id in shown:
            entry.hidden = True


class PeerCardsMixin:
    def get_context(self, request: HttpRequest, chat: Chat) -> dict:
        context = super().get_context(request, chat)
        attach_messages(context["entries"], chat)
        return {**context, "peer_card_template": CARD_TEMPLATE}


class ConversationView(PeerCardsMixin, chat_views.ConversationView):
    """The conversation, and with it the Peers tab's parts: one read, one state per message."""

    def get_context(self, request: HttpRequest, chat: Chat) -> dict:
        context = {**super().get_context(request, chat), **tab_context(request, chat)}
        context["send_to"] = request.GET.get("to", "")
        context["connect_other"] = request.GET.get("other", "")
        return {**context, "live_extra_template": LIVE_OOB_TEMPLATE}


class ChatPageView(PeerCardsMixin, chat_views.ChatPageView):
    """The chat page with the Peers tab in its side panel."""

    template_name = "peers/chat.html"

    def get_context(self, request: HttpRequest, chat: Chat) -> dict:
        context = {**super().get_context(request, chat), **tab_context(request, chat)}
        return {**context, "live_extra_template": LIVE_OOB_TEMPLATE}


# The Peers tab ----------------------------------------------------------------


class ConnectForm(forms.Form):
    # Plain ids, not choices: the action judges them, and an unknown one is a 404.
    other = forms.CharField(error_messages={"required": "Pick the chat to connect with."})
    brief = forms.CharField(required=False, strip=False, widget=forms.Textarea)


class SendForm(forms.Form):
    to = forms.CharField(error_messages={"required": "Pick the chat to write to."})
    sender = forms.ChoiceField(choices=[("chat", "this chat"), (YOU, "you")], required=False)
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea)


@dataclass
class PeerGroup:
    key: str
    other: Chat | None
    messages: list[PeerMessage] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.messages) + sum(1 for m in self.messages if m.answer_shown)


def group_messages(chat: Chat, messages: list[PeerMessage]) -> list[PeerGroup]:
    """By the other chat (or the person), newest group first, newest message first; an
    answer sits inside the card of the message it answers, never on its own."""
    shown = {message.pk for message in messages}
    groups: dict[str, PeerGroup] = {}
    for message in messages:
        present(message, chat)
        if message.is_answer and message.reply_to_id in shown:
            continue
        group = groups.setdefault(message.peer_key, PeerGroup(message.peer_key, message.other))
        group.messages.append(message)
    return list(groups.values())


def tab_context(
    request: HttpRequest,
    chat: Chat,
    *,
    connect_form: ConnectForm | None = None,
    send_form: SendForm | None = None,
    **extra,
) -> dict:
    messages = list(messages_of_chat(request.user, chat).select_related(*RELATED)[:MESSAGES_SHOWN])
    send_form = send_form or SendForm(initial={"to": request.GET.get("peer", ""), "sender": "chat"})
    return {
        "chat": chat,
        "groups": group_messages(chat, messages),
        "connect_form": connect_form or ConnectForm(),
        "connect_choices": offered_chats(chat, switching_on=True),
        "send_form": send_form
        or SendForm(initial={"to": request.GET.get("peer", ""), "sender": "chat"}),
        "send_choices": offered_chats(chat),
        "reach_hours": current_limits().reach_hours,
        **extra,
    }


class PeersTabView(LoginRequiredMixin, View):
    """GET: the Peers tab. POST: the switch, from the tab or the chat's ⋯ menu;
    `enabled` says the new state, absent it toggles."""

    template_name = TAB_TEMPLATE

    def get(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        return render(request, self.template_name, tab_context(request, chat))

    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        wanted = request.POST.get("enabled")
        do_set_peers(chat, enabled=not chat.peers if wanted is None else wanted == "on")
        return after_chat_change(request, chat)


class PeersLiveView(PeersTabView):
    """The tab's live part alone: what it refetches on every hint."""

    template_name = f"{TAB_TEMPLATE}#live"
    http_method_names = ["get"]


class StopChatView(LoginRequiredMixin, View):
    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = check_stop_chat(chat_or_404(request, chat_id))
        return after_chat_change(request, chat)


def after_chat_change(request: HttpRequest, chat: Chat) -> HttpResponse:
    """htmx: nothing to swap, the header refetches on the event; otherwise back to the page."""
    if not request.htmx:
        return redirect("chat-page", chat_id=chat.pk)
    return trigger_client_event(HttpResponse(status=204), f"live-chat-{chat.pk}")


def refused(refusal: Refusal) -> None:
    """Unknown and other-account chats read as a missing page; other refusals show inline."""
    if refusal.code in ("no_chat", "no_message"):
        raise Http404("No such chat.") from None


class TabFormView(ChatPageView):
    """A form of the Peers tab: on htmx it answers the tab (the form picks its part);
    otherwise the whole chat page, the tab holding the form as typed."""

    http_method_names = ["post"]

    def answer(self, request: HttpRequest, chat: Chat, *, done: bool, **forms_) -> HttpResponse:
        if done and not request.htmx:
            return redirect(f"{reverse('chat-page', args=[chat.pk])}#peers-tab")
        if not request.htmx:
            context = {**self.get_context(request, chat), **forms_}
            return render(request, self.template_name, context)
        response = render(request, TAB_TEMPLATE, tab_context(request, chat, **forms_))
        return trigger_client_event(response, "live-message") if done else response


class ConnectView(TabFormView):
    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        form = ConnectForm(request.POST)
        if not form.is_valid():
            return self.answer(request, chat, done=False, connect_form=form)
        try:
            check_connect_chats(
                request.user,
                chat_ids=[chat.pk, form.cleaned_data["other"]],
                brief=form.cleaned_data["brief"],
            )
        except Refusal as refusal:
            refused(refusal)
            form.add_error(None, refusal.message)
            return self.answer(request, chat, done=False, connect_form=form)
        return self.answer(request, chat, done=True, connected=True)


class SendView(TabFormView):
    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        form = SendForm(request.POST)
        if not form.is_valid():
            return self.answer(request, chat, done=False, send_form=form)
        data = form.cleaned_data
        try:
            message = check_send_as_person(
                request.user,
                from_chat=None if data.get("sender") == YOU else chat.pk,
                to=data["to"],
                text=data["text"],
            )
        except Refusal as refusal:
            refused(refusal)
            form.add_error(None, refusal.message)
            return self.answer(request, chat, done=False, send_form=form)
        fresh = SendForm(initial={"to": data["to"], "sender": data.get("sender") or "chat"})
        sent = present(message, chat)
        return self.answer(request, chat, done=True, send_form=fresh, sent=sent)


class CancelView(LoginRequiredMixin, View):
    """A card's or the tab's Cancel; answers the button's slot (empty, or the refusal)."""

    def post(self, request: HttpRequest, chat_id: str, message_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        message = access_message(request.user, message_id)
        if message is None or chat.pk not in (message.from_chat_id, message.to_chat_id):
            raise Http404("No such message.")
        try:
            check_cancel_message(request.user, message_id=message.pk)
        except Refusal as refusal:
            refused(refusal)
            return self.refusal(request, chat, refusal)
        if not request.htmx:
            return redirect("chat-page", chat_id=chat.pk)
        return trigger_client_event(HttpResponse(""), "live-message")

    def refusal(self, request: HttpRequest, chat: Chat, refusal: Refusal) -> HttpResponse:
        if not request.htmx:
            flash.error(request, for_person(refusal))
            return redirect("chat-page", chat_id=chat.pk)
        context = {"refusal": refusal}
        return trigger_client_event(
            render(request, "peers/_cancel_refused.html", context), "live-message"
        )


# The activity page ------------------------------------------------------------


class ActivityView(LoginRequiredMixin, View):
    """The log in words, filterable by chat and action, newest first, paginated."""

    template_name = "peers/activity.html"

    def get(self, request: HttpRequest) -> HttpResponse:
        chosen = request.GET.get("chat") or None
        chat = chat_or_404(request, chosen) if chosen else None
        action = request.GET.get("action", "")
        action = action if action in Activity.Action.values else ""
        rows = account_activity(request.user, chat, action=action or None)
        rows = rows.select_related("message", "message__from_chat", "message__to_chat")
        page = Paginator(rows, ACTIVITY_PER_PAGE).get_page(request.GET.get("page"))
        context = {
            "page": page,
            "chosen": chat,
            "action": action,
            "actions": Activity.Action.choices,
            "chats": list(account_chats(request.user)),
            "query": query_string(chat, action),
        }
        return render(request, self.template_name, context)


def query_string(chat: Chat | None, action: str) -> str:
    """The filter as a query string for the pager and the live refetch ("" or "a=b&")."""
    parts = {"chat": chat.pk if chat else "", "action": action}
    return "".join(f"{urlencode({key: value})}&" for key, value in parts.items() if value)


class ActivityRowsView(ActivityView):
    template_name = "peers/activity.html#rows"
