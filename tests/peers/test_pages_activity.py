"""The activity page: the account's rows in words, newest first, by chat and action,
50 a page, live."""

import contextlib
from datetime import timedelta

import time_machine
from django.utils import timezone

from chats.actions import claim_next_turn
from kernel.refusals import Refusal
from peers import actions
from peers import actions as delivery
from peers import actions as peer_actions
from peers.models import Activity
from tests.conftest import make_chat

HTMX = {"HTTP_HX_REQUEST": "true"}
CODES = ("turn_prompt", "waiting_call", "empty_message", ">message<", ">switch<")


def test_it_needs_a_login(client):
    response = client.get("/activity/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_it_says_each_row_in_words_with_links(sender, recipient, outsider_chat, owner_client):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        message = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    with time_machine.travel(start + timedelta(minutes=1), tick=False):
        peer_actions.do_set_peers(recipient, enabled=False)
    peer_actions.do_set_peers(outsider_chat, enabled=False)

    html = owner_client.get("/activity/").content.decode()

    assert 'data-live-socket="/ws/chats/"' in html
    assert html.index("turned off for") < html.index("“which port?”")
    # The message is a link to its card; both chats are links to their pages.
    assert f'href="/chats/{sender.pk}/#tab-msg-{message.pk}"' in html
    assert f'<a class="peer-name" dir="auto" href="/chats/{sender.pk}/">checkout</a> sent' in html
    assert (
        f'to <a class="peer-name" dir="auto" href="/chats/{recipient.pk}/">payments-api</a>' in html
    )
    assert outsider_chat.pk not in html and "secret" not in html
    assert not any(code in html for code in CODES)


def test_it_says_deliveries_answers_to_you_and_refusals_in_words(
    owner, sender, recipient, owner_client
):
    actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="status?")
    turn = claim_next_turn("tests")
    delivery.take_for_turn(turn)
    turn.final_text = "all green"
    delivery.answer_from_final_text(turn)
    with contextlib.suppress(Refusal):
        actions.check_send_message(sender, to=recipient.pk, text="   ")

    html = owner_client.get("/activity/").content.decode()

    assert 'reached <a class="peer-name" dir="auto"' in html and "as a turn&#x27;s prompt" in html
    assert '“all green”</a> to <span class="peer-name" dir="auto">you</span>' in html
    assert "was refused: the message was empty" in html
    assert not any(code in html for code in CODES)


def test_it_filters_by_chat_and_by_action(owner, sender, recipient, owner_client):
    third = make_chat(owner, "search", peers=True)
    actions.check_send_message(sender, to=recipient.pk, text="hi")
    peer_actions.do_set_peers(third, enabled=False)

    html = owner_client.get(f"/activity/?chat={recipient.pk}").content.decode()

    assert "“hi”" in html and "turned off" not in html
    assert f'<option value="{recipient.pk}" selected>' in html
    only_third = owner_client.get(f"/activity/?chat={third.pk}").content.decode()
    assert "turned off" in only_third and "“hi”" not in only_third
    switches = owner_client.get("/activity/?action=switch").content.decode()
    assert "turned off" in switches and "“hi”" not in switches
    assert '<option value="switch" selected>' in switches


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

    first = owner_client.get("/activity/?action=list").content.decode()
    second = owner_client.get("/activity/?action=list&page=2").content.decode()

    assert first.count('<li class="activity-row') == 50
    assert "Page 1 of 2" in first and "?action=list&amp;page=2" in first
    assert second.count('<li class="activity-row') == 5


def test_it_serves_the_rows_partial_for_live_refresh(sender, recipient, owner_client):
    html = owner_client.get("/activity/").content.decode()
    assert 'hx-get="/activity/rows/?page=1"' in html
    assert "live-message from:body" in html and "live-resync from:body" in html

    actions.check_send_message(sender, to=recipient.pk, text="hi")
    rows = owner_client.get(f"/activity/rows/?chat={sender.pk}&page=1", **HTMX).content.decode()

    assert rows.lstrip().startswith('<ol class="activity-list"')
    assert "“hi”" in rows and "<html" not in rows
    page = owner_client.get(f"/activity/?chat={sender.pk}").content.decode()
    assert f'hx-get="/activity/rows/?chat={sender.pk}&amp;page=1"' in page
