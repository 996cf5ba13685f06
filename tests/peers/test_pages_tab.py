"""The Peers tab: the switch, messages grouped by chat, connect, send, cancel."""

from pathlib import Path

from chats.actions import claim_next_turn
from chats.models import Chat
from peers import actions
from peers import actions as delivery
from peers import actions as peer_actions
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable

HTMX = {"HTTP_HX_REQUEST": "true"}


def tab(client, chat, query: str = "") -> str:
    response = client.get(f"/chats/{chat.pk}/peers/{query}", **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def conversation(client, chat, query: str = "") -> str:
    response = client.get(f"/chats/{chat.pk}/conversation/{query}", **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def test_it_puts_the_tab_in_the_chat_pages_side_panel(chat, owner_client):
    html = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    assert '<section id="peers-tab"' in html
    assert html.index('<aside class="side-panel">') < html.index('id="peers-tab"')
    assert "crosstalk/peers.css" in html


def test_it_refreshes_the_tab_with_the_conversation_not_on_its_own(chat, owner_client):
    html = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    tab_html = html[html.index('<section id="peers-tab"') :]
    assert "hx-trigger" not in tab_html.split('<details class="peers-form-wrap"')[0]
    assert 'hx-include="#send-to, #connect-other"' in html
    oob = owner_client.get(f"/chats/{chat.pk}/conversation/", **HTMX).content.decode()
    assert '<div id="peers-live" hx-swap-oob="innerHTML">' in oob
    assert '<select hx-swap-oob="innerHTML:#send-to">' in oob


def test_it_serves_the_live_part_alone(chat, owner_client):
    html = owner_client.get(f"/chats/{chat.pk}/peers/live/", **HTMX).content.decode()
    assert 'role="switch"' in html
    assert "peers-connect" not in html


def test_it_the_tab_opened_directly_is_the_chat_page_never_a_bare_fragment(chat, owner_client):
    for path in ("peers/", "peers/live/"):
        response = owner_client.get(f"/chats/{chat.pk}/{path}")
        assert response.status_code == 302, path
        assert response.url == f"/chats/{chat.pk}/#peers-tab", path


def test_it_offers_the_same_chats_the_send_check_accepts(owner, sender, recipient, owner_client):
    never_ran = make_chat(owner, "never-ran", peers=True)
    off = make_chat(owner, "off", peers=False)
    reachable(off)

    oob = owner_client.get(f"/chats/{sender.pk}/conversation/?to={recipient.pk}", **HTMX)
    send_list = oob.content.decode().split('innerHTML:#send-to">')[1].split("</select>")[0]
    connect_list = oob.content.decode().split('innerHTML:#connect-other">')[1].split("</select>")[0]

    assert f'<option value="{recipient.pk}" selected>' in send_list
    assert never_ran.pk not in send_list and off.pk not in send_list
    assert off.pk in connect_list and never_ran.pk not in connect_list
    for chat in (never_ran, off):
        response = owner_client.post(
            f"/chats/{sender.pk}/peers/send/", {"to": chat.pk, "text": "hi"}, **HTMX
        )
        # In the person's words, not the agent's.
        assert "Not sent: the other chat has messaging off or has not run lately." in (
            response.content.decode()
        )
    assert not PeerMessage.objects.exists()


def test_it_groups_messages_by_the_other_chat_newest_first(owner, sender, recipient, owner_client):
    third = make_chat(owner, "search", peers=True)
    reachable(third)
    actions.check_send_message(sender, to=recipient.pk, text="first to payments")
    actions.check_send_message(recipient, to=sender.pk, text="payments answers")
    actions.check_send_message(third, to=sender.pk, text="search says hi")

    html = tab(owner_client, sender)

    assert html.index(f'id="peer-group-{third.pk}"') < html.index(f'id="peer-group-{recipient.pk}"')
    payments = html[html.index(f'id="peer-group-{recipient.pk}"') :]
    assert "2 messages" in payments and "1 message<" in html
    assert "max-height" not in Path("static/crosstalk/peers.css").read_text()
    # The tab filters the conversation, which holds the one card of each message.
    only = conversation(owner_client, sender, f"?peer={recipient.pk}")
    assert "first to payments" in only and "payments answers" in only
    assert "search says hi" not in only and "Only the messages with" in only
    assert "Queued — waking it" in conversation(owner_client, sender)
    assert "search says hi" not in html


def test_it_toggles_the_switch_from_the_tab(chat, owner_client):
    assert 'aria-checked="true"' in tab(owner_client, chat)

    response = owner_client.post(f"/chats/{chat.pk}/peers/", **HTMX)

    assert response.status_code == 204
    assert f"live-chat-{chat.pk}" in response["HX-Trigger"]
    chat.refresh_from_db()
    assert chat.peers is False
    assert 'aria-checked="false"' in tab(owner_client, chat)
    assert Activity.objects.filter(chat=chat, action="switch", detail="off").exists()

    owner_client.post(f"/chats/{chat.pk}/peers/", {"enabled": "on"}, **HTMX)
    chat.refresh_from_db()
    assert chat.peers is True


def test_it_connects_two_chats_with_a_brief(owner, chat, owner_client):
    other = make_chat(owner, "payments", peers=False)
    quiet = make_chat(owner, "never-ran", peers=False)
    reachable(chat, other)
    assert other.pk in tab(owner_client, chat) and quiet.pk not in tab(owner_client, chat)

    response = owner_client.post(
        f"/chats/{chat.pk}/peers/connect/",
        {"other": other.pk, "brief": "Agree on the port."},
        **HTMX,
    )

    assert response.status_code == 200
    assert "Connected: each chat got your brief." in response.content.decode()
    other.refresh_from_db()
    assert other.peers is True and Chat.objects.get(pk=chat.pk).peers is True
    briefs = PeerMessage.objects.filter(sent_by="person", from_chat=None)
    assert {m.to_chat_id for m in briefs} == {chat.pk, other.pk}
    assert all("Agree on the port." in m.text for m in briefs)
    assert "Agree on the port." in conversation(owner_client, chat)


def test_it_sends_as_this_chat(owner, sender, recipient, owner_client):
    response = owner_client.post(
        f"/chats/{sender.pk}/peers/send/",
        {"to": recipient.pk, "sender": "chat", "text": "from the tab"},
        **HTMX,
    )

    assert response.status_code == 200 and "live-message" in response["HX-Trigger"]
    message = PeerMessage.objects.get(text="from the tab")
    assert (message.sent_by, message.from_chat_id, message.to_chat_id) == (
        "person",
        sender.pk,
        recipient.pk,
    )
    assert "Sent to payments-api" in response.content.decode()
    assert "You, as checkout" in tab(owner_client, sender)


def test_it_sends_as_yourself(owner, sender, recipient, owner_client):
    owner_client.post(
        f"/chats/{sender.pk}/peers/send/",
        {"to": recipient.pk, "sender": "you", "text": "from me"},
        **HTMX,
    )

    message = PeerMessage.objects.get(text="from me")
    assert (message.sent_by, message.from_chat_id) == ("person", None)
    assert '<span class="peer-name" dir="auto">You</span>' in tab(owner_client, recipient)


def test_it_shows_answers_to_you_in_the_tab(owner, sender, recipient, owner_client):
    actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="status?")
    turn = claim_next_turn("tests")  # the wake the question asked for
    delivery.take_for_turn(turn)
    turn.final_text = "all green"
    [answer] = delivery.answer_from_final_text(turn)

    assert answer.to_chat_id is None
    assert 'id="peer-group-you"' in tab(owner_client, recipient)
    html = conversation(owner_client, recipient, "?peer=you")
    # The answer sits inside the card of the question, in the words for an answer to you.
    question = html[html.index("<p>status?</p>") :]
    assert "all green" in question and "Delivered — to you" in question
    cards = html.split('id="peers-live"')[0]  # before the out-of-band parts (the asks)
    assert f'id="conversation-msg-{answer.pk}"' in cards and cards.count("all green") == 1


def test_it_shows_a_refusal_inline_and_keeps_what_was_typed(sender, recipient, owner_client):
    response = owner_client.post(
        f"/chats/{sender.pk}/peers/send/",
        {"to": recipient.pk, "sender": "chat", "text": "   "},
        **HTMX,
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert "The message is empty; write what you need to say." in html
    assert f'<option value="{recipient.pk}" selected>' in html
    textarea = '<textarea id="send-text" name="text" rows="3" data-mentions="/chats/mentions/">'
    assert f"{textarea}   </textarea>" in html
    assert not PeerMessage.objects.exists()


def test_it_shows_a_connect_refusal_inline(owner, chat, other_chat, owner_client):
    reachable(other_chat)
    response = owner_client.post(
        f"/chats/{chat.pk}/peers/connect/", {"other": other_chat.pk, "brief": ""}, **HTMX
    )
    assert "The message is empty" in response.content.decode()


def test_it_refuses_a_send_to_a_chat_with_messaging_off(owner, sender, owner_client):
    off = make_chat(owner, "quiet", peers=False)
    response = owner_client.post(
        f"/chats/{sender.pk}/peers/send/", {"to": off.pk, "sender": "chat", "text": "hi"}, **HTMX
    )
    said = response.content.decode()
    assert "Not sent: the other chat has messaging off" in said
    assert "Turn its messaging on" in said and "the person" not in said


def test_it_renders_the_whole_page_for_a_refusal_without_htmx(sender, recipient, owner_client):
    response = owner_client.post(
        f"/chats/{sender.pk}/peers/send/", {"to": recipient.pk, "sender": "chat", "text": ""}
    )
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert "The message is empty" in html


def test_it_redirects_after_a_send_without_htmx(sender, recipient, owner_client):
    response = owner_client.post(
        f"/chats/{sender.pk}/peers/send/", {"to": recipient.pk, "sender": "chat", "text": "hi"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/chats/{sender.pk}/#peers-tab"


def test_it_cancels_from_the_card(sender, recipient, owner_client):
    peer_actions.check_stop_chat(recipient)
    message = actions.check_send_message(sender, to=recipient.pk, text="held")
    assert f"/messages/{message.pk}/cancel/" in conversation(owner_client, sender)
    assert "Remove</button>" in conversation(owner_client, sender)

    owner_client.post(f"/chats/{sender.pk}/messages/{message.pk}/cancel/", **HTMX)

    html = conversation(owner_client, sender)
    assert "Cancelled — removed from the queue" in html
    assert f"/messages/{message.pk}/cancel/" not in html


def test_it_a_groups_count_is_the_cards_it_shows_not_their_answers(owner, owner_client):
    asker = make_chat(owner, "asker", peers=True)
    answerer = make_chat(owner, "answerer", peers=True)
    reachable(asker, answerer)
    question = actions.check_send_message(asker, to=answerer.pk, text="which port?")
    actions.check_send_message(answerer, to=asker.pk, text="8080", reply_to=question.pk)
    group = tab(owner_client, asker)
    group = group[group.index(f'id="peer-group-{answerer.pk}"') :]
    cards = conversation(owner_client, asker, f"?peer={answerer.pk}").count('<article class="msg ')
    assert cards == 1 and "1 message<" in group
    assert "2 messages" not in group  # the answer inside the question's card counts not


def test_it_a_limit_reads_in_the_persons_words_with_the_limit(
    owner, sender, recipient, owner_client
):
    from peers.actions import do_set_limits

    do_set_limits({"chat_per_hour": 2})
    path = f"/chats/{sender.pk}/peers/send/"
    for i in range(5):
        body = {"to": recipient.pk, "sender": "chat", "text": f"hi {i}"}
        said = owner_client.post(path, body, **HTMX).content.decode()
    assert "Not sent: it sent too many messages this hour (the limit is 2)." in said
    assert "Carry on with your own work" not in said
