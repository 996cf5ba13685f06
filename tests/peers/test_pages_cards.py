"""One card per peer message, from one partial, in the conversation and the Peers tab."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from chats import actions as chat_actions
from chats.actions import do_add_entry
from chats.models import Entry
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


def card(html: str, message: PeerMessage, place: str = "conversation") -> str:
    """The one card of this message in that place: from its id to its end."""
    start = html.index(f'id="{place}-msg-{message.pk}"')
    return html[start : html.index("</article>", start)]


def test_it_shows_a_received_message_as_a_card_naming_the_sender(sender, recipient, owner_client):
    message = actions.check_send_message(sender, to=recipient.pk, text="Which port?")

    html = card(conversation(owner_client, recipient), message)

    assert "From</span>" in html and ">checkout</a>" in html
    assert 'title="shop-web · feat/cart · Idle"' in html
    assert "Which port?" in html
    assert '<span class="state-word state-queued">Queued — waking it</span>' in html


def test_it_shows_a_sent_message_with_whom_it_went_to(sender, recipient, owner_client):
    message = actions.check_send_message(sender, to=recipient.pk, text="Renamed cart_id")

    html = card(conversation(owner_client, sender), message)

    assert "To</span>" in html and ">payments-api</a>" in html
    assert 'title="payments · main · Idle"' in html
    assert "Queued — waking it" in html and "Cancel</button>" in html


def test_it_renders_one_card_a_message_and_the_tab_as_its_filter(sender, recipient, owner_client):
    running(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="heads up")
    html = conversation(owner_client, sender)

    in_card = card(html, message)
    assert "Pending — its next step takes it" in in_card
    # The conversation's answer carries the tab too: one read, so one count on the page.
    assert '<div id="peers-messages" hx-swap-oob="innerHTML">' in html
    assert in_card.split("<header", 1)[1].split("</footer>")[0].count("state-word") == 1
    assert html.count(f'data-message="{message.pk}"') == 1  # no second copy in the tab
    assert f"?peer={recipient.pk}#conversation" in html and "1 message<" in html

    delivery.deliver_between_steps(recipient)

    shown = card(conversation(owner_client, sender), message)
    assert '<span class="state-word state-delivered">Delivered — between steps</span>' in shown
    assert "Cancel</button>" not in shown
    assert "not answered yet" in card(conversation(owner_client, recipient), message)


def test_it_shows_an_answer_once_inside_the_card_it_answers(sender, recipient, owner_client):
    question = actions.check_send_message(sender, to=recipient.pk, text="port?", wait_seconds=30)
    answer = actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=question.pk)
    delivery.take_awaited_answer(question)
    # The demo agent then says the answer, in an entry linked to it, and goes on.
    do_add_entry(
        sender, kind=Entry.Kind.ANSWER, text="payments-api answered: 8080", message_id=answer.pk
    )
    do_add_entry(sender, kind=Entry.Kind.ANSWER, text="Worked 1 step.")

    for chat in (sender, recipient):
        html = conversation(owner_client, chat)
        own_card = card(html, question)
        assert "payments-api answered" in own_card and "<p>8080</p>" in own_card
        assert f'id="conversation-msg-{answer.pk}"' in own_card  # inside, not on its own
        assert html.count("<p>8080</p>") == 1  # once, in the card: the tab is a filter
        assert html.count(f'data-message="{answer.pk}"') == 1
    sender_html = conversation(owner_client, sender)
    assert "payments-api answered: 8080" not in sender_html and "Worked 1 step." in sender_html


def test_it_decides_what_repeats_the_answer_from_the_link_not_the_words(
    sender, recipient, owner_client
):
    question = actions.check_send_message(sender, to=recipient.pk, text="port?", wait_seconds=30)
    answer = actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=question.pk)
    # Same words, no link: the agent said it itself, so it shows; linked, it is the answer.
    do_add_entry(sender, kind=Entry.Kind.ANSWER, text="payments-api answered: 8080")
    do_add_entry(sender, kind=Entry.Kind.ANSWER, text="Relayed.", message_id=answer.pk)

    html = conversation(owner_client, sender)

    assert html.count("entry-answer") == 1
    assert "payments-api answered: 8080" in html and "Relayed." not in html


def test_it_the_turn_text_that_became_an_answer_shows_once_in_its_card(
    sender, recipient, owner_client
):
    """#4: a turn woken by a message answers it; that text is the answer, shown in the
    card, and never as the asking chat's own words nor twice in the answering chat."""
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    turn = chat_actions.claim_next_turn("tests")
    delivery.take_for_turn(turn)
    chat_actions.do_mark_turn_done(turn, final_text="It listens on 8080.")
    turn.refresh_from_db()

    (answer,) = delivery.answer_from_final_text(turn)
    assert answer.reply_to_id == question.pk

    assert Entry.objects.filter(chat=recipient).last().message_id == answer.pk
    for chat in (sender, recipient):
        entries = conversation(owner_client, chat).split("hx-swap-oob")[0]
        assert "entry-answer" not in entries
        assert entries.count("It listens on 8080.") == 1


def test_it_the_persons_prompt_keeps_its_answer_when_a_message_joins_the_turn(
    sender, recipient, owner_client
):
    """Issue 34: the person prompts `work 4`, a message joins between steps; the final
    text answers the prompt in the conversation, and the sender in its card."""
    turn = running(recipient, "work 4")
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    delivery.deliver_between_steps(recipient)
    chat_actions.do_mark_turn_done(turn, final_text="Worked 4 steps.")
    turn.refresh_from_db()

    (answer,) = delivery.answer_from_final_text(turn)
    assert answer.reply_to_id == question.pk

    own = Entry.objects.filter(chat=recipient).exclude(kind=Entry.Kind.PEER_OUT)
    kinds = [(e.kind, e.text) for e in own]
    assert kinds[0] == (Entry.Kind.PROMPT, "work 4")
    assert kinds[-2:] == [
        (Entry.Kind.ANSWER, "Worked 4 steps."),
        (Entry.Kind.NOTICE, "Answered your prompt and 1 message"),
    ]
    answered = conversation(owner_client, recipient).split("hx-swap-oob")[0]
    assert answered.count("entry-answer") == 1  # under the prompt, after the message
    assert answered.index("work 4") < answered.index("which port?") < answered.index("entry-answer")
    assert "Answered your prompt and 1 message" in answered
    assert "Worked 4 steps." in card(answered, question)
    asked = conversation(owner_client, sender).split("hx-swap-oob")[0]
    assert "entry-answer" not in asked
    assert "Worked 4 steps." in card(asked, question)


def test_it_names_you_as_that_chat_or_you(owner, sender, recipient, owner_client):
    actions.check_send_as_person(owner, from_chat=sender.pk, to=recipient.pk, text="as checkout")
    actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="from me")

    received = conversation(owner_client, recipient)
    sent = conversation(owner_client, sender)

    assert '<span class="msg-by">· You, as checkout</span>' in received
    assert '<span class="peer-name" dir="auto">You</span>' in received
    assert "· You, as checkout" in sent


def test_it_links_every_card_to_its_group_in_the_peers_tab(sender, recipient, owner_client):
    actions.check_send_message(sender, to=recipient.pk, text="hi")

    html = conversation(owner_client, recipient)

    assert f'href="#peer-group-{sender.pk}">In the Peers tab</a>' in html
    assert f'id="peer-group-{sender.pk}"' in html


def test_it_reads_the_cards_in_as_many_queries_for_one_message_as_for_five(
    owner, sender, recipient, owner_client
):
    def peer_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            conversation(owner_client, recipient)
        return len([q for q in queries if 'FROM "peers_peermessage"' in q["sql"]])

    actions.check_send_message(sender, to=recipient.pk, text="message 0")
    one = peer_queries()
    for n in range(1, 5):
        actions.check_send_message(sender, to=recipient.pk, text=f"message {n}")
    assert peer_queries() == one


def test_it_offers_send_on_and_remove_for_a_held_message(sender, recipient, owner_client):
    peer_actions.check_stop_chat(recipient)
    reachable(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="later")

    for chat in (sender, recipient):
        held = card(conversation(owner_client, chat), message)
        assert "Queued — held until you write" in held
        assert "Remove</button>" in held and "Cancel</button>" not in held
    # Send on goes with the next prompt of the chat it waits for: only on that side, never
    # on the sender's card (where it opened the other chat's composer).
    held = card(conversation(owner_client, recipient), message)
    assert "Send on with my next message</a>" in held
    assert f'href="/chats/{recipient.pk}/#composer-text"' in held
    assert "Send on with my next message" not in card(conversation(owner_client, sender), message)

    response = owner_client.post(f"/chats/{recipient.pk}/messages/{message.pk}/cancel/", **HTMX)

    assert response.status_code == 200
    assert "live-message" in response["HX-Trigger"]
    message.refresh_from_db()
    assert message.state == "cancelled"
    assert "Cancelled — removed from the queue" in conversation(owner_client, recipient)


def test_it_counts_held_messages_in_the_page_title(owner, sender, recipient, owner_client):
    peer_actions.check_stop_chat(recipient)
    reachable(recipient)
    actions.check_send_message(sender, to=recipient.pk, text="later")
    actions.check_send_message(sender, to=recipient.pk, text="and this")

    page = owner_client.get(f"/chats/{sender.pk}/").content.decode()

    assert "<title>(2) checkout · Crosstalk</title>" in page
    assert 'id="waiting-for-you" hidden data-count="2" hx-swap-oob="true"' in conversation(
        owner_client, sender
    )


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
