"""GitHub (docs/origins-github-slack.md): a repository's or App's webhook. An issue or pull
request comment that mentions the origin's handle starts or continues the chat of that
issue or PR ("owner/repo#12"); the chat's answer goes back as a comment through the REST
API (githubkit), to the issue, or for a review comment as a reply in its review thread."""

import hashlib
import json
import re
import uuid
from dataclasses import replace
from datetime import datetime, timedelta
from urllib.parse import parse_qs

from django.conf import settings
from django.utils import timezone
from githubkit import AppInstallationAuthStrategy, GitHub, TokenAuthStrategy, webhooks
from githubkit.exception import RequestError, RequestFailed

from kernel.refusals import Refusal
from origins.bodies import read_json
from origins.connectors import Handshake
from origins.inputs import Inbound
from origins.outbound import client_options
from origins.signing import bad_signature

SIGNATURE = "X-Hub-Signature-256"
EVENT = "X-GitHub-Event"
DELIVERY = "X-GitHub-Delivery"
DEFAULT_API_URL = "https://api.github.com"
# An answer that takes longer is tried again later by the reply loop.
SEND_TIMEOUT_SECONDS = 15
# GitHub refuses a comment body over 65,536 characters.
MAX_COMMENT = 65_000
CUT_NOTE = "\n\n(Cut here: the answer was longer than a GitHub comment can hold.)"
# A review comment's diff hunk can be long; its last lines are the ones commented on.
HUNK_LINES = 12
FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# An owner's login, then a repository name (".github" is one; "." and ".." are not).
REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}")


class GitHubAnswerFailed(RuntimeError):
    pass


def signature(secret: str, body: bytes) -> str:
    return webhooks.sign(secret, body, "sha256")


def check_signature(secret: str, body: bytes, given: str) -> None:
    if not given:
        raise bad_signature(
            f"Sign the request: set the webhook's secret so GitHub sends {SIGNATURE}."
        )
    # githubkit's verify checks a "sha1=" value as SHA-1 (only SHA-256 is taken here), and
    # compares str values, which raises on a non-ASCII one.
    sha256 = given.startswith("sha256=") and given.isascii()
    if not sha256 or not webhooks.verify(secret, body, given):
        raise bad_signature(
            f"{SIGNATURE} does not match: the webhook's secret in GitHub must be "
            "the origin's secret."
        )


def mentions(text: str, handle: str) -> bool:
    """`@handle` as a word of its own, in any case: not `@handle-two`, not `me@handle`,
    and not in quoted lines or code, so quoting an earlier mention asks nothing again."""
    handle = handle.lstrip("@")
    if not handle:
        return False
    pattern = rf"(?<![\w@.-])@{re.escape(handle)}(?![\w-]|\[bot\])"
    return re.search(pattern, said_text(text), re.IGNORECASE) is not None


def said_text(text: str) -> str:
    """The comment without its quoted lines (`> …`), fenced code blocks and `code`."""
    text = FENCED.sub("", text)
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))
    return INLINE_CODE.sub("", text)


def is_own_comment(login: str, handle: str) -> bool:
    # Our answer may quote the mention; answering it would loop.
    login, handle = login.lower(), handle.lstrip("@").lower()
    return login in {handle, f"{handle}[bot]"} or login.removesuffix("[bot]") == handle


def inbound_from_event(
    event: str, payload: dict, *, handle: str, delivery_id: str
) -> Inbound | None:
    """What a delivery asks, or None for anything that is not a new comment mentioning
    the handle (edits, deletions, other events, our own comments)."""
    if event not in {"issue_comment", "pull_request_review_comment"}:
        return None
    if payload.get("action") != "created":
        return None
    comment, repository = _dict(payload, "comment"), _dict(payload, "repository")
    body, login = _str(comment, "body"), _str(_dict(comment, "user"), "login")
    if not mentions(body, handle) or is_own_comment(login, handle):
        return None
    repo = _str(repository, "full_name")
    target = _dict(payload, "issue" if event == "issue_comment" else "pull_request")
    number = target.get("number")
    # The answer's URL is built from these: nothing but "owner/name" and a number.
    if not REPO.fullmatch(repo) or not isinstance(number, int) or isinstance(number, bool):
        raise Refusal("invalid_input", "The event names no repository or issue number.")
    reply_to = {"repo": repo, "number": number}
    if event == "pull_request_review_comment" and isinstance(comment.get("id"), int):
        # A reply goes to the thread's first comment, which GitHub names in_reply_to_id.
        reply_to["comment_id"] = comment.get("in_reply_to_id") or comment["id"]
    return Inbound(
        thread_key=f"{repo}#{number}",
        text=_describe(event, repo, target, comment, body),
        author=login,
        delivery_id=delivery_id,
        reply_to=reply_to,
    )


def _describe(event: str, repo: str, target: dict, comment: dict, body: str) -> str:
    what = "issue"
    if event == "pull_request_review_comment" or "pull_request" in target:
        what = "pull request"
    lines = [f"A comment on {what} {repo}#{target['number']}: {_str(target, 'title')}"]
    if url := _str(comment, "html_url"):
        lines.append(url)
    if event == "pull_request_review_comment":
        where = _str(comment, "path")
        line = comment.get("line") or comment.get("original_line")
        lines.append(f"On {where}" + (f", line {line}" if line else "") + ":")
        if hunk := _str(comment, "diff_hunk"):
            lines.append("```diff\n" + "\n".join(hunk.splitlines()[-HUNK_LINES:]) + "\n```")
    return "\n".join([*lines, "", body])


def _dict(value: dict, key: str) -> dict:
    found = value.get(key)
    return found if isinstance(found, dict) else {}


def _str(value: dict, key: str) -> str:
    found = value.get(key)
    return found if isinstance(found, str) else ""


def read_payload(body: bytes, content_type: str) -> dict:
    """The event's JSON, sent as the body or (content type form) as its `payload` field."""
    what = "a GitHub event: a JSON object"
    if content_type == "application/x-www-form-urlencoded":
        try:
            body = parse_qs(body.decode(), max_num_fields=10).get("payload", [""])[0]
        except (ValueError, UnicodeDecodeError):
            raise Refusal("invalid_input", f"The body is not {what}.") from None
    payload = read_json(body, what=what)
    if not isinstance(payload, dict):
        raise Refusal("invalid_input", "The body is not a GitHub event: a JSON object.")
    return payload


def check_recent(payload: dict, now: datetime) -> None:
    """GitHub signs no timestamp; the comment's own created_at (in the signed body) bounds
    how long a captured delivery could be sent again: no longer than deliveries are kept."""
    raw = _str(_dict(payload, "comment"), "created_at")
    try:
        created = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise Refusal("invalid_input", "The event's comment has no created_at time.") from None
    if created.tzinfo is None:
        raise Refusal("invalid_input", "The event's comment has no created_at time zone.")
    if now - created > timedelta(days=settings.ORIGIN_DELIVERY_KEEP_DAYS):
        raise bad_signature(
            f"The comment is older than {settings.ORIGIN_DELIVERY_KEEP_DAYS:g} days: "
            "a replayed delivery; nothing was started."
        )


def fit_comment(text: str) -> str:
    text = text.strip() or "(The chat finished without an answer.)"
    if len(text) <= MAX_COMMENT:
        return text
    return text[: MAX_COMMENT - len(CUT_NOTE)] + CUT_NOTE


def client(config: dict) -> GitHub:
    """A client for the origin's settings: a token, or a GitHub App (app_id, private_key,
    installation_id) whose installation token githubkit mints and renews."""
    if config.get("app_id") and config.get("private_key") and config.get("installation_id"):
        auth = AppInstallationAuthStrategy(
            str(config["app_id"]), config["private_key"], int(config["installation_id"])
        )
    else:
        auth = TokenAuthStrategy(str(config.get("token") or ""))
    base_url = (config.get("api_url") or DEFAULT_API_URL).rstrip("/") + "/"
    return GitHub(
        auth,
        base_url=base_url,
        timeout=SEND_TIMEOUT_SECONDS,
        # The reply loop retries with its own back-off; a cache would only keep stale state.
        auto_retry=False,
        http_cache=False,
        # Every request, the App's token request too, goes through origins.outbound.
        **client_options(),
    )


def post_answer(config: dict, reply_to: dict, text: str) -> None:
    """Raises on failure, naming GitHub's status and reason, for the retry loop and the
    activity log (401 Bad credentials: the token; 404: no access to the repository)."""
    owner, repo = reply_to["repo"].split("/", 1)
    body = fit_comment(text)
    try:
        with client(config) as github:
            if reply_to.get("comment_id"):
                github.rest.pulls.create_reply_for_review_comment(
                    owner, repo, reply_to["number"], reply_to["comment_id"], body=body
                )
            else:
                github.rest.issues.create_comment(owner, repo, reply_to["number"], body=body)
    except RequestFailed as error:
        raise GitHubAnswerFailed(f"GitHub answered {failure(error.response)}") from error
    except RequestError as error:  # not answered: the cause says why (a refused address…)
        raise GitHubAnswerFailed(f"GitHub not reached: {error.exc}") from error


def failure(response) -> str:
    try:
        message = response.raw_response.json().get("message")
    except (ValueError, AttributeError):
        message = None
    return f"{response.status_code}" + (f": {message}" if isinstance(message, str) else "")


class GitHubConnector:
    kind = "github"

    def verify(self, origin, request) -> None:
        check_signature(origin.secret, request.body, request.headers.get(SIGNATURE, ""))

    def parse(self, origin, request) -> Inbound | None:
        event = request.headers.get(EVENT, "")
        if event == "ping":  # sent when the webhook is saved, and by the test button
            raise Handshake({"ok": True, "ping": True, "message": "The signature checks out."})
        delivery_id = request.headers.get(DELIVERY, "").strip()
        if not delivery_id:
            raise Refusal("invalid_input", f"The request has no {DELIVERY} header.")
        payload = read_payload(request.body, request.content_type)
        handle = str(origin.settings.get("handle") or "")
        inbound = inbound_from_event(event, payload, handle=handle, delivery_id=delivery_id)
        if inbound is None:
            return None
        check_recent(payload, timezone.now())
        # The signature covers the body, not the delivery id: the body is the request.
        return replace(inbound, signed_digest=hashlib.sha256(request.body).hexdigest())

    def send_answer(self, thread, text: str) -> None:
        post_answer(thread.origin.settings, thread.reply_to, text)

    def test_request(self, origin) -> tuple[dict[str, str], bytes]:
        """Headers and body of a signed `ping`, as GitHub sends one when the webhook is saved
        (the Settings page's test button): it checks the signature and starts nothing."""
        body = json.dumps({"zen": "A test request from Crosstalk.", "hook_id": 0}).encode()
        headers = {
            "Content-Type": "application/json",
            EVENT: "ping",
            DELIVERY: f"test-{uuid.uuid4().hex}",
            SIGNATURE: signature(origin.secret, body),
        }
        return headers, body
