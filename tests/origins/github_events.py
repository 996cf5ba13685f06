"""GitHub webhook deliveries in the documented shapes (issue_comment,
pull_request_review_comment, ping), trimmed to the fields a receiver reads plus a few
it must not trip on, and signed as GitHub signs them."""

import copy
import json
import uuid
from datetime import UTC, datetime

from origins.connectors.github import signature

REPO = {
    "id": 1296269,
    "name": "shop",
    "full_name": "octo/shop",
    "owner": {"login": "octo", "id": 1, "type": "Organization"},
    "private": False,
}


def just_now() -> str:
    """A comment's created_at as GitHub writes it, for a comment made now."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def user(login: str) -> dict:
    return {"login": login, "id": 583231, "type": "Bot" if login.endswith("[bot]") else "User"}


def issue_comment(body: str, *, number=12, login="dana", action="created", on_pr=False) -> dict:
    issue = {
        "number": number,
        "title": "Checkout total is off by one cent",
        "state": "open",
        "html_url": f"https://github.com/octo/shop/issues/{number}",
        "user": user("erin"),
    }
    if on_pr:  # a comment on a pull request's conversation is an issue_comment too
        issue["pull_request"] = {"url": f"https://api.github.com/repos/octo/shop/pulls/{number}"}
    return {
        "action": action,
        "issue": issue,
        "comment": {
            "id": 5550001,
            "body": body,
            "user": user(login),
            "html_url": f"https://github.com/octo/shop/issues/{number}#issuecomment-5550001",
            "created_at": just_now(),
        },
        "repository": copy.deepcopy(REPO),
        "sender": user(login),
    }


def review_comment(body: str, *, number=7, comment_id=7770002, in_reply_to=None) -> dict:
    comment = {
        "id": comment_id,
        "body": body,
        "path": "shop/cart.py",
        "line": 42,
        "original_line": 42,
        "diff_hunk": (
            "@@ -40,3 +40,4 @@ def total(cart):\n     subtotal = sum(cart)\n"
            "+    return round(subtotal, 2)"
        ),
        "user": user("dana"),
        "html_url": f"https://github.com/octo/shop/pull/{number}#discussion_r{comment_id}",
        "created_at": just_now(),
    }
    if in_reply_to:
        comment["in_reply_to_id"] = in_reply_to
    return {
        "action": "created",
        "comment": comment,
        "pull_request": {"number": number, "title": "Round the total", "state": "open"},
        "repository": copy.deepcopy(REPO),
        "sender": user("dana"),
    }


def ping() -> dict:
    return {"zen": "Keep it logically awesome.", "hook_id": 30, "hook": {"type": "Repository"}}


def delivery(secret: str, event: str, payload: dict, *, delivery_id: str | None = None):
    """(body, headers) as GitHub sends a delivery, signed with `secret`."""
    body = json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/044aadd",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery_id or str(uuid.uuid4()),
        "X-Hub-Signature-256": signature(secret, body),
    }
    return body, headers
