"""The activity page: the account's rows, newest first, by chat, 50 a page, live."""

from datetime import timedelta

import time_machine
from django.utils import timezone

from peers import actions
from peers import actions as peer_actions
from peers.models import Activity
from tests.conftest import make_chat

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_it_needs_a_login(client):
    response = client.get("/activity/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_it_lists_the_accounts_rows_newest_first(sender, recipient, outsider_chat, owner_client):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        message = actions.check_send_message(sender, to=recipient.pk, text="hi")
    with time_machine.travel(start + timedelta(minutes=1), tick=False):
        peer_actions.do_set_peers(recipient, enabled=False)
    peer_actions.do_set_peers(outsider_chat, enabled=False)

    html = owner_client.get("/activity/").content.decode()

    assert 'data-live-socket="/ws/chats/"' in html
    assert html.index(">switch<") < html.index(">message<")
    assert f"<code>{message.pk}</code>" in html
    assert f'<a href="/chats/{sender.pk}/">checkout</a>' in html
    assert f'<a href="/chats/{recipient.pk}/">payments-api</a>' in html
    assert outsider_chat.pk not in html and "secret" not in html


def test_it_filters_by_chat(owner, sender, recipient, owner_client):
    third = make_chat(owner, "search", peers=True)
    actions.check_send_message(sender, to=recipient.pk, text="hi")
    peer_actions.do_set_peers(third, enabled=False)

    html = owner_client.get(f"/activity/?chat={recipient.pk}").content.decode()

    assert ">message<" in html and ">switch<" not in html
    assert f'<option value="{recipient.pk}" selected>' in html
    only_third = owner_client.get(f"/activity/?chat={third.pk}").content.decode()
    assert ">switch<" in only_third and ">message<" not in only_third


def test_it_paginates_fifty_a_page(owner, chat, owner_client):
    start = timezone.now()
    for n in range(55):
        Activity.objects.create(
            user=owner,
            chat=chat,
            action="list",
            detail=f"row {n}",
            created_at=start + timedelta(seconds=n),
        )

    first = owner_client.get("/activity/").content.decode()
    second = owner_client.get("/activity/?page=2").content.decode()

    assert first.count('<tr class="action-') == 50 and "row 54" in first
    assert "Page 1 of 2" in first and "?page=2" in first
    assert second.count('<tr class="action-') == 5 and "row 0" in second


def test_it_serves_the_rows_partial_for_live_refresh(sender, recipient, owner_client):
    html = owner_client.get("/activity/").content.decode()
    assert 'hx-get="/activity/rows/?page=1"' in html
    assert "live-message from:body" in html and "live-resync from:body" in html

    actions.check_send_message(sender, to=recipient.pk, text="hi")
    rows = owner_client.get(f"/activity/rows/?chat={sender.pk}&page=1", **HTMX).content.decode()

    assert rows.lstrip().startswith('<div id="activity-rows"')
    assert ">message<" in rows and "<html" not in rows
    assert f'hx-get="/activity/rows/?chat={sender.pk}&amp;page=1"' in rows
