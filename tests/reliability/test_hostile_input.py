"""Hostile bytes get a 4xx JSON answer with a stable code under /api/v1/, a plain 404
or 400 on pages; never a 500 or a traceback page."""

import json
import logging

import pytest

from tests.peers.conftest import reachable

pytestmark = pytest.mark.django_db


def assert_refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == code


@pytest.mark.parametrize("text", ["a\u0000b", "a\ud800b", "\udfff"])
def test_it_refuses_nul_and_lone_surrogates_in_a_message(owner_api, chat, text):
    reachable(chat)
    body = json.dumps({"to_chat": chat.pk, "text": text})  # ensure_ascii: \u escapes
    response = owner_api.generic("POST", "/api/v1/messages", body, "application/json")
    assert_refused(response, 400, "invalid_input")


def test_it_refuses_a_nul_in_a_key_or_a_nested_value(owner_api):
    for body in ({"name\u0000": "x"}, {"name": "ok", "x": [{"y": "\u0000"}]}):
        assert_refused(owner_api.call("POST", "/api/v1/chats", body), 400, "invalid_input")


def test_it_stores_nothing_for_a_refused_text(owner_api, chat):
    reachable(chat)
    owner_api.call("POST", f"/api/v1/chats/{chat.pk}/prompts", {"text": "x\u0000"})
    assert not chat.turns.exists()


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/chats/chat_%00",
        "/api/v1/chats/chat_%00/prompts",
        "/api/v1/messages?chat=x%00",
        "/api/v1/activity?chat=x%00",
        "/api/v1/messages/msg_%00",
        "/api/v1/agent/inbox?wait=%00",
    ],
)
def test_it_refuses_a_nul_in_a_path_or_query(owner_api, url):
    assert_refused(owner_api.get(url), 400, "invalid_input")


def test_it_answers_a_malformed_id_like_a_missing_chat(owner_api):
    assert_refused(owner_api.get("/api/v1/chats/chat_%E2%82%AC"), 404, "no_chat")


@pytest.mark.parametrize("url", ["/chats/chat_%00/", "/chats/chat_%E2%82%AC/", "/chats/x%00y/"])
def test_it_answers_404_on_pages_for_malformed_ids(owner_client, url):
    response = owner_client.get(url)
    assert response.status_code == 404
    assert b"Traceback" not in response.content


def test_it_answers_400_on_pages_for_a_nul_in_the_query(owner_client):
    assert owner_client.get("/activity/?chat=x%00").status_code == 400


def test_it_refuses_json_nested_100000_deep(owner_api):
    body = "[" * 100_000 + "]" * 100_000
    response = owner_api.generic("POST", "/api/v1/chats", '{"name": ' + body + "}")
    assert_refused(response, 413, "too_large")


def test_it_refuses_json_nested_past_the_limit_but_within_the_parser(owner_api):
    body = {"name": "x", "deep": json.loads("[" * 40 + "]" * 40)}
    assert_refused(owner_api.call("POST", "/api/v1/chats", body), 413, "too_large")


def test_it_refuses_a_5_mb_body_unread(owner_api):
    body = json.dumps({"name": "x", "text": "a" * 5_000_000})
    response = owner_api.generic("POST", "/api/v1/messages", body, "application/json")
    assert_refused(response, 413, "too_large")


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_it_answers_json_404_for_an_unknown_api_path_whatever_the_method(owner_api, method):
    assert_refused(owner_api.generic(method, "/api/v1/nothing/here"), 404, "not_found")


def test_it_answers_json_404_for_an_unknown_api_path_without_credentials(client):
    client = type(client)(enforce_csrf_checks=True)
    assert_refused(client.post("/api/v1/nothing", {}), 404, "not_found")


def test_it_answers_json_for_a_host_it_does_not_serve(owner_api):
    response = owner_api.get("/api/v1/chats", HTTP_HOST="evil.example")
    assert_refused(response, 400, "invalid_input")


def test_it_answers_json_for_a_wrong_method(owner_api):
    response = owner_api.generic("DELETE", "/api/v1/messages")
    assert_refused(response, 405, "method_not_allowed")


def test_it_clamps_a_negative_wait_instead_of_refusing_it(chat, other_chat):
    from tests.conftest import ApiClient

    reachable(chat, other_chat)
    body = {"to": other_chat.pk, "text": "hello", "wait_seconds": -1}
    response = ApiClient(chat.agent_key).call("POST", "/api/v1/agent/messages", body)
    assert response.status_code == 201, response.content
    assert response.json()["answer"] is None


def test_it_answers_a_server_error_as_json_and_logs_it(owner_api, chat, caplog, monkeypatch):
    def explode(chat):
        raise RuntimeError("boom: secret detail")

    monkeypatch.setattr("crosstalk.chat_api.chat_json", explode)
    owner_api.raise_request_exception = False
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = owner_api.get("/api/v1/chats")
    assert_refused(response, 500, "server_error")
    assert b"boom" not in response.content
    assert any("boom" in str(record.exc_info) for record in caplog.records)


urlpatterns = []


@pytest.mark.urls(__name__)
def test_it_shows_no_source_on_a_page_500(owner_client, settings):
    from django.urls import path as page_path

    assert settings.DEBUG is False
    owner_client.raise_request_exception = False
    urlpatterns.append(page_path("explode-page", lambda request: 1 / 0))
    try:
        response = owner_client.get("/explode-page")
    finally:
        urlpatterns.pop()
    assert response.status_code == 500
    assert b"ZeroDivisionError" not in response.content
    assert b"Something went wrong" in response.content
