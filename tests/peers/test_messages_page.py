"""The Messages page: every message of the account, filtered and searched, paginated."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from peers import actions
from tests.peers.test_admin_page import add_messages


def page(client, query: str = "") -> str:
    response = client.get(f"/messages/{query}")
    assert response.status_code == 200
    return response.content.decode()


def test_it_lists_every_message_both_ways_with_state_and_answer(
    owner_client, owner, sender, recipient
):
    asked = actions.check_send_message(sender, to=recipient.pk, text="Which port?")
    actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=asked.pk)
    actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="from me")
    actions.check_send_as_person(owner, from_chat=sender.pk, to=recipient.pk, text="as it")

    html = page(owner_client)

    assert "4 messages, newest first" in html
    assert "You, as checkout" in html and '<span class="peer-name" dir="auto">You</span>' in html
    assert "Queued" in html and "Not answered" in html
    assert 'href="/messages/"' in page(owner_client, "?q=port")  # in the top bar
    assert 'aria-current="page">Messages' in html


def test_it_filters_by_sender_state_chat_and_words(owner_client, owner, sender, recipient):
    actions.check_send_message(sender, to=recipient.pk, text="agent says port")
    actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="person says cart")
    cancelled = actions.check_send_as_person(
        owner, from_chat=sender.pk, to=recipient.pk, text="as chat says port"
    )
    actions.check_cancel_message(owner, message_id=cancelled.pk)

    assert "1 message," in page(owner_client, "?sender=agent")
    assert "person says cart" in page(owner_client, "?sender=person")
    assert "as chat says port" in page(owner_client, "?sender=person_as_chat&state=cancelled")
    found = page(owner_client, "?q=port")
    assert "2 messages with “port”, best match first" in found and "cart" not in found
    assert "0 messages" in page(owner_client, f"?q=port&chat={sender.pk}&state=delivered")
    assert "3 messages" in page(owner_client, "?state=bogus&sender=nobody")  # ignored


def test_it_another_accounts_chat_is_a_404_and_their_messages_never_show(
    owner_client, outsider_client, sender, recipient
):
    actions.check_send_message(sender, to=recipient.pk, text="secret plans")
    assert outsider_client.get(f"/messages/?chat={sender.pk}").status_code == 404
    assert "secret plans" not in page(outsider_client, "?q=secret")
    assert "secret plans" in page(owner_client, "?q=secret")


def test_it_a_bad_query_says_so_and_the_page_stays(owner_client, sender):
    html = page(owner_client, "?q=" + "a" * 600)
    assert "query: up to 500 characters" in html


def test_it_pages_in_the_same_queries_however_many(owner_client, owner):
    add_messages(owner, 10, start=0)
    with CaptureQueriesContext(connection) as few:
        page(owner_client)
    add_messages(owner, 80, start=1)
    with CaptureQueriesContext(connection) as many:
        html = page(owner_client, "?page=2")
    assert len(many) == len(few)
    assert "Page 2 of " in html
