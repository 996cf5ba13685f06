"""A limit lowered on the admin page holds on the very next send of a process that
was already running (and had already sent under the old limit)."""

import os
import select
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection
from django.test import Client

from accounts.models import User
from peers.limits import defaults

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]

# Runs in the child: one send per line read from stdin, its outcome printed.
SENDER = """
import sys
from chats.models import Chat
from kernel.refusals import Refusal
from peers.actions import check_send_message
for line in sys.stdin:
    sender_id, to = line.split()
    sender = Chat.objects.select_related("user").get(pk=sender_id)
    try:
        check_send_message(sender, to=to, text="which port?")
        print("sent", flush=True)
    except Refusal as refusal:
        print(refusal.code, flush=True)
"""


def database_url() -> str:
    """The test database, as DATABASE_URL for a child process."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def ask(child: subprocess.Popen, line: str, *, within: float = 60) -> str:
    child.stdin.write(line + "\n")
    child.stdin.flush()
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        ready, _, _ = select.select([child.stdout], [], [], deadline - time.monotonic())
        if ready:
            return child.stdout.readline().strip()
    raise AssertionError(f"the child did not answer within {within} s")


@pytest.fixture
def sending_process():
    env = {**os.environ, "DATABASE_URL": database_url()}
    child = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", SENDER],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    yield child
    child.stdin.close()
    child.wait(timeout=30)


def test_it_refuses_the_next_send_in_another_process_once_lowered(
    sending_process, sender, recipient
):
    admin = User.objects.create_user("root", password="root-password-1", is_staff=True)
    page = Client()
    page.force_login(admin)
    job = f"{sender.pk} {recipient.pk}"
    assert ask(sending_process, job) == "sent"
    assert ask(sending_process, job) == "sent"
    form = {**defaults(), "chat_per_hour": 2}
    assert page.post("/internal/admin/peers", form).status_code == 302
    assert ask(sending_process, job) == "limit_chat_hour"
    form["chat_per_hour"] = 3
    assert page.post("/internal/admin/peers", form).status_code == 302
    assert ask(sending_process, job) == "sent"
