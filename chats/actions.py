"""Every state change of chats, turns and entries (docs/rules.md: check_* then do_*)."""

from collections.abc import Callable, Collection
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts import keys
from chats import agent_kinds, events, runners, signals
from chats.idempotency import note_work
from chats.inputs import ChatCreate, ChatUpdate, valid_session_id
from chats.models import Chat, Entry, Turn
from chats.refusals import Refusal

Status = Chat.Status
SESSION_ID_RULE = (
    "session_id: letters, digits, `-`, `_`, `.` and `:` only, at most 128, not starting with `-`."
)
# The worker of a turn opened by the hooks of a session the person runs themselves.
ATTACHED = "attached:"


def check_create_chat(user, *, spec: ChatCreate) -> tuple[Chat, str]:
    """Returns the new chat and its agent key (shown this once)."""
    check_chat_template(
        user,
        agent=spec.agent,
        folder=spec.folder,
        command=spec.command,
        permission_mode=spec.permission_mode,
    )
    if name_taken(user, spec.name):
        raise Refusal("name_taken", f"You already have a chat named {spec.name!r}; pick another.")
    fields = spec.model_dump()
    if fields["peers"] is None:
        fields["peers"] = user.peers_for_new_chats
    try:
        return do_create_chat(user, **fields)
    except IntegrityError:
        raise Refusal("name_taken", f"You already have a chat named {spec.name!r}.") from None


def check_chat_template(
    user, *, agent: str, folder: str, command: str, permission_mode: str = ""
) -> None:
    """What a new chat's agent needs, also checked when an origin is set up to start chats."""
    if agent == Chat.Agent.COMMAND and not command:
        raise Refusal("invalid_input", "command: a command chat needs the command line to run.")
    runners.check_may_run(user, agent=agent, folder=folder)
    if (problem := runners.why_folder_refused(folder)) is not None:
        raise Refusal("invalid_input", problem)
    if (problem := agent_kinds.why_mode_refused(agent, permission_mode)) is not None:
        raise Refusal("invalid_input", problem)
    # Said now rather than by a failed first turn: no folder here, no CLI installed.
    problem = agent_kinds.why_not_ready(agent, folder=folder, command=command)
    if problem is not None:
        raise Refusal("invalid_input", problem)


def do_create_chat(user, **fields) -> tuple[Chat, str]:
    secret = keys.new_secret("cak")
    with transaction.atomic():
        chat = Chat.objects.create(user=user, agent_key_digest=keys.digest(secret), **fields)
        note_work(f"chat:{chat.pk}")  # a keyed request's claim, in this transaction
        events.publish(user.pk, "chat", chat=chat.pk)
    return chat, secret


def name_taken(user, name: str, *, exclude: str | None = None) -> bool:
    chats = Chat.objects.filter(user=user, name__iexact=name)
    return chats.exclude(pk=exclude).exists() if exclude else chats.exists()


def check_update_chat(user, chat: Chat, *, spec: ChatUpdate) -> Chat:
    changes = spec.model_dump(exclude_none=True)
    mode = changes.get("permission_mode", "")
    if (problem := agent_kinds.why_mode_refused(chat.agent, mode)) is not None:
        raise Refusal("invalid_input", problem)
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
    runners.check_may_run(chat.user, agent=chat.agent, folder=chat.folder)
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
        note_work(f"turn:{turn.pk}")
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


def claim_next_turn(worker: str, *, skip_accounts: Collection[int] = ()) -> Turn | None:
    """Start the oldest requested turn of a chat that runs nothing else.

    Two runners may race for it: skip_locked hands each turn row to one of
    them, and the chat row lock keeps a chat to one running turn. Turns of the
    `skip_accounts` (at their share on this runner) wait, in order, for a later claim."""
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
            .exclude(chat__user_id__in=list(skip_accounts))
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
    turn.lease_until = lease_end(now)
    turn.save(update_fields=["state", "worker", "started_at", "lease_until"])
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
            put_answer(turn, final_text)
            chat.last_answered = final_text
        chat.status = Status.WAITING if background else Status.IDLE
        chat.save(update_fields=["status", "last_answered", "updated_at"])
        signals.turn_finished.send(Turn, turn=turn, chat=chat, final_text=final_text)
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return True


def put_answer(turn: Turn, text: str) -> None:
    """The final text; a CLI's answer already shown as it grew becomes it, not a
    second entry (a note after it, such as a refused tool, does not count)."""
    last = turn.entries.exclude(kind=Entry.Kind.NOTICE).order_by("-created_at", "-id").first()
    if last is not None and last.kind == Entry.Kind.ANSWER:
        last.text = text
        last.save(update_fields=["text"])
    else:
        Entry.objects.create(chat_id=turn.chat_id, turn=turn, kind=Entry.Kind.ANSWER, text=text)


def do_fail_turn(turn: Turn, *, error: str, lease_expired_by=None) -> bool:
    """End a running turn as failed; with lease_expired_by, only if its lease ran out then."""
    with transaction.atomic():
        chat = Chat.objects.select_for_update(no_key=True).get(pk=turn.chat_id)
        if not end_turn(turn, Turn.State.FAILED, error=error, lease_expired_by=lease_expired_by):
            return False
        Entry.objects.create(
            chat=chat, turn=turn, kind=Entry.Kind.NOTICE, text=f"The turn failed: {error}"
        )
        chat.status, chat.failure = Status.FAILED, error
        chat.save(update_fields=["status", "failure", "updated_at"])
        signals.turn_failed.send(Turn, turn=turn, chat=chat, error=error)
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return True


def end_turn(
    turn: Turn, state: str, *, final_text: str = "", error: str = "", lease_expired_by=None
) -> bool:
    """Conditional update: only a turn still running can end, and only once."""
    now = timezone.now()
    running = Turn.objects.filter(pk=turn.pk, state=Turn.State.RUNNING)
    if lease_expired_by is not None:
        running = running.filter(lease_expired(lease_expired_by))
    updated = running.update(state=state, final_text=final_text, error=error, ended_at=now)
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


def do_recover_interrupted_turns(*, hold: Callable[[Chat], None]) -> int:
    """After a restart of the only runner (the embedded default): the turns it left
    running can never finish. Attached sessions' turns are their hooks' to end.
    `hold(chat)` keeps the chat's messages for the person, as for any failed turn."""
    with transaction.atomic():
        stuck = Turn.objects.filter(state=Turn.State.RUNNING).exclude(worker__startswith=ATTACHED)
        stuck = list(stuck.select_related("chat"))
        for turn in stuck:
            if do_fail_turn(turn, error="Crosstalk restarted while this turn ran."):
                hold(turn.chat)
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


# Leases: a worker that dies (SIGKILL, a lost machine) cannot end its turns, so each
# running turn carries a lease its worker renews; any worker fails it once it runs out.
WORKER_LOST = "the worker running this turn stopped"


def lease_seconds() -> float:
    """How long a lease lasts: two thirds of TURN_LEASE_SECONDS, so that with a
    check every sixth of it a dead worker's turn fails within TURN_LEASE_SECONDS."""
    return settings.TURN_LEASE_SECONDS * 2 / 3


def lease_end(now):
    return now + timedelta(seconds=lease_seconds())


def lease_expired(now) -> Q:
    # A turn started before leases existed has none: it counts from its start.
    unleased = Q(lease_until__isnull=True, started_at__lt=now - timedelta(seconds=lease_seconds()))
    return Q(lease_until__lt=now) | unleased


def do_renew_leases(worker: str) -> int:
    """The worker is alive: every turn it still runs keeps its lease."""
    running = Turn.objects.filter(worker=worker, state=Turn.State.RUNNING)
    return running.update(lease_until=lease_end(timezone.now()))


def do_reclaim_expired_turns(now, *, hold: Callable[[Chat], None]) -> int:
    """Fail the turns whose worker stopped renewing; the turns requested behind them
    may start. `hold(chat)` runs in the same transaction: peers passes
    peers.actions.hold_for_person, so the chat's messages wait for the person."""
    # An attached session's turn has no worker to renew it: its hooks end it.
    expired = Turn.objects.filter(lease_expired(now), state=Turn.State.RUNNING).exclude(
        worker__startswith=ATTACHED
    )
    reclaimed = 0
    for turn in expired.select_related("chat"):
        with transaction.atomic():
            if not do_fail_turn(turn, error=WORKER_LOST, lease_expired_by=now):
                continue  # its worker renewed it, or ended it, just now
            hold(turn.chat)
            events.wake_runners()
        reclaimed += 1
    return reclaimed


# Attached sessions and hooks ---------------------------------------------------


def do_rotate_agent_key(chat: Chat) -> str:
    """A new agent key for the chat, shown once; the old one stops working at once."""
    secret = keys.new_secret("cak")
    chat.agent_key_digest = keys.digest(secret)
    chat.save(update_fields=["agent_key_digest", "updated_at"])
    return secret


def do_set_session_id(chat: Chat, *, session_id: str) -> None:
    """Empty forgets the session (its CLI lost it: the next turn starts a fresh one)."""
    if session_id and not valid_session_id(session_id):  # hooks refuse it first; a CLI too
        raise Refusal("invalid_input", SESSION_ID_RULE)
    if chat.session_id == session_id:
        return
    chat.session_id = session_id
    chat.save(update_fields=["session_id", "updated_at"])
    events.publish(chat.user_id, "chat", chat=chat.pk)


def do_hook_prompt(chat: Chat, *, prompt: str, session_id: str) -> tuple[Turn, bool]:
    """A session's prompt reached its agent (UserPromptSubmit / BeforeAgent): the
    running turn, and whether it was opened here.

    The runner's turn keeps what the runner set (only the person's prompt resets
    the "without you" counters, and do_prompt did that); a session the person
    runs themselves gets a turn of its own, opened here."""
    with transaction.atomic():
        chat = Chat.objects.select_for_update(no_key=True).get(pk=chat.pk)
        turn = chat.turns.filter(state=Turn.State.RUNNING).first()
        if turn is not None:
            return turn, False
        now = timezone.now()
        Entry.objects.create(chat=chat, kind=Entry.Kind.PROMPT, text=prompt)
        turn = Turn.objects.create(
            chat=chat,
            trigger=Turn.Trigger.PROMPT,
            state=Turn.State.RUNNING,
            prompt=prompt,
            input=prompt,
            chain=keys.new_id("chain"),
            worker=f"{ATTACHED}{session_id}"[:100],
            started_at=now,
        )
        chat.status, chat.last_ran_at, chat.last_asked = Status.RUNNING, now, prompt
        chat.person_wrote_at = now
        fields = ["status", "last_ran_at", "last_asked", "person_wrote_at", "updated_at"]
        chat.save(update_fields=fields)
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return turn, True


def running_turn(chat: Chat) -> Turn | None:
    return chat.turns.filter(state=Turn.State.RUNNING).first()


def attached_turn(chat: Chat) -> Turn | None:
    return chat.turns.filter(state=Turn.State.RUNNING, worker__startswith=ATTACHED).first()


def do_cancel_runner_requests(chat: Chat, *, why: str) -> int:
    """Wakes and send-ons not started yet: their messages went another way."""
    return chat.turns.filter(
        state=Turn.State.REQUESTED, trigger__in=[Turn.Trigger.WAKE, Turn.Trigger.SEND_ON]
    ).update(state=Turn.State.CANCELLED, ended_at=timezone.now(), error=why)
