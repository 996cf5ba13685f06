"""The chat pages: thin function views over chats.actions and chats.selectors.

chats owns the chat list, the header and the composer; the chat page itself is
composed by peers (peers.chat_page), which adds the cards and the Peers tab
(peers sits above chats) from these parts' contexts. Every /chats/<id>/ route
is listed in one table, crosstalk/chat_urls.py.

Live parts of a page are partials of the page's own template; they refetch on
the hints chats.consumers forwards. Actions answer htmx with HX-Trigger
events, so every live part refreshes the same way whether the hint came over
the socket or with the response."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.db.models import Case, F, When
from django.db.models.functions import Lower
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import trigger_client_event

from chats import agent_kinds
from chats.actions import check_create_chat, check_prompt, check_update_chat
from chats.inputs import ChatCreate, ChatUpdate
from chats.models import Chat
from chats.selectors import access_chat, account_chats, get_latest_entries, listed_chats
from kernel.inputs import parse
from kernel.refusals import Refusal

STOPPABLE = {Chat.Status.RUNNING, Chat.Status.IDLE, Chat.Status.WAITING}
ENTRIES_SHOWN = 200


class NewChatForm(forms.Form):
    """Collects the fields; chats.inputs.ChatCreate and check_create_chat judge them."""

    name = forms.CharField()
    repository = forms.CharField(required=False)
    branch = forms.CharField(required=False)
    agent = forms.ChoiceField(choices=Chat.Agent.choices, initial=Chat.Agent.DEMO)
    model = forms.CharField(required=False, help_text="Blank: the CLI's own default.")
    # A <select> of each agent's modes; check_create_chat judges the pair.
    permission_mode = forms.CharField(required=False, label="Permission mode")
    folder = forms.CharField(
        required=False,
        label="Working folder",
        help_text="One of your own folders on this server (<root>/<your username>/), absolute "
        "or relative to it (shop-web); made when missing.",
    )
    command = forms.CharField(
        required=False,
        label="Command line",
        help_text="It gets each turn's prompt on stdin; what it prints is the answer.",
    )
    peers = forms.BooleanField(required=False, label="Agent-to-agent messaging")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        mode = self.fields["permission_mode"]
        mode.widget = ModeSelect(agent=self["agent"].value())
        mode.help_text = f"Blank: the CLI's own default. {agent_kinds.modes_help()}"


class ModeSelect(forms.Select):
    """One <optgroup data-agent="kind"> per agent kind with modes. A script
    (static/crosstalk/new_chat.js) shows only the chosen agent's; without it all
    show, and a mode of another agent is refused by the server, naming the valid ones."""

    template_name = "chats/widgets/mode_select.html"

    def __init__(self, *, agent: str) -> None:
        super().__init__()
        self.agent = agent

    def get_context(self, name: str, value, attrs) -> dict:
        context = super().get_context(name, value, attrs)
        context["widget"]["groups"] = [
            {
                "kind": kind,
                "label": agent_kinds.label_of(kind),
                "default": agent_kinds.default_mode(kind),
                "modes": modes,
                "chosen": value if kind == self.agent else None,
            }
            for kind in Chat.Agent.values
            if (modes := agent_kinds.permission_modes(kind))
        ]
        return context


class PromptForm(forms.Form):
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 3}))
    send_queued = forms.BooleanField(
        required=False, initial=True, label="Send queued messages with this prompt"
    )


def add_refusal(form: forms.Form, refusal: Refusal) -> None:
    """Show a refusal on the field it names ("field: sentence"), else above the form."""
    field, separator, sentence = refusal.message.partition(": ")
    if refusal.code == "name_taken" and "name" in form.fields:
        form.add_error("name", refusal.message)
    elif separator and field in form.fields:
        form.add_error(field, sentence)
    else:
        form.add_error(None, refusal.message)


def chat_or_404(request: HttpRequest, chat_id: str) -> Chat:
    try:
        return access_chat(request.user, chat_id)
    except Refusal:
        # Another account's chat reads exactly like a missing one.
        raise Http404("No such chat.") from None


def chat_cards(user, *, archived: bool = False) -> list[Chat]:
    """The chat list: running chats first, then the most recently run, then by name;
    with `archived`, the archived chats alone."""
    running = Case(When(status=Chat.Status.RUNNING, then=0), default=1)
    chats = account_chats(user).filter(archived=archived)
    return list(chats.order_by(running, F("last_ran_at").desc(nulls_last=True), Lower("name")))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def chat_list(request: HttpRequest) -> HttpResponse:
    """GET: the chat list with the New chat form; POST: the form."""
    if request.method == "GET":
        form = NewChatForm(initial={"peers": request.user.peers_for_new_chats})
        return show_chat_list(request, form)
    form = NewChatForm(request.POST)
    if form.is_valid():
        try:
            spec = parse(ChatCreate, form.cleaned_data)
            chat, _agent_key = check_create_chat(request.user, spec=spec)
        except Refusal as refusal:
            add_refusal(form, refusal)
        else:
            return redirect("chat-page", chat_id=chat.pk)
    return show_chat_list(request, form)


def list_context(request: HttpRequest) -> dict:
    archived = request.GET.get("archived") == "1"
    return {
        "chats": chat_cards(request.user, archived=archived),
        "show_archived": archived,
        "archived_count": account_chats(request.user).filter(archived=True).count(),
    }


def show_chat_list(request: HttpRequest, form: NewChatForm) -> HttpResponse:
    return render(request, "chats/list.html", {**list_context(request), "form": form})


def switch_chats(user) -> list[Chat]:
    """The account's chats for the switcher and the rail (archived ones left out): most
    recently changed first."""
    return list(listed_chats(user).order_by("-updated_at", Lower("name")))


@login_required
@require_safe
def chat_links(request: HttpRequest) -> HttpResponse:
    """The quick switcher's list (Ctrl+K) and the chat page's rail, refetched live."""
    chat = account_chats(request.user).filter(pk=request.GET.get("current", "")).first()
    context = {"switch_chats": switch_chats(request.user), "chat": chat}
    return render(request, "chats/_chat_links.html", context)


MENTIONS = 20  # the most chats the @ picker lists at once
MENTION_QUERY = 100  # characters of the typed name it matches on


@login_required
@require_safe
def chat_mentions(request: HttpRequest) -> JsonResponse:
    """The composer's @ picker: the account's chats whose name holds `q`, most recently
    changed first (another account's chats are never among them)."""
    query = request.GET.get("q", "")[:MENTION_QUERY].strip()
    chats = listed_chats(request.user).order_by("-updated_at", Lower("name"))
    if query:  # a NUL never gets here: every request holding one is a 400
        chats = chats.filter(name__icontains=query)
    items = [mention_json(chat) for chat in chats[:MENTIONS]]
    return JsonResponse({"items": items, "count": len(items)})


def mention_json(chat: Chat) -> dict:
    fields = {"name": chat.name, "repository": chat.repository, "branch": chat.branch}
    return {"id": str(chat.pk), **fields, "status": chat.status}


@login_required
@require_safe
def chat_rows(request: HttpRequest) -> HttpResponse:
    return render(request, "chats/list.html#rows", list_context(request))


def header_context(chat: Chat) -> dict:
    return {"chat": chat, "can_stop": chat.status in STOPPABLE}


def conversation_context(chat: Chat) -> dict:
    """The header's parts and the latest entries; peers adds the cards."""
    return {**header_context(chat), "entries": get_latest_entries(chat, limit=ENTRIES_SHOWN)}


@login_required
@require_safe
def chat_header(request: HttpRequest, chat_id: str) -> HttpResponse:
    chat = chat_or_404(request, chat_id)
    return render(request, "chats/chat.html#header", header_context(chat))


def prompt_chat(request: HttpRequest, chat: Chat, check=check_prompt) -> tuple[bool, PromptForm]:
    """The composer's POST: whether the prompt went, and the form to show next. `check`
    takes it (peers passes its own: a prompt to an attached session is queued for it)."""
    form = PromptForm(request.POST)
    if not form.is_valid():  # only bad bytes (a NUL): check_prompt judges the rest
        return False, form
    text, send_queued = form.cleaned_data["text"], form.cleaned_data["send_queued"]
    try:
        check(chat, text=text, send_queued=send_queued)
    except Refusal as refusal:
        # Every prompt refusal (empty_message, …) is about the text.
        form.add_error("text", refusal.message)
        return False, form
    return True, PromptForm()


def composer(request: HttpRequest, chat: Chat, form: PromptForm, *, sent: bool) -> HttpResponse:
    """The composer partial after a POST (htmx swaps only 2xx: a refusal is a 200 form)."""
    response = render(request, "chats/chat.html#composer", {"chat": chat, "prompt_form": form})
    return trigger_client_event(response, f"live-entry-{chat.pk}") if sent else response


@login_required
@require_POST
def set_inbound(request: HttpRequest, chat_id: str) -> HttpResponse:
    """The ⋯ menu's and the Peers tab's "Ask me first": `inbound` says the new value,
    absent it toggles."""
    chat = chat_or_404(request, chat_id)
    wanted = request.POST.get("inbound")
    if wanted is None:
        wanted = Chat.Inbound.ACCEPT if chat.inbound == Chat.Inbound.ASK else Chat.Inbound.ASK
    try:
        check_update_chat(request.user, chat, spec=parse(ChatUpdate, {"inbound": wanted}))
    except Refusal:
        return HttpResponse("inbound: accept or ask.", status=400, content_type="text/plain")
    if not request.htmx:
        return redirect("chat-page", chat_id=chat.pk)
    return trigger_client_event(HttpResponse(status=204), f"live-chat-{chat.pk}")
