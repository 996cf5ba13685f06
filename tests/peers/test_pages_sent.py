"""The Send form's status line: the message's Cancel comes with the send's answer, and
the line follows the message's state (refetched on every hint and every resync)."""

import re

from peers import actions
from peers.models import PeerMessage
from tests.peers.conftest import running

HTMX = {"HTTP_HX_REQUEST": "true"}


def send(client, sender, recipient, text: str = "which port?", *, as_: str = "chat"):
    response = client.post(
        f"/chats/{sender.pk}/peers/send/",
        {"to": recipient.pk, "sender": as_, "text": text},
        **HTMX,
    )
    assert response.status_code == 200
    return response.content.decode(), PeerMessage.objects.get(text=text)


def status_line(client, chat, message) -> str:
    response = client.get(f"/chats/{chat.pk}/messages/{message.pk}/", **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def cancel_url(chat, message) -> str:
    return f"/chats/{chat.pk}/messages/{message.pk}/cancel/"


def test_it_answers_a_send_with_the_messages_cancel(sender, recipient, owner_client):
    running(recipient)

    html, message = send(owner_client, sender, recipient)

    line = html[html.index('id="peers-sent"') : html.index('<form id="peers-send"')]
    assert message.state == PeerMessage.State.PENDING
    assert "Sent to payments-api:" in line
    assert "Pending — its next step takes it" in line
    assert f'hx-post="{cancel_url(sender, message)}"' in line and "Cancel</button>" in line
    # It follows the message: every message hint and every resync refetch it.
    assert f'hx-get="/chats/{sender.pk}/messages/{message.pk}/"' in line
    trigger = re.search(r'hx-trigger="([^"]*)"', line)[1]
    assert trigger == "live-message from:body, live-resync from:body"
    # The Cancel is a form of its own, outside the Send form (forms do not nest).
    assert html.index('id="peers-sent"') < html.index('<form id="peers-send"')


def test_it_follows_the_message_to_delivered_then_answered(sender, recipient, owner_client):
    turn = running(recipient)
    _, message = send(owner_client, sender, recipient)

    actions.deliver_between_steps(recipient)
    delivered = status_line(owner_client, sender, message)
    turn.final_text = "8080"
    actions.answer_from_final_text(turn)
    answered = status_line(owner_client, sender, message)

    assert "Delivered — between steps" in delivered and "answered" not in delivered
    assert "Cancel</button>" not in delivered
    assert "Delivered — between steps" in answered and "· answered" in answered
    # The whole line, which takes the place of the one on the page (and listens on).
    assert answered.lstrip().startswith('<div id="peers-sent"') and "live-resync" in answered


def test_it_cancels_from_the_status_line(sender, recipient, owner_client):
    running(recipient)
    _, message = send(owner_client, sender, recipient)

    response = owner_client.post(cancel_url(sender, message), **HTMX)

    assert response.status_code == 200 and "live-message" in response["HX-Trigger"]
    line = status_line(owner_client, sender, message)
    assert "Cancelled — before it arrived" in line and "Cancel</button>" not in line
    actions.deliver_between_steps(recipient)
    message.refresh_from_db()
    assert message.state == PeerMessage.State.CANCELLED and message.delivered_at is None


def test_it_offers_remove_for_a_held_message(sender, recipient, owner_client):
    actions.check_stop_chat(recipient)

    html, message = send(owner_client, sender, recipient, "later")

    assert "Queued — held until you write" in html
    assert f'hx-post="{cancel_url(sender, message)}"' in html and "Remove</button>" in html


def test_it_follows_a_message_sent_as_yourself_through_the_chat_it_went_to(
    sender, recipient, owner_client
):
    """Sent as yourself from checkout's page, the message is not checkout's: its line
    and Cancel go through payments-api, the chat it went to, and both work."""
    running(recipient)
    html, message = send(owner_client, sender, recipient, "from me", as_="you")
    line = html[html.index('id="peers-sent"') : html.index('<form id="peers-send"')]

    assert "Pending — its next step takes it" in line
    assert f'href="/chats/{recipient.pk}/#peer-group-you"' in line
    assert f'hx-get="/chats/{recipient.pk}/messages/{message.pk}/"' in line
    assert f'hx-post="{cancel_url(recipient, message)}"' in line
    assert "Pending" in status_line(owner_client, recipient, message)
    assert owner_client.post(cancel_url(recipient, message), **HTMX).status_code == 200
    assert "Cancelled — before it arrived" in status_line(owner_client, recipient, message)


def test_it_shows_the_line_from_the_recipients_page_too(sender, recipient, owner_client):
    _, message = send(owner_client, sender, recipient, "both ends")
    assert "Sent to payments-api:" in status_line(owner_client, recipient, message)
