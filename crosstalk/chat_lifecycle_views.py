"""The pages' rename, archive and delete (the ⋯ menu and the chat list's selection):
thin views over peers.actions.check_update_chat and crosstalk.chat_lifecycle. Each
answers with a redirect (POST-redirect-GET); a refusal is a flash beside the page."""

from django import forms
from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from chats.inputs import ChatUpdate
from chats.selectors import account_chats
from chats.views import chat_or_404
from crosstalk.chat_lifecycle import check_delete_chat
from kernel.inputs import parse
from kernel.refusals import Refusal
from peers.actions import check_update_chat
from peers.refusal_words import for_person

MOST_SELECTED = 200


class RenameForm(forms.Form):
    name = forms.CharField(max_length=80)  # as ChatUpdate.name; its words below


class SelectedForm(forms.Form):
    chats = forms.MultipleChoiceField()
    action = forms.ChoiceField(choices=[(a, a) for a in ("archive", "unarchive", "delete")])

    def __init__(self, user, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The account's chats alone are choices: another's id is not a valid choice.
        ids = account_chats(user).values_list("pk", flat=True)
        self.fields["chats"].choices = [(pk, pk) for pk in ids]


def update(request: HttpRequest, chat, data: dict) -> None:
    try:
        check_update_chat(request.user, chat, spec=parse(ChatUpdate, data))
    except Refusal as refusal:
        flash.error(request, for_person(refusal))


@login_required
@require_POST
def rename_chat(request: HttpRequest, chat_id: str) -> HttpResponse:
    chat = chat_or_404(request, chat_id)
    form = RenameForm(request.POST)
    if form.is_valid():
        update(request, chat, {"name": form.cleaned_data["name"]})
    else:
        flash.error(request, "Write a name of at most 80 characters.")
    return redirect("chat-page", chat_id=chat.pk)


@login_required
@require_POST
def archive_chat(request: HttpRequest, chat_id: str) -> HttpResponse:
    chat = chat_or_404(request, chat_id)
    archived = request.POST.get("archived") != "0"
    update(request, chat, {"archived": archived})
    if archived:
        flash.success(request, f"Archived {chat.name}: find it under Archived on the chat list.")
    return redirect("chat-page", chat_id=chat.pk)


@login_required
@require_POST
def delete_chat(request: HttpRequest, chat_id: str) -> HttpResponse:
    name = chat_or_404(request, chat_id).name
    delete_or_404(request, chat_id)
    flash.success(request, f"Deleted {name}.")
    return redirect("chat-list")


@login_required
@require_POST
def selected_chats(request: HttpRequest) -> HttpResponse:
    """The chat list's selection: archive, unarchive or delete every chosen chat."""
    form = SelectedForm(request.user, request.POST)
    if not form.is_valid():
        flash.error(request, "Choose one or more of your chats first.")
        return redirect("chat-list")
    action, ids = form.cleaned_data["action"], form.cleaned_data["chats"][:MOST_SELECTED]
    for chat_id in ids:  # each its own transaction, under its row lock
        if action == "delete":
            delete_or_404(request, chat_id)
        else:
            update(request, chat_or_404(request, chat_id), {"archived": action == "archive"})
    flash.success(request, f"{action.capitalize()}d {len(ids)} chat{'s' if len(ids) != 1 else ''}.")
    return redirect("chat-list")


def delete_or_404(request: HttpRequest, chat_id: str) -> None:
    """The one delete every face calls (it locks the chat's row first)."""
    try:
        check_delete_chat(request.user, chat_id)
    except Refusal as refusal:
        raise Http404 from refusal
