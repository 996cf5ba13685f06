"""The chat page, its conversation and the Peers tab's forms: function views over
one explicit context, `chat_page_context`, built from chats' parts (header,
conversation, composer) and peers' (the cards, the Peers tab). peers sits above
chats, so the page is composed here. Another account's chat answers 404,
exactly like a missing one."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import trigger_client_event

from chats import views as chat_views
from chats.models import Chat
from chats.views import PromptForm, chat_or_404
from kernel.refusals import Refusal
from peers.actions import (
    check_connect_chats,
    check_prompt_or_queue,
    check_send_as_person,
    do_set_peers,
)
from peers.cards import YOU, attach_cards, card_for, conversation_groups, keep_only_peer
from peers.limits import current_limits
from peers.refusal_words import for_person
from peers.selectors import offered_chats

PAGE_TEMPLATE = "peers/chat.html"
CARD_TEMPLATE = "peers/_card.html"
TAB_TEMPLATE = "peers/_tab.html"
LIVE_OOB_TEMPLATE = "peers/_live_oob.html"


class ConnectForm(forms.Form):
    # Plain ids, not choices: the action judges them, and an unknown one is a 404.
    other = forms.CharField(error_messages={"required": "Pick the chat to connect with."})
    brief = forms.CharField(required=False, strip=False, widget=forms.Textarea)


class SendForm(forms.Form):
    to = forms.CharField(error_messages={"required": "Pick the chat to write to."})
    sender = forms.ChoiceField(choices=[("chat", "this chat"), (YOU, "you")], required=False)
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea)


def tab_context(
    request: HttpRequest,
    chat: Chat,
    *,
    connect_form: ConnectForm | None = None,
    send_form: SendForm | None = None,
    **extra,
) -> dict:
    """The Peers tab: the switch, its two forms, and the conversation's messages by the
    other chat as filters of the one list (no second copy of a card)."""
    send_form = send_form or SendForm(initial={"to": request.GET.get("peer", ""), "sender": "chat"})
    if "groups" not in extra:
        extra["groups"] = conversation_groups(cards_of(chat))
    return {
        "chat": chat,
        "connect_form": connect_form or ConnectForm(),
        "connect_choices": offered_chats(chat, switching_on=True),
        "send_form": send_form,
        "send_choices": offered_chats(chat),
        "reach_hours": current_limits().reach_hours,
        **extra,
    }


def cards_of(chat: Chat) -> list:
    """The conversation's entries, each card's message attached."""
    entries = chat_views.conversation_context(chat)["entries"]
    attach_cards(entries, chat)
    return entries


def conversation_context(request: HttpRequest, chat: Chat, **tab_extra) -> dict:
    """The conversation with its cards, and the Peers tab's parts from the same read;
    `?peer=` (a group of the tab) shows that group's cards alone."""
    context = chat_views.conversation_context(chat)
    entries = context["entries"]
    attach_cards(entries, chat)
    groups = conversation_groups(entries)
    peer = next((group for group in groups if group.key == request.GET.get("peer")), None)
    if peer is not None:
        keep_only_peer(entries, peer.key)
    return {
        **context,
        **tab_context(request, chat, groups=groups, **tab_extra),
        "peer_filter": peer,
        "peer_card_template": CARD_TEMPLATE,
        "live_extra_template": LIVE_OOB_TEMPLATE,
    }


def chat_page_context(
    request: HttpRequest, chat: Chat, *, prompt_form: PromptForm | None = None, **tab_extra
) -> dict:
    """The whole chat page: the rail, header, conversation, composer and Peers tab."""
    return {
        **conversation_context(request, chat, **tab_extra),
        "prompt_form": prompt_form or PromptForm(),
        "switch_chats": chat_views.switch_chats(request.user),
    }


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def chat_page(request: HttpRequest, chat_id: str) -> HttpResponse:
    """The chat page; POST is the composer (a prompt to the chat)."""
    chat = chat_or_404(request, chat_id)
    if request.method == "GET":
        return render(request, PAGE_TEMPLATE, chat_page_context(request, chat))
    sent, form = chat_views.prompt_chat(request, chat, check_prompt_or_queue)
    if request.htmx:
        return chat_views.composer(request, chat, form, sent=sent)
    if sent:
        return redirect("chat-page", chat_id=chat.pk)
    return render(request, PAGE_TEMPLATE, chat_page_context(request, chat, prompt_form=form))


@login_required
@require_safe
def conversation(request: HttpRequest, chat_id: str) -> HttpResponse:
    """The conversation's refetch, carrying the Peers tab's parts out of band."""
    chat = chat_or_404(request, chat_id)
    context = conversation_context(request, chat)
    context["send_to"] = request.GET.get("to", "")
    context["connect_other"] = request.GET.get("other", "")
    return render(request, "chats/chat.html#conversation", context)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def peers_tab(request: HttpRequest, chat_id: str) -> HttpResponse:
    """GET: the Peers tab. POST: the switch, from the tab or the chat's ⋯ menu;
    `enabled` says the new state, absent it toggles."""
    chat = chat_or_404(request, chat_id)
    if request.method == "GET" and not request.htmx:
        return to_the_tab(chat)  # the tab alone is a fragment: never a page of its own
    if request.method == "GET":
        return render(request, TAB_TEMPLATE, tab_context(request, chat))
    wanted = request.POST.get("enabled")
    do_set_peers(chat, enabled=not chat.peers if wanted is None else wanted == "on")
    return after_chat_change(request, chat)


@login_required
@require_safe
def peers_live(request: HttpRequest, chat_id: str) -> HttpResponse:
    """The tab's live part alone: what it refetches on every hint."""
    chat = chat_or_404(request, chat_id)
    if not request.htmx:
        return to_the_tab(chat)
    return render(request, f"{TAB_TEMPLATE}#live", tab_context(request, chat))


def to_the_tab(chat: Chat) -> HttpResponse:
    return redirect(f"{reverse('chat-page', args=[chat.pk])}#peers-tab")


def after_chat_change(request: HttpRequest, chat: Chat) -> HttpResponse:
    """htmx: nothing to swap, the header refetches on the event; otherwise back to the page."""
    if not request.htmx:
        return redirect("chat-page", chat_id=chat.pk)
    return trigger_client_event(HttpResponse(status=204), f"live-chat-{chat.pk}")


def tab_form_answer(request: HttpRequest, chat: Chat, *, done: bool, **forms_) -> HttpResponse:
    """A Peers tab form's answer: on htmx the tab (the form picks its part); otherwise
    the whole chat page, the tab holding the form as typed."""
    if done and not request.htmx:
        return to_the_tab(chat)
    if not request.htmx:
        return render(request, PAGE_TEMPLATE, chat_page_context(request, chat, **forms_))
    response = render(request, TAB_TEMPLATE, tab_context(request, chat, **forms_))
    return trigger_client_event(response, "live-message") if done else response


def refused(refusal: Refusal) -> None:
    """Unknown and other-account chats read as a missing page; other refusals show inline."""
    if refusal.code in ("no_chat", "no_message"):
        raise Http404("No such chat.") from None


@login_required
@require_POST
def connect(request: HttpRequest, chat_id: str) -> HttpResponse:
    chat = chat_or_404(request, chat_id)
    form = ConnectForm(request.POST)
    if not form.is_valid():
        return tab_form_answer(request, chat, done=False, connect_form=form)
    try:
        check_connect_chats(
            request.user,
            chat_ids=[chat.pk, form.cleaned_data["other"]],
            brief=form.cleaned_data["brief"],
        )
    except Refusal as refusal:
        refused(refusal)
        form.add_error(None, for_person(refusal))
        return tab_form_answer(request, chat, done=False, connect_form=form)
    return tab_form_answer(request, chat, done=True, connected=True)


@login_required
@require_POST
def send(request: HttpRequest, chat_id: str) -> HttpResponse:
    chat = chat_or_404(request, chat_id)
    form = SendForm(request.POST)
    if not form.is_valid():
        return tab_form_answer(request, chat, done=False, send_form=form)
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
        form.add_error(None, for_person(refusal))
        return tab_form_answer(request, chat, done=False, send_form=form)
    fresh = SendForm(initial={"to": data["to"], "sender": data.get("sender") or "chat"})
    sent = card_for(message, chat)
    return tab_form_answer(request, chat, done=True, send_form=fresh, sent=sent)
