"""Every state change of chats, turns and entries (CONVENTIONS.md: check_* then do_*)."""

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts import keys
from chats import events
from chats.inputs import ChatCreate, ChatUpdate
from chats.models import Chat, Entry, Turn
from chats.refusals import Refusal

Status = Chat.Status


def check_create_chat(user, *, spec: ChatCreate) -> tuple[Chat, str]:
    """Returns the new chat and its agent key (shown this once)."""
    if spec.agent == Chat.Agent.COMMAND and not spec.command:
        raise Refusal("invalid_input", "command: a command chat needs the command line to run.")
    if name_taken(user, spec.name):
        raise Refusal("name_taken", f"You already have a chat named {spec.name!r}; pick another.")
    fields = spec.model_dump()
    if fields["peers"] is None:
        fields["peers"] = user.peers_for_new_chats
    try:
        return do_create_chat(user, **fields)
    except IntegrityError:
        raise Refusal("name_taken", f"You already have a chat named {spec.name!r}.") from None


def do_create_chat(user, **fields) -> tuple[Chat, str]:
    secret = keys.new_secret("cak")
    with transaction.atomic():
        chat = Chat.objects.create(user=user, agent_key_digest=keys.digest(secret), **fields)
        events.publish(user.pk, "chat", chat=chat.pk)
    return chat, secret


def name_taken(user, name: str, *, exclude: str | None = None) -> bool:
    chats = Chat.objects.filter(user=user, name__iexact=name)
    return chats.exclude(pk=exclude).exists() if exclude else chats.exists()


def check_update_chat(user, chat: Chat, *, spec: ChatUpdate) -> Chat:
    changes = spec.model_dump(exclude_none=True)
    if "name" in changes and name_taken(user, changes["name"], exclude=chat.pk):
        raise Refusal("name_taken", f"You already have a chat named {changes['name']!r}.")
    return do_update_chat(chat, **changes)


def do_update_chat(chat: Chat, **changes) -> Chat:
    """peers.actions wraps this for the switch, which it logs."""
    with transaction.atomic():
        for field, value in changes.items():
            setattr(chat, field, value)
        if changes:
            chat.save(update_fields=[*changes, "updated_at"])
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return chat


def check_prompt(chat: Chat, *, text: str, send_queued: bool = True) -> Turn:
    if not text.strip():
        raise Refusal("empty_message", "Write something for the agent first.")
    return do_prompt(chat, text=text, send_queued=send_queued)


def do_prompt(chat: Chat, *, text: str, send_queued: bool = True) -> Turn:
    """The person writes to the chat: a turn is requested (queued behind a running one)."""
    now = timezone.now()
    with transaction.atomic():
        Entry.objects.create(chat=chat, kind=Entry.Kind.PROMPT, text=text)
        chat.last_asked = text
        # The person writing resets this chat's "without you" counters.
        chat.person_wrote_at = now
        chat.save(update_fields=["last_asked", "person_wrote_at", "updated_at"])
        turn = Turn.objects.create(
            chat=chat,
            trigger=Turn.Trigger.PROMPT,
            prompt=text,
            send_queued=send_queued,
            chain=keys.new_id("chain"),
        )
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.wake_runners()
    return turn


def request_turn(chat: Chat, *, trigger: str, chain: str = "", hop: int = 0) -> Turn:
    """A turn for messages waiting on the chat (a wake or a send-on).

    One requested turn takes every queued message when it starts, so an
    existing request is reused rather than doubled."""
    existing = chat.turns.filter(state=Turn.State.REQUESTED).first()
    if existing is not None:
        return existing
    turn = Turn.objects.create(chat=chat, trigger=trigger, chain=chain, hop=hop)
    events.wake_runners()
    return turn


def claim_next_turn(worker: str) -> Turn | None:
    """Start the oldest requested turn of a chat that runs nothing else.

    Two runners may race for it: skip_locked hands each turn row to one of
    them, and the chat row lock keeps a chat to one running turn."""
    running = Turn.objects.filter(chat=OuterRef("chat"), state=Turn.State.RUNNING)
    # Only a chat's oldest request may start: a racing runner that skipped the
    # locked first turn must not start the chat's second one ahead of it.
    earlier = Turn.objects.filter(chat=OuterRef("chat"), state=Turn.State.REQUESTED).filter(
        Q(requested_at__lt=OuterRef("requested_at"))
        | Q(requested_at=OuterRef("requested_at"), id__lt=OuterRef("id"))
    )
    with transaction.atomic():
        turn = (
            Turn.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(state=Turn.State.REQUESTED)
            .exclude(Exists(running))
            .exclude(Exists(earlier))
            .order_by("requested_at", "id")
            .first()
        )
        if turn is None:
            return None
        chat = Chat.objects.select_for_update(no_key=True).get(pk=turn.chat_id)
        if chat.turns.filter(state=Turn.State.RUNNING).exists():
            return None
        return do_start_turn(turn, chat, worker=worker)


def do_start_turn(turn: Turn, chat: Chat, *, worker: str) -> Turn:
    now = timezone.now()
    turn.state = Turn.State.RUNNING
    turn.worker = worker
    turn.started_at = now
    turn.save(update_fields=["state", "worker", "started_at"])
    chat.status = Status.RUNNING
    chat.last_ran_at = now
    chat.save(update_fields=["status", "last_ran_at", "updated_at"])
    turn.chat = chat
    events.publish(chat.user_id, "chat", chat=chat.pk)
    return turn


def do_set_turn_input(turn: Turn, *, text: str) -> None:
    turn.input = text
    turn.save(update_fields=["input"])


def turn_is_running(turn_id: int) -> bool:
    return Turn.objects.filter(pk=turn_id, state=Turn.State.RUNNING).exists()


def do_add_entry(
    chat: Chat, *, kind: str, text: str, turn: Turn | None = None, message_id: str = ""
) -> Entry:
    entry = Entry.objects.create(chat=chat, turn=turn, kind=kind, text=text, message_id=message_id)
    events.publish(chat.user_id, "entry", chat=chat.pk)
    return entry


def do_finish_turn(turn: Turn, *, final_text: str, background: bool = False) -> bool:
    """End a turn that ran to its end; False when the person stopped it meanwhile."""
    with transaction.atomic():
        chat = Chat.objects.select_for_update(no_key=True).get(pk=turn.chat_id)
        ended = end_turn(turn, Turn.State.DONE, final_text=final_text)
        if not ended:
            return False
        if final_text:
            Entry.objects.create(chat=chat, turn=turn, kind=Entry.Kind.ANSWER, text=final_text)
            chat.last_answered = final_text
        chat.status = Status.WAITING if background else Status.IDLE
        chat.save(update_fields=["status", "last_answered", "updated_at"])
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return True


def do_fail_turn(turn: Turn, *, error: str) -> bool:
    with transaction.atomic():
        chat = Chat.objects.select_for_update(no_key=True).get(pk=turn.chat_id)
        if not end_turn(turn, Turn.State.FAILED, error=error):
            return False
        Entry.objects.create(
            chat=chat, turn=turn, kind=Entry.Kind.NOTICE, text=f"The turn failed: {error}"
        )
        chat.status = Status.FAILED
        chat.save(update_fields=["status", "updated_at"])
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return True


def end_turn(turn: Turn, state: str, *, final_text: str = "", error: str = "") -> bool:
    """Conditional update: only a turn still running can end, and only once."""
    now = timezone.now()
    updated = Turn.objects.filter(pk=turn.pk, state=Turn.State.RUNNING).update(
        state=state, final_text=final_text, error=error, ended_at=now
    )
    turn.state, turn.final_text, turn.error, turn.ended_at = state, final_text, error, now
    return updated == 1


def do_end_background(chat: Chat) -> bool:
    """Background work finished: a waiting chat goes idle (peers then sends on its queue)."""
    with transaction.atomic():
        updated = Chat.objects.filter(pk=chat.pk, status=Status.WAITING).update(
            status=Status.IDLE, updated_at=timezone.now()
        )
        if updated:
            chat.status = Status.IDLE
            events.publish(chat.user_id, "chat", chat=chat.pk)
    return updated == 1


def do_stop_chat(chat: Chat) -> Chat:
    """The person stops the chat: its running turn ends, nothing restarts it but them.

    Call peers.actions.check_stop_chat, which also holds the chat's messages."""
    now = timezone.now()
    with transaction.atomic():
        chat = Chat.objects.select_for_update(no_key=True).get(pk=chat.pk)
        ended = chat.turns.filter(state__in=[Turn.State.RUNNING, Turn.State.REQUESTED]).update(
            state=Turn.State.CANCELLED, ended_at=now, error="Stopped by you."
        )
        if ended or chat.status != Status.STOPPED:
            Entry.objects.create(chat=chat, kind=Entry.Kind.NOTICE, text="Stopped by you.")
            events.publish(chat.user_id, "entry", chat=chat.pk)
        chat.status = Status.STOPPED
        chat.save(update_fields=["status", "updated_at"])
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return chat


def do_recover_interrupted_turns() -> int:
    """After a restart of the only runner: turns left running can never finish."""
    with transaction.atomic():
        stuck = list(Turn.objects.filter(state=Turn.State.RUNNING).select_related("chat"))
        for turn in stuck:
            do_fail_turn(turn, error="Crosstalk restarted while this turn ran.")
        Chat.objects.filter(status=Status.WAITING).update(status=Status.IDLE)
    return len(stuck)


def do_delete_chats(user) -> int:
    """Remove every chat of the account, with its turns, entries and messages (seed_demo)."""
    with transaction.atomic():
        chat_ids = list(Chat.objects.filter(user=user).values_list("pk", flat=True))
        Chat.objects.filter(pk__in=chat_ids).delete()
        for chat_id in chat_ids:
            events.publish(user.pk, "chat", chat=chat_id)
    return len(chat_ids)
