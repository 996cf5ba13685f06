"""The chat pages: thin views over chats.actions and chats.selectors.

chats routes the chat list and the header; the chat page and its conversation
are routed by peers, whose subclasses add the cards and the Peers tab (peers
sits above chats), as are the switch and Stop, which carry peers rules.

Live parts of a page are partials of the page's own template; they refetch on
the hints chats.consumers forwards. Actions answer htmx with HX-Trigger
events, so every live part refreshes the same way whether the hint came over
the socket or with the response."""

from django import forms
from django.contrib.auth.mixins import LoginRequiredMixin
from django.db.models import Case, F, When
from django.db.models.functions import Lower
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views import View
from django_htmx.http import trigger_client_event

from chats.actions import check_create_chat, check_prompt
from chats.inputs import ChatCreate, parse
from chats.models import Chat
from chats.refusals import Refusal
from chats.selectors import access_chat, account_chats, get_latest_entries

STOPPABLE = {Chat.Status.RUNNING, Chat.Status.IDLE, Chat.Status.WAITING}
ENTRIES_SHOWN = 200


class NewChatForm(forms.Form):
    """Collects the fields; chats.inputs.ChatCreate and check_create_chat judge them."""

    name = forms.CharField()
    repository = forms.CharField(required=False)
    branch = forms.CharField(required=False)
    agent = forms.ChoiceField(choices=Chat.Agent.choices, initial=Chat.Agent.DEMO)
    model = forms.CharField(required=False, help_text="Blank: the CLI's own default.")
    permission_mode = forms.CharField(
        required=False,
        label="Permission mode",
        help_text=(
            "Claude Code: default, acceptEdits, plan, bypassPermissions · Codex: read-only, "
            "workspace-write, danger-full-access · Gemini: default, auto_edit, yolo, plan"
        ),
    )
    folder = forms.CharField(
        required=False, label="Working folder", help_text="An absolute path on this machine."
    )
    command = forms.CharField(
        required=False,
        label="Command line",
        help_text="It gets each turn's prompt on stdin; what it prints is the answer.",
    )
    peers = forms.BooleanField(required=False, label="Agent-to-agent messaging")


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


def chat_cards(user) -> list[Chat]:
    """The chat list: running chats first, then the most recently run, then by name."""
    running = Case(When(status=Chat.Status.RUNNING, then=0), default=1)
    chats = account_chats(user)
    return list(chats.order_by(running, F("last_ran_at").desc(nulls_last=True), Lower("name")))


class ChatListView(LoginRequiredMixin, View):
    template_name = "chats/list.html"

    def get(self, request: HttpRequest) -> HttpResponse:
        form = NewChatForm(initial={"peers": request.user.peers_for_new_chats})
        return self.show(request, form)

    def post(self, request: HttpRequest) -> HttpResponse:
        form = NewChatForm(request.POST)
        if form.is_valid():
            try:
                spec = parse(ChatCreate, form.cleaned_data)
                chat, _agent_key = check_create_chat(request.user, spec=spec)
            except Refusal as refusal:
                add_refusal(form, refusal)
            else:
                return redirect("chat-page", chat_id=chat.pk)
        return self.show(request, form)

    def show(self, request: HttpRequest, form: NewChatForm) -> HttpResponse:
        context = {"chats": chat_cards(request.user), "form": form}
        return render(request, self.template_name, context)


def switch_chats(user) -> list[Chat]:
    """Every chat of the account for the switcher and the rail: most recently changed first."""
    return list(account_chats(user).order_by("-updated_at", Lower("name")))


class ChatLinksView(LoginRequiredMixin, View):
    """The quick switcher's list (Ctrl+K) and the chat page's rail, refetched live."""

    def get(self, request: HttpRequest) -> HttpResponse:
        chat = account_chats(request.user).filter(pk=request.GET.get("current", "")).first()
        context = {"switch_chats": switch_chats(request.user), "chat": chat}
        return render(request, "chats/_chat_links.html", context)


class ChatRowsView(LoginRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        context = {"chats": chat_cards(request.user)}
        return render(request, "chats/list.html#rows", context)


class ChatView(LoginRequiredMixin, View):
    """One chat's page or one of its partials; subclasses (peers) extend get_context."""

    template_name = ""

    def get(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        return render(request, self.template_name, self.get_context(request, chat))

    def get_context(self, request: HttpRequest, chat: Chat) -> dict:
        return {"chat": chat, "can_stop": chat.status in STOPPABLE}


class HeaderView(ChatView):
    template_name = "chats/chat.html#header"


class ConversationView(ChatView):
    template_name = "chats/chat.html#conversation"

    def get_context(self, request: HttpRequest, chat: Chat) -> dict:
        entries = get_latest_entries(chat, limit=ENTRIES_SHOWN)
        return {**super().get_context(request, chat), "entries": entries}


class ChatPageView(ConversationView):
    """The chat page; POST is the composer (a prompt to the chat)."""

    template_name = "chats/chat.html"

    def get_context(self, request: HttpRequest, chat: Chat) -> dict:
        context = {"prompt_form": PromptForm(), **super().get_context(request, chat)}
        return {**context, "switch_chats": switch_chats(request.user)}

    def post(self, request: HttpRequest, chat_id: str) -> HttpResponse:
        chat = chat_or_404(request, chat_id)
        form = PromptForm(request.POST)
        if not form.is_valid():  # only bad bytes (a NUL): check_prompt judges the rest
            return self.composer_with_errors(request, chat, form)
        text, send_queued = form.cleaned_data["text"], form.cleaned_data["send_queued"]
        try:
            check_prompt(chat, text=text, send_queued=send_queued)
        except Refusal as refusal:
            # Every prompt refusal (empty_message, …) is about the text.
            form.add_error("text", refusal.message)
            return self.composer_with_errors(request, chat, form)
        if not request.htmx:
            return redirect("chat-page", chat_id=chat.pk)
        context = {**self.get_context(request, chat), "prompt_form": PromptForm()}
        response = render(request, "chats/chat.html#composer", context)
        return trigger_client_event(response, f"live-entry-{chat.pk}")

    def composer_with_errors(self, request, chat: Chat, form: PromptForm) -> HttpResponse:
        context = {**self.get_context(request, chat), "prompt_form": form}
        # htmx swaps only 2xx answers, so the refusal comes back as a 200 form.
        name = "chats/chat.html#composer" if request.htmx else self.template_name
        return render(request, name, context)
