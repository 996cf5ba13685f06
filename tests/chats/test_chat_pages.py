"""The chat list and chat pages, with and without htmx."""

import pytest

from chats.actions import claim_next_turn, do_add_entry, do_prompt
from chats.models import Chat, Entry, Turn
from peers import actions as peer_actions
from tests.conftest import make_chat

HTMX = {"HTTP_HX_REQUEST": "true"}
NEW_CHAT = {"name": "search", "repository": "shop-web", "branch": "main", "agent": "demo"}


def test_it_sends_anonymous_visitors_to_the_login_page(chat, client):
    for path in ["/chats/", f"/chats/{chat.pk}/", f"/chats/{chat.pk}/conversation/"]:
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_it_lists_the_accounts_chats(owner, chat, other_chat, outsider_chat, owner_client):
    do_prompt(chat, text="go")
    claim_next_turn("tests")
    html = owner_client.get("/chats/").content.decode()
    assert f'href="/chats/{chat.pk}/"' in html and "payments-api" in html
    assert "shop-web" in html and "feat/cart" in html
    assert 'class="badge status-running"' in html and 'class="badge status-idle"' in html
    assert "Agent-to-agent" in html
    assert "secret" not in html and outsider_chat.pk not in html
    assert 'data-live-socket="/ws/chats/"' in html
    assert 'hx-trigger="live-chat from:body, live-message from:body, live-resync from:body"' in html
    assert html.count('class="chat-card ') == 2 and 'id="chat-filter"' in html


def test_it_puts_running_chats_first_then_the_latest_run(owner, chat, other_chat, owner_client):
    quiet = make_chat(owner, "quiet")
    do_prompt(other_chat, text="go")
    claim_next_turn("tests")
    html = owner_client.get("/chats/rows/", **HTMX).content.decode()
    assert html.index("payments-api") < html.index("checkout") < html.index(quiet.name)
    assert "working…" in html and html.count("working…") == 1


def test_it_shows_what_was_last_asked_and_answered_and_what_waits(
    owner, chat, other_chat, owner_client
):
    from tests.peers.conftest import reachable

    reachable(chat, other_chat)
    Chat.objects.filter(pk=other_chat.pk).update(last_asked="which port?", last_answered="8080")
    peer_actions.check_send_message(chat, to=other_chat.pk, text="hello")
    html = owner_client.get("/chats/rows/", **HTMX).content.decode()
    assert "which port?" in html and "8080" in html
    assert "1 waiting" in html


def test_it_shows_no_peers_badge_for_a_chat_with_messaging_off(owner, owner_client):
    make_chat(owner, "quiet", peers=False)
    assert 'aria-checked="false"' in owner_client.get("/chats/rows/").content.decode()


def test_it_serves_the_rows_partial_alone(chat, owner_client):
    html = owner_client.get("/chats/rows/", **HTMX).content.decode()
    assert html.lstrip().startswith('<ul class="chat-cards"')
    assert "checkout" in html and "<html" not in html


def test_it_defaults_the_peers_checkbox_to_the_accounts_setting(owner, owner_client):
    assert 'name="peers" id="id_peers" checked' not in owner_client.get("/chats/").content.decode()
    owner.peers_for_new_chats = True
    owner.save(update_fields=["peers_for_new_chats"])
    assert 'name="peers" id="id_peers" checked' in owner_client.get("/chats/").content.decode()


def test_it_creates_a_chat_from_the_form(owner, owner_client):
    response = owner_client.post("/chats/", {**NEW_CHAT, "peers": "on", "model": "opus"})
    chat = Chat.objects.get(user=owner, name="search")
    assert response.status_code == 302 and response["Location"] == f"/chats/{chat.pk}/"
    assert (chat.repository, chat.peers, chat.model, chat.origin) == (
        "shop-web",
        True,
        "opus",
        "user",
    )


def test_it_shows_a_name_clash_inline_and_keeps_the_form(chat, owner_client):
    response = owner_client.post("/chats/", {**NEW_CHAT, "name": "CHECKOUT", "branch": "b-42"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "You already have a chat named" in html
    assert 'value="CHECKOUT"' in html and 'value="b-42"' in html and 'value="shop-web"' in html
    assert Chat.objects.count() == 1


def test_it_shows_a_missing_command_on_the_command_field(owner_client):
    html = owner_client.post("/chats/", {**NEW_CHAT, "agent": "command"}).content.decode()
    assert "a command chat needs the command line to run" in html
    assert not Chat.objects.exists()


def test_it_shows_an_input_refusal_on_its_field(owner_client):
    html = owner_client.post("/chats/", {**NEW_CHAT, "branch": "b" * 201}).content.decode()
    assert "at most 200 characters" in html
    assert not Chat.objects.exists()


def test_it_renders_the_conversation(chat, owner_client):
    do_prompt(chat, text="which port?")
    do_add_entry(chat, kind=Entry.Kind.ANSWER, text="8080, I think")
    do_add_entry(chat, kind=Entry.Kind.PEER_IN, text="renamed total to amount", message_id="msg_1")
    do_add_entry(chat, kind=Entry.Kind.NOTICE, text="The turn failed: boom")
    html = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    assert '<div class="bubble md"><p>which port?</p>\n</div>' in html
    assert 'class="entry entry-prompt mine"' in html
    assert 'class="entry entry-answer theirs"' in html and "8080, I think" in html
    assert 'class="entry entry-peer_in theirs wide"' in html and 'class="msg"' in html
    assert "renamed total to amount" in html and "The turn failed: boom" in html
    assert html.index("which port?") < html.index("8080, I think") < html.index("renamed total")


def test_it_renders_the_header_and_live_hooks(chat, owner_client):
    html = owner_client.get(f"/chats/{chat.pk}/").content.decode()
    assert f'data-live-socket="/ws/chats/{chat.pk}/"' in html
    assert "shop-web · feat/cart" in html
    assert 'class="badge status-idle"' in html and "Agent-to-agent</span>" in html
    assert f'hx-trigger="live-chat-{chat.pk} from:body, live-resync from:body"' in html
    assert (
        f'hx-trigger="live-entry-{chat.pk} from:body, live-message from:body, '
        'live-chat from:body, live-resync from:body"'
    ) in html
    assert 'hx-sync="this:queue last"' in html and "this:replace" not in html
    assert 'role="switch" aria-checked="true"' in html
    # Idle: Stop is in the menu with what it does, never a red button without a word.
    assert f'action="/chats/{chat.pk}/stop/"' in html
    assert "Stop: ends the turn and holds new messages until you write" in html
    assert 'class="danger" title="Stop' not in html
    assert 'href="#composer-text">Skip to the composer' in html
    assert '<aside class="side-panel">' in html and "Peers</h2>" in html
    assert 'name="send_queued" id="id_send_queued" checked' in html


def test_it_hides_stop_for_a_stopped_chat(chat, owner_client):
    peer_actions.check_stop_chat(chat)
    html = owner_client.get(f"/chats/{chat.pk}/header/").content.decode()
    assert 'class="badge status-stopped"' in html
    assert f'action="/chats/{chat.pk}/stop/"' not in html
    assert "Messages from other chats wait until you write here." in html


def test_it_shows_a_red_stop_that_says_what_it_does_while_running(chat, owner_client):
    do_prompt(chat, text="go")
    claim_next_turn("tests")
    html = owner_client.get(f"/chats/{chat.pk}/header/", **HTMX).content.decode()
    assert (
        'class="danger" title="Stop: ends the turn and holds new messages until you write"' in html
    )
    assert "working…" in html


def test_it_serves_the_partials_alone(chat, owner_client):
    header = owner_client.get(f"/chats/{chat.pk}/header/", **HTMX).content.decode()
    assert header.lstrip().startswith('<header class="chat-header"') and "<html" not in header
    conversation = owner_client.get(f"/chats/{chat.pk}/conversation/", **HTMX).content.decode()
    assert conversation.lstrip().startswith('<div class="entries"')
    assert "<html" not in conversation


def test_it_sends_a_prompt_from_the_page(chat, owner_client):
    response = owner_client.post(f"/chats/{chat.pk}/", {"text": "hello", "send_queued": "on"})
    assert response.status_code == 302 and response["Location"] == f"/chats/{chat.pk}/"
    turn = Turn.objects.get(chat=chat)
    assert (turn.prompt, turn.send_queued) == ("hello", True)
    assert Entry.objects.get(chat=chat).text == "hello"


def test_it_keeps_queued_messages_held_when_unchecked(chat, owner_client):
    owner_client.post(f"/chats/{chat.pk}/", {"text": "only this"})
    assert Turn.objects.get(chat=chat).send_queued is False


def test_it_answers_htmx_prompts_with_a_fresh_composer_and_an_event(chat, owner_client):
    response = owner_client.post(f"/chats/{chat.pk}/", {"text": "hi", "send_queued": "on"}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<form id="composer"') and "hi</textarea>" not in html
    assert f"live-entry-{chat.pk}" in response["HX-Trigger"]


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_it_refuses_a_blank_prompt_inline(chat, owner_client, headers):
    response = owner_client.post(
        f"/chats/{chat.pk}/", {"text": "  ", "send_queued": "on"}, **headers
    )
    assert response.status_code == 200
    assert "Write something for the agent first." in response.content.decode()
    assert not Turn.objects.exists()


def test_it_switches_messaging_from_the_menu(chat, owner_client):
    response = owner_client.post(f"/chats/{chat.pk}/peers/", {"enabled": "off"})
    assert response.status_code == 302
    chat.refresh_from_db()
    assert chat.peers is False
    owner_client.post(f"/chats/{chat.pk}/peers/", {"enabled": "on"})
    chat.refresh_from_db()
    assert chat.peers is True


def test_it_toggles_messaging_without_a_value(chat, owner_client):
    response = owner_client.post(f"/chats/{chat.pk}/peers/", **HTMX)
    assert response.status_code == 204
    assert f"live-chat-{chat.pk}" in response["HX-Trigger"]
    chat.refresh_from_db()
    assert chat.peers is False


def test_it_stops_a_chat_from_the_page(chat, owner_client):
    do_prompt(chat, text="go")
    claim_next_turn("tests")
    response = owner_client.post(f"/chats/{chat.pk}/stop/")
    assert response.status_code == 302
    chat.refresh_from_db()
    assert chat.status == "stopped"
    assert Turn.objects.get(chat=chat).state == "cancelled"


def test_it_refuses_get_on_the_stop_url(chat, owner_client):
    # GET /chats/<id>/peers/ is left free: the peers app serves its Peers tab there.
    assert owner_client.get(f"/chats/{chat.pk}/stop/").status_code == 405


def test_it_stamps_a_chat_change_finer_than_a_second_for_the_unread_dot(chat, owner_client):
    """Two changes in one second differ: the page compares the stamp with the last seen."""
    stamps = []
    for microseconds in (100_000, 900_000):
        changed = chat.updated_at.replace(microsecond=microseconds)
        Chat.objects.filter(pk=chat.pk).update(updated_at=changed)
        html = owner_client.get("/chats/").content.decode()
        links = owner_client.get(f"/chats/{chat.pk}/").content.decode()
        stamp = f'data-chat="{chat.pk}" data-updated="{int(changed.timestamp())}{microseconds}"'
        assert stamp in html and stamp in links
        stamps.append(stamp)
    assert stamps[0] != stamps[1]
