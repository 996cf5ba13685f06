"""Rename, archive and delete from the pages: the ⋯ menu and the chat list's selection."""

import pytest

from chats.models import Chat
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db


def test_the_menu_offers_rename_archive_and_a_delete_that_says_what_it_does(owner_client, chat):
    html = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    assert f'action="/chats/{chat.pk}/rename/"' in html and ">Archive<" in html
    assert "a deleted chat" in html and f'action="/chats/{chat.pk}/delete/"' in html


def test_it_renames_from_the_menu(owner_client, chat, other_chat):
    response = owner_client.post(f"/chats/{chat.pk}/rename/", {"name": "till"})
    assert response.status_code == 302 and Chat.objects.get(pk=chat.pk).name == "till"
    owner_client.post(f"/chats/{chat.pk}/rename/", {"name": "payments-api"})
    assert Chat.objects.get(pk=chat.pk).name == "till"  # taken: refused, said in a flash


def test_archived_chats_leave_the_list_rail_and_switcher(owner_client, chat, other_chat):
    owner_client.post(f"/chats/{chat.pk}/archive/", {"archived": "1"})
    listing = owner_client.get("/chats/").content.decode()
    assert f'id="chat-card-{chat.pk}"' not in listing and "Archived (1)" in listing
    assert f'data-chat="{chat.pk}"' not in owner_client.get("/switch/").content.decode()
    archived = owner_client.get("/chats/?archived=1").content.decode()
    assert f'id="chat-card-{chat.pk}"' in archived
    assert f'id="chat-card-{other_chat.pk}"' not in archived
    assert ">Unarchive<" in owner_client.get(f"/chats/{chat.pk}/").content.decode()
    owner_client.post(f"/chats/{chat.pk}/archive/", {"archived": "0"})
    assert f'id="chat-card-{chat.pk}"' in owner_client.get("/chats/").content.decode()


def test_it_deletes_from_the_menu(owner_client, chat):
    response = owner_client.post(f"/chats/{chat.pk}/delete/")
    assert response.status_code == 302 and response.url == "/chats/"
    assert owner_client.get(f"/chats/{chat.pk}/").status_code == 404


def test_the_selection_archives_and_deletes_many(owner, owner_client, chat, other_chat):
    third = make_chat(owner, "third")
    ids = [chat.pk, other_chat.pk]
    owner_client.post("/chats/selected/", {"chats": ids, "action": "archive"})
    assert set(Chat.objects.filter(archived=True).values_list("pk", flat=True)) == set(ids)
    owner_client.post("/chats/selected/", {"chats": ids, "action": "delete"})
    assert set(Chat.objects.filter(deleted_at__isnull=False).values_list("pk", flat=True)) == set(
        ids
    )
    assert Chat.objects.get(pk=third.pk).deleted_at is None


def test_another_accounts_chat_is_not_found_on_every_route(outsider_client, chat):
    for route in ("rename", "archive", "delete"):
        response = outsider_client.post(f"/chats/{chat.pk}/{route}/", {"name": "x"})
        assert response.status_code == 404, route
    outsider_client.post("/chats/selected/", {"chats": [chat.pk], "action": "delete"})
    fresh = Chat.objects.get(pk=chat.pk)
    assert fresh.deleted_at is None and not fresh.archived and fresh.name == "checkout"


def test_a_deleted_chat_is_named_so_in_the_other_chats_history(owner, owner_client, chat):
    from peers.actions import check_send_message
    from tests.peers.conftest import reachable

    other = make_chat(owner, "payments-api", peers=True)
    reachable(chat, other)
    check_send_message(chat, to=other.pk, text="schema moved")
    owner_client.post(f"/chats/{chat.pk}/delete/")
    html = owner_client.get(f"/chats/{other.pk}/").content.decode()
    assert "a deleted chat" in html and "schema moved" in html


def test_the_django_admin_renames_archives_and_deletes(admin_client, chat, other_chat):
    url = f"/django-admin/chats/chat/{chat.pk}/change/"
    assert admin_client.post(url, {"name": "till", "archived": "on"}).status_code == 302
    fresh = Chat.objects.get(pk=chat.pk)
    assert fresh.name == "till" and fresh.archived
    changelist = "/django-admin/chats/chat/"
    action = {"action": "unarchive", "_selected_action": [chat.pk]}
    admin_client.post(changelist, action)
    assert not Chat.objects.get(pk=chat.pk).archived
    admin_client.post(changelist, {"action": "delete_for_good", "_selected_action": [chat.pk]})
    gone = Chat.objects.get(pk=chat.pk)
    assert gone.deleted_at is not None and gone.name == "a deleted chat"
    assert Chat.objects.get(pk=other_chat.pk).deleted_at is None


def test_a_name_too_long_is_refused_in_the_words_it_breaks(owner_client, chat):
    response = owner_client.post(f"/chats/{chat.pk}/rename/", {"name": "n" * 81}, follow=True)
    assert "at most 80 characters" in response.content.decode()
    chat.refresh_from_db()
    assert chat.name == "checkout"
