"""The benches' accounts and limits, run inside Django, one process for each end of a
run (each process pays Django's start, about a second of CPU on this machine):

    python -m bench.setup create          # migrate, raise the limits, make the account
    python -m bench.setup drop LIMITS     # drop the account, put LIMITS (JSON) back
    python -m bench.setup token USER      # migrate, USER afresh with an API token
    python -m bench.setup drop-user USER

`create` prints JSON: the user id, the sender's id and agent key, the recipient's id,
and the limits as they were. Both chats ran once (so they are reachable); the recipient
is stopped, so every message is held: no turn is requested and the runner does no work
during the run."""

import json
import os
import sys

import django

BENCH_USER = "bench"
# A bench sends thousands of messages an hour between two chats.
HIGH_LIMITS = {
    "chat_per_hour": 10000,
    "pair_per_window": 10000,
    "pair_window_minutes": 1,
    "pair_without_you": 10000,
    "chain_without_you": 10000,
    "wakes_per_hour": 10000,
}


def raise_limits() -> dict:
    """Migrates, then raises the peer limits; the values they had, to put back."""
    from django.core.management import call_command

    from peers.actions import do_set_limits
    from peers.limits import current_limits

    call_command("migrate", interactive=False, verbosity=0)
    saved = {name: getattr(current_limits(), name) for name in HIGH_LIMITS}
    do_set_limits(HIGH_LIMITS)
    return saved


def create() -> dict:
    from django.db import transaction

    from accounts.models import User
    from chats.actions import (
        check_create_chat,
        do_mark_turn_done,
        do_prompt,
        do_start_turn,
    )
    from chats.inputs import ChatCreate
    from peers.actions import check_stop_chat

    drop()
    user = User.objects.create_user(BENCH_USER)
    sender, key = check_create_chat(user, spec=ChatCreate(name="bench-sender", peers=True))
    recipient, _ = check_create_chat(user, spec=ChatCreate(name="bench-recipient", peers=True))
    turns = []
    for chat in (sender, recipient):
        # Started here, not by a runner: a server's runner must not take these turns.
        with transaction.atomic():
            turns.append(do_start_turn(do_prompt(chat, text="get ready"), chat, worker="bench"))
    do_mark_turn_done(turns[0], final_text="ready")
    check_stop_chat(recipient)
    return {"user": user.pk, "sender": sender.pk, "key": key, "recipient": recipient.pk}


def drop(username: str = BENCH_USER) -> None:
    from accounts.models import User

    User.objects.filter(username=username).delete()


def token(username: str) -> dict:
    """A fresh account with an API token (bench.hooks), and the hook command as the
    generated configs run it."""
    from django.core.management import call_command

    from accounts.actions import do_create_api_token
    from accounts.models import User
    from agents.attach.common import hook_command

    call_command("migrate", interactive=False, verbosity=0)
    drop(username)
    user = User.objects.create_user(username)
    return {
        "token": do_create_api_token(user, name="bench")[1],
        "hook_command": hook_command("claude-code"),
    }


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    django.setup()
    from peers.actions import do_set_limits

    command, *rest = sys.argv[1:] or [""]
    if command == "create" and not rest:
        limits = raise_limits()
        print(json.dumps(create() | {"limits": limits}))
    elif command == "drop" and len(rest) == 1:
        drop()
        do_set_limits(json.loads(rest[0]))
    elif command == "token" and len(rest) == 1:
        print(json.dumps(token(rest[0])))
    elif command == "drop-user" and len(rest) == 1:
        drop(rest[0])
    else:
        raise SystemExit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
