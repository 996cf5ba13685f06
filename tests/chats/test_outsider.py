"""Another account's chat answers exactly like a chat that does not exist."""

import pytest

from chats.models import Chat, Turn

MISSING = "chat_0000000000000000"
PAGES = ["/chats/{id}/", "/chats/{id}/header/", "/chats/{id}/conversation/"]
PAGE_POSTS = ["/chats/{id}/", "/chats/{id}/peers/", "/chats/{id}/stop/"]
NO_CHAT = (404, "no_chat")
# (method, path, body, answer): a body of the wrong type is refused before any chat is
# looked up, so it reads the same for every id; everything else reads as no_chat.
API = [
    ("GET", "/api/v1/chats/{id}", None, NO_CHAT),
    ("GET", "/api/v1/chats/{id}/", None, NO_CHAT),
    ("PATCH", "/api/v1/chats/{id}", {"peers": False, "name": "mine"}, NO_CHAT),
    ("PATCH", "/api/v1/chats/{id}", {"peers": "bad"}, (400, "invalid_input")),
    ("POST", "/api/v1/chats/{id}/prompts", {"text": "hello"}, NO_CHAT),
    ("POST", "/api/v1/chats/{id}/prompts", {"text": ""}, NO_CHAT),
    ("POST", "/api/v1/chats/{id}/stop", None, NO_CHAT),
]


def assert_untouched(chat):
    before = (chat.name, chat.peers, chat.status)
    chat.refresh_from_db()
    assert (chat.name, chat.peers, chat.status) == before
    assert not Turn.objects.filter(chat=chat).exists()


@pytest.mark.parametrize("path", PAGES)
def test_it_answers_404_on_another_accounts_pages(chat, outsider_client, path):
    response = outsider_client.get(path.format(id=chat.pk))
    missing = outsider_client.get(path.format(id=MISSING))
    assert response.status_code == missing.status_code == 404
    assert response.content == missing.content


@pytest.mark.parametrize("path", PAGE_POSTS)
def test_it_answers_404_on_another_accounts_page_actions(chat, outsider_client, path):
    data = {"text": "hello", "send_queued": "on", "enabled": "off"}
    assert outsider_client.post(path.format(id=chat.pk), data).status_code == 404
    assert_untouched(chat)


@pytest.mark.parametrize(("method", "path", "body", "answer"), API)
def test_it_answers_another_accounts_chat_like_a_missing_one(
    chat, outsider_api, method, path, body, answer
):
    response = outsider_api.call(method, path.format(id=chat.pk), body)
    missing = outsider_api.call(method, path.format(id=MISSING), body)
    assert (response.status_code, response.json()["code"]) == answer
    assert response.content == missing.content
    assert response.headers == missing.headers
    assert_untouched(chat)


def test_it_leaves_another_accounts_chats_out_of_the_list(chat, outsider_chat, outsider_api):
    body = outsider_api.call("GET", "/api/v1/chats").json()
    assert body["count"] == 1 and [item["id"] for item in body["items"]] == [outsider_chat.pk]


def test_it_lets_an_outsider_reuse_a_name_the_owner_took(chat, outsider_api):
    response = outsider_api.call("POST", "/api/v1/chats", {"name": "checkout"})
    assert response.status_code == 201
    assert Chat.objects.filter(name="checkout").count() == 2
