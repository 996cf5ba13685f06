"""The bench's account, run inside Django: `python -m bench.setup create|drop`.

`create` prints JSON: the user id, the sender's id and agent key, the recipient's id.
Both chats ran once (so they are reachable); the recipient is stopped, so every
message is held: no turn is requested and the runner does no work during the run."""

import json
import os
import sys

import django

BENCH_USER = "bench"


def create() -> dict:
    from django.db import transaction

    from accounts.models import User
    from chats.actions import (
        check_create_chat,
        do_finish_turn,
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
    do_finish_turn(turns[0], final_text="ready")
    check_stop_chat(recipient)
    return {"user": user.pk, "sender": sender.pk, "key": key, "recipient": recipient.pk}


def drop() -> None:
    from accounts.models import User

    User.objects.filter(username=BENCH_USER).delete()


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    django.setup()
    if sys.argv[1:] == ["create"]:
        print(json.dumps(create()))
    elif sys.argv[1:] == ["drop"]:
        drop()
    else:
        raise SystemExit("usage: python -m bench.setup create|drop")


if __name__ == "__main__":
    main()
