"""How long a message takes to reach a running Claude Code session: from the send to
the CLI's next model request carrying it (delivered between steps, PostToolUse).

A live Crosstalk (`manage.py serve` on its own SQLite file), the REAL `claude` CLI
attached exactly as `agent_config --write` does, and the test suite's fake model.
The prompt runs one shell step of STEP seconds; the message is sent the moment the
CLI asks the model for that step, so the figure is the step plus what delivery adds
(the hook's round trip and the CLI's own work). Prints each run and the medians.

    .venv/bin/python -m bench.between_steps --runs 5
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
import django  # noqa: E402

django.setup()  # the attach tests' helpers import the models

from tests.agentcli.clis import find_cli  # noqa: E402
from tests.agentcli.fake_model import FakeModel  # noqa: E402
from tests.agentcli.headless import claude_turn  # noqa: E402
from tests.servers import Crosstalk, manage, start_server, stop_server  # noqa: E402

STEP = 1.0


class Stopwatch(FakeModel):
    """The fake model; sends the message when the CLI asks for the shell step and
    notes when a request first carries it."""

    def __init__(self, send):
        super().__init__()
        self.send, self.sent_at, self.seen_at, self.marker = send, None, None, None

    def record(self, request) -> None:
        super().record(request)
        if not request.body or request.body.get("tools") is None:
            return
        body = json.dumps(request.body)
        if self.sent_at is None:
            self.sent_at = time.monotonic()
            self.marker = self.send()
        elif self.seen_at is None and self.marker in body:
            self.seen_at = time.monotonic()


def one_run(claude: Path, crosstalk: Crosstalk, sender: dict, n: int, root: Path) -> float:
    name = f"api-{n}"
    attached = crosstalk.new_chat(name, "claude-code")
    folder, home = root / f"work-{n}", root / f"home-{n}"
    folder.mkdir()
    home.mkdir()
    crosstalk.agent_config(name, "claude-code", folder)
    marker = f"MSG-{n}-{time.time_ns()}"

    def send() -> str:
        crosstalk.send(sender["agent_key"], attached["id"], marker)
        return marker

    with Stopwatch(send) as fake:
        prompt = f"[[bash sleep {STEP}]]\n[[say done]]"
        claude_turn(claude, fake, home, folder, prompt, "--permission-mode", "bypassPermissions")
    if fake.seen_at is None:
        raise SystemExit(f"run {n}: the message never reached the model")
    return fake.seen_at - fake.sent_at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    claude = find_cli("claude")
    with tempfile.TemporaryDirectory(prefix="crosstalk-bench-") as tmp:
        root = Path(tmp)
        env = dict(os.environ, DATABASE_URL=f"sqlite:///{root / 'db.sqlite3'}")
        env.pop("REDIS_URL", None)
        manage(env, "migrate", "--noinput", "-v0")
        token = manage(env, "create_api_token", "bench", "--create-user").split()[-1]
        server, url = start_server(env | {"DEMO_STEP_SECONDS": "0"})
        try:
            crosstalk = Crosstalk(url, env | {"CROSSTALK_URL": url}, token)
            sender = crosstalk.new_chat("checkout", "demo")
            crosstalk.call("POST", f"/api/v1/chats/{sender['id']}/prompts", {"text": "hi"})
            crosstalk.wait_for(lambda: crosstalk.chat(sender["id"])["last_ran_at"], "a turn")
            times = [one_run(claude, crosstalk, sender, n, root) for n in range(args.runs)]
        finally:
            stop_server(server)
    for n, seconds in enumerate(times):
        print(f"run {n}: {seconds:.3f} s from send to the next model request")
    median = statistics.median(times)
    print(f"median {median:.3f} s; minus the {STEP:.0f} s step: {median - STEP:.3f} s")


if __name__ == "__main__":
    main()
