"""GitHub and Slack end to end through `manage.py serve` (its own SQLite file): the
server's own runner runs the demo turn and its own answer loop posts the answer to the
fake GitHub and Slack APIs on loopback. Nothing here drives the runner or the loop.

The server is another process: this module never opens the test database."""

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.origins.fake_github import FakeGitHub
from tests.origins.fake_slack import FakeSlack
from tests.origins.github_events import delivery, issue_comment
from tests.origins.live import post_hook
from tests.origins.slack_events import app_mention, signed
from tests.servers import manage, migrate, poll, start_server, stop_server

pytestmark = pytest.mark.embedded_only
GITHUB_TOKEN = "ghp_served-test"
SLACK_TOKEN = "xoxb-served-test"

# Run by `manage.py shell`: one person and a GitHub and a Slack origin pointing at the fakes.
MAKE_ORIGINS = """
import json
from accounts.models import User
from origins.models import Origin
person = User.objects.create_user("octo-person", password="unused-password-1")
github = Origin.objects.create(user=person, name="issues", kind="github", settings={{
    "handle": "crosstalk-bot", "api_url": "{github}", "token": "{github_token}"}})
slack = Origin.objects.create(user=person, name="team", kind="slack", settings={{
    "api_url": "{slack}", "bot_token": "{slack_token}"}})
print(json.dumps({{kind.kind: [kind.public_id, kind.secret] for kind in (github, slack)}}))
"""


@pytest.fixture
def release_db_thread_connection() -> None:
    """Overrides the suite's autouse fixture: this module never opens a connection."""


@dataclass(frozen=True)
class Served:
    url: str
    github: FakeGitHub
    slack: FakeSlack
    origins: dict[str, list[str]]  # kind → [public id, secret]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    env = dict(
        os.environ,
        DATABASE_URL=f"sqlite:///{tmp_path_factory.mktemp('served') / 'db.sqlite3'}",
        DEMO_STEP_SECONDS="0",
        ORIGIN_REPLY_POLL_SECONDS="0.1",
        ORIGIN_PRIVATE_URLS="1",  # the fake GitHub and Slack listen on 127.0.0.1
    )
    env.pop("REDIS_URL", None)
    migrate(env)
    with FakeGitHub(GITHUB_TOKEN) as github, FakeSlack(SLACK_TOKEN) as slack:
        code = MAKE_ORIGINS.format(
            github=github.url,
            github_token=GITHUB_TOKEN,
            slack=slack.api_url,
            slack_token=SLACK_TOKEN,
        )
        origins = json.loads(manage(env, "shell", "-c", code).strip().splitlines()[-1])
        server, url = start_server(env)
        try:
            yield Served(url, github, slack, origins)
        finally:
            stop_server(server)


def test_it_a_github_mention_is_answered_in_its_issue_by_the_server_alone(served):
    public_id, secret = served.origins["github"]
    body, headers = delivery(secret, "issue_comment", issue_comment("@crosstalk-bot hi", number=31))

    answer = post_hook(served.url, public_id, body, headers)

    assert answer.status_code == 202, answer.text
    [(repo, number, _, text)] = poll(served.github.comments, "the answer on GitHub", timeout=60)
    assert (repo, number) == ("octo/shop", 31)
    assert text.startswith('Read a request from github by dana: "A comment on issue octo/shop#31')


def test_it_a_slack_mention_is_answered_once_in_its_thread_whatever_slack_retries(served):
    public_id, secret = served.origins["slack"]
    payload = app_mention("<@U0BOT0001> which port?", ts="1700000500.000100")

    first = post_hook(served.url, public_id, *signed(secret, payload))
    retry = post_hook(served.url, public_id, *signed(secret, payload, retry=1))

    assert (first.status_code, retry.status_code) == (202, 200), (first.text, retry.text)
    [(channel, thread_ts, text)] = poll(served.slack.messages, "the answer on Slack", timeout=60)
    assert (channel, thread_ts) == ("C0LAN2Q65", "1700000500.000100")
    assert text.startswith('Read a request from slack by U061F7AUR: "A Slack message from')
