"""The OpenAPI document and its browsable reference: generated from the routes' own
input and output models, served from files of our own (no CDN)."""

import re

import pytest
from django.contrib.staticfiles import finders

OPERATIONS = {
    ("get", "/api/v1/chats"),
    ("post", "/api/v1/chats"),
    ("get", "/api/v1/chats/{chat_id}"),
    ("patch", "/api/v1/chats/{chat_id}"),
    ("delete", "/api/v1/chats/{chat_id}"),
    ("post", "/api/v1/chats/{chat_id}/prompts"),
    ("post", "/api/v1/chats/{chat_id}/stop"),
    ("get", "/api/v1/chats/{chat_id}/reach"),
    ("post", "/api/v1/connections"),
    ("get", "/api/v1/messages"),
    ("post", "/api/v1/messages"),
    ("get", "/api/v1/messages/{message_id}"),
    ("post", "/api/v1/messages/{message_id}/cancel"),
    ("post", "/api/v1/messages/{message_id}/approve"),
    ("post", "/api/v1/messages/{message_id}/deny"),
    ("get", "/api/v1/activity"),
    ("get", "/api/v1/inbox"),
    ("post", "/api/v1/inbox/done"),
    ("get", "/api/v1/search"),
    ("get", "/api/v1/agent/chats"),
    ("get", "/api/v1/agent/chats/{chat_id}"),
    ("post", "/api/v1/agent/messages"),
    ("get", "/api/v1/agent/inbox"),
    ("post", "/api/v1/agent/inbox/seen"),
    ("post", "/api/v1/agent/hooks/claude-code"),
    ("post", "/api/v1/agent/hooks/codex"),
    ("post", "/api/v1/agent/hooks/gemini"),
    ("get", "/api/v1/origins"),
    ("post", "/api/v1/origins"),
    ("get", "/api/v1/origins/{origin_id}"),
    ("patch", "/api/v1/origins/{origin_id}"),
    ("delete", "/api/v1/origins/{origin_id}"),
    ("post", "/api/v1/origins/{origin_id}/secret"),
    ("get", "/api/v1/origins/{origin_id}/requests"),
    ("get", "/api/v1/origins/{origin_id}/answers"),
    ("post", "/api/v1/origins/{origin_id}/answers/{answer_id}/resend"),
}


@pytest.fixture
def document(client) -> dict:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return response.json()


def operations(document: dict):
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def test_it_describes_every_route_of_the_contract(document):
    assert document["openapi"].startswith("3.1")
    assert {(method, path) for method, path, _ in operations(document)} == OPERATIONS


def test_it_every_operation_says_whose_secret_and_how_it_refuses(document):
    schemes = document["components"]["securitySchemes"]
    assert schemes == {
        "PersonToken": {"type": "http", "scheme": "bearer"},
        "AgentKey": {"type": "http", "scheme": "bearer"},
    }
    for _, path, operation in operations(document):
        whose = "AgentKey" if path.startswith("/api/v1/agent/") else "PersonToken"
        assert operation["security"] == [{whose: []}], path
        refusal = operation["responses"]["401"]["content"]["application/json"]["schema"]
        assert refusal == {"$ref": "#/components/schemas/Problem"}, path
        assert re.fullmatch(r"[a-z_]+", operation["operationId"]), operation["operationId"]


def test_it_bodies_use_the_names_rest_takes(document):
    schemas = document["components"]["schemas"]
    assert set(schemas["MessageChatInput"]["properties"]) == {
        "to",
        "text",
        "reply_to",
        "wait_seconds",
        "notify_when_idle",
    }
    assert "text" not in schemas["MessageChatInput"].get("required", [])  # optional with it
    assert schemas["MessageChatInput"]["additionalProperties"] is False
    assert "agent_key" in schemas["ChatCreated"]["properties"]
    assert "agent_key" not in schemas["ChatOut"]["properties"]
    assert schemas["SentOut"]["properties"]["answer_message"]["anyOf"][0] == {
        "$ref": "#/components/schemas/MessageOut"
    }


def test_it_the_answers_are_the_documented_shapes(document, chat, owner_api):
    listed = owner_api.get("/api/v1/chats").json()
    chat_fields = set(document["components"]["schemas"]["ChatOut"]["properties"])
    assert set(listed["items"][0]) == chat_fields


def test_it_the_reference_page_loads_only_our_own_files(client):
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/api/v1/openapi.json" in page
    assert not re.search(r"""(src|href)=["']https?://""", page), "no CDN"
    for asset in re.findall(r"""(?:src|href)=["']/static/([^"']+)""", page):
        assert finders.find(asset), asset
    assert client.get("/api/v1/docs/").status_code == 200


def test_it_a_sent_message_links_to_reading_and_cancelling_it(document):
    operation_ids = {operation["operationId"] for _, _, operation in operations(document)}
    for path in ("/api/v1/messages", "/api/v1/agent/messages"):
        links = document["paths"][path]["post"]["responses"]["201"]["links"]
        assert {link["operationId"] for link in links.values()} <= operation_ids
        assert links["CancelMessage"]["parameters"] == {"message_id": "$response.body#/id"}
