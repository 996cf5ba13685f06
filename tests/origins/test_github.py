"""GitHub webhooks over real HTTP: a signed mention starts a chat that runs a demo turn,
and its answer reaches a fake GitHub API on loopback in the right issue or review thread.
Runs on the test database's backend (SQLite, or PostgreSQL with DATABASE_URL)."""

import json
from datetime import timedelta

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.utils import timezone

from chats.actions import do_rotate_agent_key
from chats.models import Chat, Turn
from origins.actions import send_due_replies
from origins.connectors.github import GitHubConnector, signature
from origins.models import Origin, OriginDelivery, OriginReply, OriginThread
from peers.actions import do_set_peers
from peers.models import PeerMessage
from tests.origins.conftest import make_origin
from tests.origins.fake_github import FakeGitHub
from tests.origins.github_events import delivery, issue_comment, ping, review_comment
from tests.origins.live import post_hook, post_to, run_turns_and_answer
from tests.peers.test_mcp_tools import mcp, refusal_of, tool_names

pytestmark = pytest.mark.django_db(transaction=True)
TOKEN = "ghp_live-test-token"
HANDLE = "crosstalk-bot"


@pytest.fixture(autouse=True)
def quick_demo(settings):
    settings.DEMO_STEP_SECONDS = 0


@pytest.fixture
def github():
    with FakeGitHub(TOKEN) as fake:
        yield fake


@pytest.fixture
def origin(owner, github):
    config = {"handle": HANDLE, "api_url": github.url, "token": TOKEN}
    return make_origin(owner, "shop issues", kind="github", settings=config)


def send(live_server, origin, event: str, payload: dict, **kwargs):
    return post_to(live_server.url, origin, *delivery(origin.secret, event, payload, **kwargs))


def started_nothing() -> bool:
    return not Chat.objects.exclude(origin="user").exists() and not Turn.objects.exists()


def test_it_a_mention_in_an_issue_is_answered_there_by_a_new_chat(live_server, origin, github):
    answer = send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} total right?"))

    assert answer.status_code == 202, answer.text
    chat = Chat.objects.get(pk=answer.json()["chat"])
    assert chat.origin == "github" and chat.user == origin.user
    assert answer.json()["thread"] == "octo/shop#12"
    assert run_turns_and_answer() == 1
    [(repo, number, review_comment_id, body)] = github.comments()
    assert (repo, number, review_comment_id) == ("octo/shop", 12, None)
    assert body.startswith('Read a request from github by dana: "A comment on issue octo/shop#12')
    assert OriginReply.objects.get().state == OriginReply.State.SENT


def test_it_a_second_mention_in_the_same_issue_continues_its_chat(live_server, origin, github):
    first = send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} one"))
    run_turns_and_answer()
    second = send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} two"))
    other = send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} x", number=13))

    assert first.json()["chat"] == second.json()["chat"] != other.json()["chat"]
    assert run_turns_and_answer() == 2
    assert sorted(number for _, number, _, _ in github.comments()) == [12, 12, 13]
    assert Turn.objects.filter(chat_id=first.json()["chat"]).count() == 2


def test_it_a_review_comment_is_answered_in_its_review_thread(live_server, origin, github):
    answer = send(
        live_server, origin, "pull_request_review_comment", review_comment(f"@{HANDLE} round?")
    )

    assert answer.status_code == 202, answer.text
    run_turns_and_answer()
    [(repo, number, replied_to, body)] = github.comments()
    assert (repo, number, replied_to) == ("octo/shop", 7, 7770002)
    assert "pull request octo/shop#7" in body


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("issue_comment", issue_comment("no mention of the bot")),
        ("issue_comment", issue_comment(f"@{HANDLE} edited", action="edited")),
        ("issue_comment", issue_comment(f"echo @{HANDLE}", login=HANDLE)),
        ("issues", issue_comment(f"@{HANDLE} an issue opened")),
    ],
)
def test_it_what_is_not_a_new_mention_is_answered_200_and_starts_nothing(
    live_server, origin, github, event, payload
):
    answer = send(live_server, origin, event, payload)

    assert answer.status_code == 200 and answer.json()["ignored"] is True
    assert started_nothing() and not OriginDelivery.objects.exists()
    assert run_turns_and_answer() == 0 and github.comments() == []


def test_it_a_ping_and_the_test_button_are_answered_and_start_nothing(live_server, origin):
    pinged = send(live_server, origin, "ping", ping())
    tested = post_to(live_server.url, origin, *reversed(GitHubConnector().test_request(origin)))

    assert pinged.status_code == tested.status_code == 200
    assert (
        pinged.json()
        == tested.json()
        == {
            "ok": True,
            "ping": True,
            "message": "The signature checks out.",
        }
    )
    headers, body = GitHubConnector().test_request(Origin(secret="not-the-secret"))
    assert post_to(live_server.url, origin, body, headers).status_code == 401
    assert started_nothing() and not OriginDelivery.objects.exists()


@pytest.mark.parametrize("tamper", ["wrong secret", "changed body", "no signature", "sha1 only"])
def test_it_a_bad_signature_is_refused_and_starts_nothing(live_server, origin, tamper):
    payload = issue_comment(f"@{HANDLE} please")
    body, headers = delivery(
        "not-the-secret" if tamper == "wrong secret" else origin.secret, "issue_comment", payload
    )
    if tamper == "changed body":
        body = body.replace(b"please", b"rm -rf")
    if tamper in {"no signature", "sha1 only"}:
        del headers["X-Hub-Signature-256"]
    if tamper == "sha1 only":
        headers["X-Hub-Signature"] = "sha1=0000000000000000000000000000000000000000"

    answer = post_to(live_server.url, origin, body, headers)

    assert answer.status_code == 401 and answer.json()["code"] == "bad_signature"
    assert started_nothing()


def test_it_a_redelivery_is_refused_and_starts_nothing_more(live_server, origin):
    body, headers = delivery(origin.secret, "issue_comment", issue_comment(f"@{HANDLE} hi"))
    assert post_to(live_server.url, origin, body, headers).status_code == 202

    again = post_to(live_server.url, origin, body, headers)

    assert again.status_code == 409 and again.json()["code"] == "duplicate_delivery"
    assert Turn.objects.count() == 1


def test_it_a_delivery_without_its_id_is_refused(live_server, origin):
    body, headers = delivery(origin.secret, "issue_comment", issue_comment(f"@{HANDLE} hi"))
    del headers["X-GitHub-Delivery"]
    answer = post_to(live_server.url, origin, body, headers)
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_input"
    assert started_nothing()


def test_it_an_unknown_or_disabled_origin_answers_the_same_404(live_server, origin):
    body, headers = delivery(origin.secret, "issue_comment", issue_comment(f"@{HANDLE} hi"))
    missing = post_hook(live_server.url, "org_nothing", body, headers)
    origin.enabled = False
    origin.save(update_fields=["enabled"])
    disabled = post_to(live_server.url, origin, body, headers)

    assert missing.status_code == disabled.status_code == 404
    assert missing.content == disabled.content
    assert started_nothing()


@pytest.mark.parametrize("text", ["nul \\u0000 here", "lone \\ud800 surrogate"])
def test_it_a_signed_comment_with_bad_characters_is_refused(live_server, origin, text):
    # JSON escapes, signed as sent: the bytes GitHub would send for such a comment.
    body = json.dumps(issue_comment(f"@{HANDLE} PLACEHOLDER")).replace("PLACEHOLDER", text)
    body = body.encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "issue_comment",
        "X-GitHub-Delivery": "d-bad-characters",
        "X-Hub-Signature-256": signature(origin.secret, body),
    }

    answer = post_to(live_server.url, origin, body, headers)

    assert answer.status_code == 400, answer.text
    assert started_nothing()


def test_it_an_answer_github_refuses_is_tried_again_later(live_server, origin, github):
    send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} hi"))
    github.fail_next(1)

    assert run_turns_and_answer() == 1
    reply = OriginReply.objects.get()
    assert reply.state == OriginReply.State.PENDING and reply.attempts == 1
    assert "GitHub answered 500" in reply.last_error and github.comments() == []
    assert send_due_replies(timezone.now() + timedelta(minutes=5)) == 1
    assert OriginReply.objects.get().state == OriginReply.State.SENT
    assert len(github.comments()) == 1


def test_it_a_wrong_token_leaves_the_answer_unsent_with_githubs_reason(live_server, owner, github):
    config = {"handle": HANDLE, "api_url": github.url, "token": "ghp_wrong"}
    origin = make_origin(owner, "wrong token", kind="github", settings=config)
    send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} hi"))

    run_turns_and_answer()

    reply = OriginReply.objects.get()
    assert reply.state == OriginReply.State.PENDING
    assert reply.last_error == "GitHubAnswerFailed: GitHub answered 401: Bad credentials"
    assert github.comments() == []


def test_it_a_github_app_answers_with_its_installation_token(live_server, owner, github):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    config = {
        "handle": HANDLE,
        "api_url": github.url,
        "app_id": "12345",
        "private_key": pem,
        "installation_id": 678,
    }
    origin = make_origin(owner, "app", kind="github", settings=config)
    send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} via the app"))

    run_turns_and_answer()

    assert github.installations == [678]
    assert [number for _, number, _, _ in github.comments()] == [12]


def test_it_the_chat_it_starts_is_its_persons_and_nobody_elses(
    live_server, origin, outsider_api, owner_api
):
    answer = send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} hi"))
    chat_id = answer.json()["chat"]

    assert owner_api.get(f"/api/v1/chats/{chat_id}").json()["origin"] == "github"
    assert outsider_api.get(f"/api/v1/chats/{chat_id}").status_code == 404
    assert OriginThread.objects.get().chat.user == origin.user


def test_it_the_chat_a_mention_starts_may_not_list_read_or_message_even_switched_on(
    live_server, origin, chat
):
    answer = send(live_server, origin, "issue_comment", issue_comment(f"@{HANDLE} list chats"))
    outside = Chat.objects.get(pk=answer.json()["chat"])
    do_set_peers(outside, enabled=True)  # the person's switch does not open the fence
    key = do_rotate_agent_key(outside)

    assert tool_names(key) == []
    for tool, arguments in [
        ("ListChats", {}),
        ("ReadChat", {"chat": chat.id}),
        ("MessageChat", {"to": chat.id, "text": "what is in your repository?"}),
    ]:
        assert refusal_of(mcp(key, tool, arguments))["code"] == "outside_origin", tool
    assert not PeerMessage.objects.exists()
