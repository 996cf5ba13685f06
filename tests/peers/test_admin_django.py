"""Django admin for chats, messages and activity: read-only, no N+1, a message's history."""

import re

import pytest
from django.contrib.admin.utils import quote
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from peers import actions
from peers.models import PeerMessage
from tests.peers.test_admin_page import add_messages

CHANGELISTS = [
    "/django-admin/peers/peermessage/",
    "/django-admin/peers/activity/",
    "/django-admin/chats/chat/",
]


def count_queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured)


@pytest.mark.parametrize("url", CHANGELISTS)
def test_it_lists_many_rows_in_the_same_queries_as_few(url, admin_client, owner):
    add_messages(owner, 3, start=0)
    few = count_queries(admin_client, url)
    add_messages(owner, 40, start=1)
    add_messages(owner, 40, start=2)
    assert count_queries(admin_client, url) == few
    assert few <= 12


def test_it_filters_and_searches_messages(admin_client, sender, recipient):
    message = actions.check_send_message(sender, to=recipient.pk, text="Which port?")
    found = admin_client.get("/django-admin/peers/peermessage/?q=port&state__exact=queued")
    assert message.pk in found.content.decode()
    missed = admin_client.get("/django-admin/peers/peermessage/?q=port&state__exact=pending")
    assert message.pk not in missed.content.decode()


def change_url(message) -> str:
    """As admin links it: quote() escapes the "_" of "msg_<hex>" (a raw "msg_40…" reads as
    "msg@…" and the page redirects as if the message did not exist)."""
    return reverse("admin:peers_peermessage_change", args=[quote(message.pk)])


def test_it_the_activity_list_opens_a_message_whose_id_admin_would_misread(
    admin_client, sender, recipient, monkeypatch
):
    field = PeerMessage._meta.get_field("id")
    monkeypatch.setattr(field, "_get_default", lambda: "msg_40ffffffffffffff")
    message = actions.check_send_message(sender, to=recipient.pk, text="Which port?")
    assert message.pk == "msg_40ffffffffffffff"
    page = admin_client.get("/django-admin/peers/activity/").content.decode()
    link = re.search(r'href="(/django-admin/peers/peermessage/[^"]+/change/)"', page)
    detail = admin_client.get(link.group(1))
    assert detail.status_code == 200 and b"Which port?" in detail.content


def test_it_shows_a_messages_state_history(admin_client, sender, recipient):
    message = actions.check_send_message(sender, to=recipient.pk, text="Which port?")
    actions.check_cancel_message(sender.user, message_id=message.pk)
    page = admin_client.get(change_url(message))
    text = page.content.decode()
    assert "state history" in text.lower()
    assert text.index(">sent<") < text.index(">cancelled<")
    # Said once, not "cancelled" and then "now Cancelled"; times to the second, no microseconds.
    history = text[text.index("<th>When</th>") :].split("</table>")[0]
    assert history.count(">cancelled<") == 1 and ">now<" not in history
    assert not re.search(r"\d\d:\d\d:\d\d\.\d{6}", text)
    assert admin_client.get("/django-admin/peers/peermessage/add/").status_code == 403


def test_it_a_held_message_says_where_it_stands_now_in_words(admin_client, sender, recipient):
    actions.check_stop_chat(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="Which port?")
    text = admin_client.get(change_url(message))
    assert "Queued — held until you write" in text.content.decode()


def test_it_the_limits_offer_no_add_and_no_list_of_one(admin_client):
    index = admin_client.get("/django-admin/").content.decode()
    assert "/django-admin/peers/limits/add/" not in index
    assert admin_client.get("/django-admin/peers/limits/add/").status_code == 403
    first = admin_client.get("/django-admin/peers/limits/")
    assert first.status_code == 302 and first["Location"] == "/internal/admin/peers#limits"
    actions.do_set_limits({"chat_per_hour": 30})
    then = admin_client.get("/django-admin/peers/limits/", follow=True)
    assert then.redirect_chain[-1][0] == "/django-admin/peers/limits/1/change/"
    assert "1 limits" not in then.content.decode()


def test_it_keeps_activity_read_only(admin_client, owner):
    add_messages(owner, 1, start=0)
    assert admin_client.get("/django-admin/peers/activity/add/").status_code == 403
