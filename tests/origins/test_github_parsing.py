"""GitHub's signature and events, without a live server: what starts a chat, what is ignored."""

import hashlib
import hmac

import pytest
from django.test import Client

from kernel.refusals import Refusal
from origins.connectors import github
from origins.models import OriginDelivery
from tests.origins.conftest import make_origin, post_hook
from tests.origins.github_events import delivery, issue_comment, ping, review_comment

SECRET = "It's a Secret to Everybody"


def parse(event: str, payload: dict, handle="crosstalk-bot"):
    return github.inbound_from_event(event, payload, handle=handle, delivery_id="d-1")


def test_it_matches_githubs_documented_signature_example():
    # docs.github.com "Validating webhook deliveries": this secret and body, this digest.
    assert github.signature(SECRET, b"Hello, World!") == (
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    )


def test_it_accepts_the_right_signature_and_refuses_any_other():
    body = b'{"action": "created"}'
    github.check_signature(SECRET, body, github.signature(SECRET, body))
    for given in (
        "",
        "sha256=",
        github.signature("other", body),
        github.signature(SECRET, body + b" "),
    ):
        with pytest.raises(Refusal) as refused:
            github.check_signature(SECRET, body, given)
        assert refused.value.code == "bad_signature" and refused.value.status == 401


def test_it_refuses_a_sha1_or_non_ascii_signature_in_the_sha256_header():
    # githubkit's verifier would check "sha1=" as SHA-1, and raise on a non-ASCII value.
    body = b'{"action": "created"}'
    sha1 = "sha1=" + hmac.new(SECRET.encode(), body, hashlib.sha1).hexdigest()
    for given in (sha1, "sha256=\u00e9"):
        with pytest.raises(Refusal) as refused:
            github.check_signature(SECRET, body, given)
        assert refused.value.code == "bad_signature"


@pytest.mark.parametrize(
    "text",
    [
        "@crosstalk-bot why?",
        "hey @Crosstalk-Bot, look",
        "(@crosstalk-bot)",
        "cc\n@CROSSTALK-BOT.",
        "> an earlier line\n\n@crosstalk-bot what about it?",
        "```\ncode\n```\n@crosstalk-bot after the fence",
    ],
)
def test_it_sees_the_handle_mentioned_as_a_word(text):
    assert github.mentions(text, "crosstalk-bot")
    assert github.mentions(text, "@crosstalk-bot")


@pytest.mark.parametrize(
    "text",
    [
        "crosstalk-bot why?",
        "@crosstalk-bot-two why?",
        "@crosstalk-botany",
        "mail me@crosstalk-bot",
        "@@crosstalk-bot",
        "@crosstalk-bot[bot] said",
        "> @crosstalk-bot why?\n\nI agree with this",
        "  > quoted: @crosstalk-bot",
        "run `@crosstalk-bot` later",
        "```\n@crosstalk-bot in a fence\n```",
        "~~~text\n@crosstalk-bot\n~~~\nafter",
        "",
    ],
)
def test_it_sees_no_mention_in_near_misses(text):
    assert not github.mentions(text, "crosstalk-bot")


def test_it_sees_no_mention_of_an_empty_handle():
    assert not github.mentions("@ anything", "")
    assert not github.mentions("@crosstalk-bot", "@")


def test_it_an_issue_comment_mentioning_the_handle_names_its_issue():
    inbound = parse("issue_comment", issue_comment("@crosstalk-bot is the total right?"))

    assert inbound.thread_key == "octo/shop#12"
    assert inbound.reply_to == {"repo": "octo/shop", "number": 12}
    assert inbound.author == "dana" and inbound.delivery_id == "d-1"
    assert inbound.text.startswith("A comment on issue octo/shop#12: Checkout total is off")
    assert inbound.text.endswith("@crosstalk-bot is the total right?")


def test_it_a_comment_on_a_pull_requests_conversation_says_pull_request():
    inbound = parse("issue_comment", issue_comment("@crosstalk-bot ok?", number=9, on_pr=True))
    assert inbound.thread_key == "octo/shop#9"
    assert "pull request octo/shop#9" in inbound.text
    assert "comment_id" not in inbound.reply_to


def test_it_a_review_comment_answers_in_its_review_thread_with_the_lines_it_is_on():
    inbound = parse("pull_request_review_comment", review_comment("@crosstalk-bot round?"))

    assert inbound.thread_key == "octo/shop#7"
    assert inbound.reply_to == {"repo": "octo/shop", "number": 7, "comment_id": 7770002}
    assert "On shop/cart.py, line 42:" in inbound.text
    assert "+    return round(subtotal, 2)" in inbound.text


def test_it_a_reply_in_a_review_thread_answers_to_the_threads_first_comment():
    payload = review_comment("@crosstalk-bot and now?", comment_id=7770009, in_reply_to=7770002)
    assert parse("pull_request_review_comment", payload).reply_to["comment_id"] == 7770002


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("issue_comment", issue_comment("no mention here")),
        ("issue_comment", issue_comment("@crosstalk-bot edited", action="edited")),
        ("issue_comment", issue_comment("@crosstalk-bot gone", action="deleted")),
        ("issue_comment", issue_comment("thanks @crosstalk-bot", login="crosstalk-bot")),
        ("issue_comment", issue_comment("quoting @crosstalk-bot", login="crosstalk-bot[bot]")),
        ("issues", issue_comment("@crosstalk-bot opened")),
        ("push", {"ref": "refs/heads/main"}),
        ("ping", ping()),
    ],
)
def test_it_ignores_what_is_not_a_new_mention_by_someone_else(event, payload):
    assert parse(event, payload) is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("number", "12; rm -rf /"),
        ("number", True),
        ("number", None),
        ("full_name", "octo/../../user/keys"),
        ("full_name", "-rf/shop?x=1"),
        ("full_name", "octo"),
        ("full_name", "octo/.."),
        ("full_name", "-rf/shop"),
        ("full_name", None),
    ],
)
def test_it_refuses_a_mention_without_a_plain_repository_or_number(field, value):
    payload = issue_comment("@crosstalk-bot hi")
    (payload["issue"] if field == "number" else payload["repository"])[field] = value
    with pytest.raises(Refusal) as refused:
        parse("issue_comment", payload)
    assert refused.value.code == "invalid_input"


def test_it_a_repository_named_dot_github_is_a_repository():
    payload = issue_comment("@crosstalk-bot hi")
    payload["repository"]["full_name"] = "octo/.github"
    assert parse("issue_comment", payload).thread_key == "octo/.github#12"


def test_it_ignores_fields_of_the_wrong_type():
    payload = issue_comment("@crosstalk-bot hi")
    payload["comment"]["user"] = "not an object"
    payload["issue"]["title"] = ["a", "list"]
    inbound = parse("issue_comment", payload)
    assert inbound.author == "" and inbound.thread_key == "octo/shop#12"


def test_it_reads_a_form_encoded_delivery_and_refuses_a_body_that_is_no_event():
    assert github.read_payload(
        b"payload=%7B%22zen%22%3A+%22x%22%7D", "application/x-www-form-urlencoded"
    ) == {"zen": "x"}
    for body in (b"[1, 2]", b"\xff\x00", b"payload=", b"null"):
        with pytest.raises(Refusal) as refused:
            github.read_payload(body, "application/json")
        assert refused.value.code == "invalid_input"


def test_it_cuts_a_long_answer_to_what_a_comment_holds_and_says_so():
    cut = github.fit_comment("x" * 100_000)
    assert len(cut) == github.MAX_COMMENT and cut.endswith(github.CUT_NOTE)
    assert github.fit_comment("  short  ") == "short"
    assert github.fit_comment("") == "(The chat finished without an answer.)"


@pytest.mark.django_db
def test_it_a_huge_delivery_is_refused_before_anything_is_read(owner, settings):
    settings.ORIGIN_MAX_BODY_BYTES = 4096
    origin = make_origin(owner, "gh", kind="github", settings={"handle": "crosstalk-bot"})
    body, headers = delivery(origin.secret, "issue_comment", issue_comment("@crosstalk-bot " * 999))

    response = post_hook(Client(), origin, body, headers)

    assert response.status_code == 413 and response.json()["code"] == "too_large"
    assert not OriginDelivery.objects.exists()
