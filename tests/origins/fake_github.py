"""A fake GitHub REST API on 127.0.0.1 that records the answers Crosstalk posts.

    with FakeGitHub(token="ghp_test") as github:
        ...  # the origin's settings: {"api_url": github.url, "token": "ghp_test"}
        assert github.comments() == [("octo/shop", 12, None, "the answer")]

It takes issue comments (POST /repos/{o}/{r}/issues/{n}/comments) and replies in a pull
request's review thread (POST /repos/{o}/{r}/pulls/{n}/comments/{id}/replies), and
refuses a call without the token, as GitHub does."""

import re

from tests.origins.fake_api import Call, FakeApi


def _comment(fake: "FakeGitHub", call: Call, owner, repo, number, comment_id=None):
    if call.headers.get("Authorization") not in fake.accepted_auth():
        return 401, {"message": "Bad credentials"}
    body = (call.body or {}).get("body")
    if not isinstance(body, str) or not body:
        return 422, {"message": "Validation Failed"}
    fake.posted.append((f"{owner}/{repo}", int(number), comment_id and int(comment_id), body))
    return 201, {"id": 900 + len(fake.posted), "body": body, "user": {"login": "crosstalk"}}


def _installation_token(fake: "FakeGitHub", call: Call, installation_id):
    # GitHub Apps: a JWT signed with the app's key buys an installation token.
    if not (call.headers.get("Authorization") or "").startswith("Bearer ey"):
        return 401, {"message": "A JSON web token could not be decoded"}
    fake.installations.append(int(installation_id))
    return 201, {"token": fake.token, "expires_at": "2099-01-01T00:00:00Z", "permissions": {}}


class FakeGitHub(FakeApi):
    routes = [
        (
            "POST",
            re.compile(r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<number>\d+)/comments"),
            _comment,
        ),
        (
            "POST",
            re.compile(
                r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls/(?P<number>\d+)"
                r"/comments/(?P<comment_id>\d+)/replies"
            ),
            _comment,
        ),
        (
            "POST",
            re.compile(r"/app/installations/(?P<installation_id>\d+)/access_tokens"),
            _installation_token,
        ),
    ]

    def __init__(self, token: str):
        super().__init__()
        self.token = token
        self.posted: list[tuple[str, int, int | None, str]] = []
        self.installations: list[int] = []

    def accepted_auth(self) -> set[str]:
        return {f"token {self.token}", f"Bearer {self.token}"}

    def comments(self) -> list[tuple[str, int, int | None, str]]:
        """(repo, issue or PR number, the review comment replied to or None, body)."""
        return list(self.posted)
