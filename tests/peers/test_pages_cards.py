"""Peer-message cards in the chat's conversation, rendered and re-rendered live."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from peers import actions
from peers import actions as delivery
from peers import actions as peer_actions
from peers.models import PeerMessage
from tests.peers.conftest import reachable, running

HTMX = {"HTTP_HX_REQUEST": "true"}


def conversation(client, chat) -> str:
    response = client.get(f"/chats/{chat.pk}/conversation/", **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def card(html: str, message: PeerMessage) -> str:
    """The one card of this message: from its id to the next entry."""
    start = html.index(f'id="card-{message.pk}"')
    end = html.find("<article", start)
    return html[start : end if end != -1 else None]


def test_it_shows_a_received_message_as_a_card_naming_the_sender(sender, recipient, owner_client):
    message = actions.check_send_message(sender, to=recipient.pk, text="Which port?")

    html = conversation(owner_client, recipient)

    assert 'class="entry entry-peer_in theirs"' in html
    assert f'id="card-{message.pk}"' in html
    assert "From" in html and ">checkout</a>" in html
    assert 'title="shop-web · feat/cart · Idle"' in html
    assert "Which port?" in html
    assert '<span class="badge state-queued">Queued — waking it</span>' in html


def test_it_shows_a_sent_message_with_whom_it_went_to(sender, recipient, owner_client):
    actions.check_send_message(sender, to=recipient.pk, text="Renamed cart_id")

    html = conversation(owner_client, sender)

    assert 'class="entry entry-peer_out theirs"' in html
    assert "To" in html and ">payments-api</a>" in html
    assert 'title="payments · main · Idle"' in html
    assert "Queued — waking it" in html


def test_it_updates_the_card_after_a_state_change(sender, recipient, owner_client):
    running(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="heads up")
    assert "Pending — its next step takes it" in conversation(owner_client, sender)
    assert "Cancel</button>" in conversation(owner_client, sender)

    delivery.deliver_between_steps(recipient)

    html = conversation(owner_client, sender)
    assert '<span class="badge state-delivered">Delivered — between steps</span>' in html
    assert "Cancel</button>" not in html
    received = conversation(owner_client, recipient)
    assert "reached the agent at" in received and "not answered yet" in received

    actions.check_send_message(recipient, to=sender.pk, text="noted", reply_to=message.pk)
    assert "this chat answered" in conversation(owner_client, recipient)


def test_it_puts_the_awaited_answer_in_the_same_card(sender, recipient, owner_client):
    question = actions.check_send_message(sender, to=recipient.pk, text="port?", wait_seconds=30)
    answer = actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=question.pk)
    delivery.take_awaited_answer(question)

    html = conversation(owner_client, sender)

    own_card = card(html, question)
    assert "Answer from payments-api" in own_card and "8080" in own_card
    assert f'id="card-{answer.pk}"' in html  # the answer also arrived as its own card


def test_it_names_you_as_that_chat_or_you(owner, sender, recipient, owner_client):
    actions.check_send_as_person(owner, from_chat=sender.pk, to=recipient.pk, text="as checkout")
    actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="from me")

    received = conversation(owner_client, recipient)
    sent = conversation(owner_client, sender)

    assert '<span class="peer-name">You, as</span>' in received
    assert '<span class="peer-name">You</span>' in received
    assert "· You, as this chat" in sent


def test_it_links_every_card_to_the_peers_tab_at_that_chat(sender, recipient, owner_client):
    actions.check_send_message(sender, to=recipient.pk, text="hi")

    html = conversation(owner_client, recipient)

    assert f'href="/chats/{recipient.pk}/?peer={sender.pk}#peers-tab"' in html
    assert f'hx-get="/chats/{recipient.pk}/peers/?peer={sender.pk}"' in html


def test_it_loads_all_cards_messages_in_one_query(owner, sender, recipient, owner_client):
    for n in range(5):
        actions.check_send_message(sender, to=recipient.pk, text=f"message {n}")
    with CaptureQueriesContext(connection) as queries:
        conversation(owner_client, recipient)
    peer_queries = [q for q in queries if 'FROM "peers_peermessage"' in q["sql"]]
    assert len(peer_queries) == 1


def test_it_cancels_a_queued_message_from_its_card(sender, recipient, owner_client):
    peer_actions.check_stop_chat(recipient)
    reachable(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="later")
    assert "Queued — held until you write" in conversation(owner_client, recipient)

    response = owner_client.post(f"/chats/{recipient.pk}/messages/{message.pk}/cancel/", **HTMX)

    assert response.status_code == 200
    assert "live-message" in response["HX-Trigger"]
    message.refresh_from_db()
    assert message.state == "cancelled"
    assert "Cancelled — removed from the queue" in conversation(owner_client, recipient)


def test_it_shows_the_refusal_when_cancelling_a_delivered_message(sender, recipient, owner_client):
    running(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="hi")
    delivery.deliver_between_steps(recipient)

    response = owner_client.post(f"/chats/{sender.pk}/messages/{message.pk}/cancel/", **HTMX)

    assert response.status_code == 200
    assert "already reached its agent" in response.content.decode()


def test_it_cancels_without_htmx_and_returns_to_the_chat(sender, recipient, owner_client):
    peer_actions.check_stop_chat(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="later")

    response = owner_client.post(f"/chats/{sender.pk}/messages/{message.pk}/cancel/")

    assert response.status_code == 302 and response["Location"] == f"/chats/{sender.pk}/"
    message.refresh_from_db()
    assert message.state == "cancelled"
