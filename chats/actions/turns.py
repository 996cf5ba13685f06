"""Turns: the person's prompt, a requested turn, its claim and start, its end (done or failed)."""

from collections.abc import Collection

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts import keys
from chats import runners
from chats.actions.leases import lease_end, lease_expired
from chats.models import Chat, Entry, Turn
from kernel import events
from kernel.idempotency import note_work
from kernel.refusals import Refusal

Status = Chat.Status


def check_has_text(text: str) -> None:
    if not text.strip():
        raise Refusal("empty_message", "Write something for the agent first.")


def check_prompt(chat: Chat, *, text: str, send_queued: bool = True) -> Turn:
    check_has_text(text)
    runners.check_may_run(chat.user, agent=chat.agent, folder=chat.folder)
    return do_prompt(chat, text=text, send_queued=send_queued)


def do_prompt(chat: Chat, *, text: str, send_queued: bool = True) -> Turn:
    """The person writes to the chat: a turn is requested (queued behind a running one)."""
    now = timezone.now()
    with transaction.atomic():
        Entry.objects.create(chat=chat, kind=Entry.Kind.PROMPT, text=text)
        # The person writing resets this chat's "without you" counters.
        chat.person_wrote_at = now
        ask(chat, text, "person_wrote_at")
        turn = Turn.objects.create(
            chat=chat,
            trigger=Turn.Trigger.PROMPT,
            prompt=text,
            send_queued=send_queued,
            chain=keys.new_id("chain"),
        )
        note_work(f"turn:{turn.pk}")
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.publish(chat.user_id, "chat", chat=chat.pk)
        events.wake_runners()
    return turn


def do_outside_prompt(chat: Chat, *, notice: str, asked: str, prompt: str) -> Turn:
    """Content from outside (origins) asks the chat: like do_prompt, but the turn's prompt
    is the framed content and the person's "without you" counters are left alone: the
    person did not write. The caller holds a transaction."""
    Entry.objects.create(chat=chat, kind=Entry.Kind.NOTICE, text=notice)
    ask(chat, asked)
    turn = Turn.objects.create(
        chat=chat, trigger=Turn.Trigger.OUTSIDE, prompt=prompt, chain=keys.new_id("chain")
    )
    events.publish(chat.user_id, "entry", chat=chat.pk)
    events.publish(chat.user_id, "chat", chat=chat.pk)
    events.wake_runners()
    return turn


def ask(chat: Chat, text: str, *fields: str) -> None:
    """A question for the chat, under its row lock: it reads `running` at once, before
    any runner claims the turn (a client that reads it right after the 202 never sees
    the old state), and its card shows the question with no answer until this turn's
    answer exists. A stopped or failed chat runs again too (docs/rules.md). The caller
    pushes "chat" after its "entry"."""
    Chat.objects.select_for_update(no_key=True).filter(pk=chat.pk).values_list("pk").first()
    chat.status, chat.last_asked, chat.last_answered = Status.RUNNING, text, ""
    chat.save(update_fields=["status", "last_asked", "last_answered", *fields, "updated_at"])


def request_turn(chat: Chat, *, trigger: str, chain: str = "", hop: int = 0) -> Turn:
    """A turn for messages waiting on the chat (a wake or a send-on).

    One requested turn takes every queued message when it starts, so an
    existing request is reused rather than doubled."""
    existing = requested_for_messages(chat)
    if existing is not None:
        return existing
    turn = Turn.objects.create(chat=chat, trigger=trigger, chain=chain, hop=hop)
    events.wake_runners()
    return turn


def requested_for_messages(chat: Chat) -> Turn | None:
    """A requested turn that queued messages may join: any but an origin's request,
    whose answer goes outside and so takes none (they get a turn of their own)."""
    requested = chat.turns.filter(state=Turn.State.REQUESTED)
    return requested.exclude(trigger=Turn.Trigger.OUTSIDE).first()


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


def do_mark_turn_done(turn: Turn, *, final_text: str, background: bool = False) -> bool:
    """chats' half of a turn's end (agents.turns.finish, its one caller): the turn done,
    its final text the answer, the chat idle (waiting while background work goes on).
    False when the person stopped it meanwhile."""
    # No savepoint: inside agents.turns' transaction a failure rolls back the whole end.
    with transaction.atomic(savepoint=False):
        chat = Chat.objects.select_for_update(no_key=True).get(pk=turn.chat_id)
        ended = end_turn(turn, Turn.State.DONE, final_text=final_text)
        if not ended:
            return False
        asked_next = question_queued(chat)
        if final_text:
            put_answer(turn, final_text)
            if not asked_next:  # else the card shows the queued question, unanswered
                chat.last_answered = final_text
        chat.status = next_status(asked_next, Status.WAITING if background else Status.IDLE)
        chat.save(update_fields=["status", "last_answered", "updated_at"])
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


def do_mark_turn_failed(turn: Turn, *, error: str, lease_expired_by=None) -> bool:
    """chats' half of a turn's failure (agents.turns.fail, its one caller): the turn and
    the chat failed, with a notice. With lease_expired_by, only if its lease ran out then."""
    with transaction.atomic(savepoint=False):
        chat = Chat.objects.select_for_update(no_key=True).get(pk=turn.chat_id)
        if not end_turn(turn, Turn.State.FAILED, error=error, lease_expired_by=lease_expired_by):
            return False
        Entry.objects.create(
            chat=chat, turn=turn, kind=Entry.Kind.NOTICE, text=f"The turn failed: {error}"
        )
        chat.status = next_status(question_queued(chat), Status.FAILED)
        chat.failure = error
        chat.save(update_fields=["status", "failure", "updated_at"])
        events.publish(chat.user_id, "entry", chat=chat.pk)
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return True


def question_queued(chat: Chat) -> bool:
    """A prompt (the person's, or an origin's request) waits to run: the chat reads
    running from its 202 on, and a turn that ends before it leaves it running."""
    asked = (Turn.Trigger.PROMPT, Turn.Trigger.OUTSIDE)
    return chat.turns.filter(state=Turn.State.REQUESTED, trigger__in=asked).exists()


def next_status(asked_next: bool, otherwise: str) -> str:
    return Status.RUNNING if asked_next else otherwise


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


def do_mark_background_done(chat: Chat) -> bool:
    """Background work finished: a waiting chat goes idle (agents.turns.end_background,
    its one caller, then has peers send its queue on)."""
    with transaction.atomic(savepoint=False):
        updated = Chat.objects.filter(pk=chat.pk, status=Status.WAITING).update(
            status=Status.IDLE, updated_at=timezone.now()
        )
        if updated:
            chat.status = Status.IDLE
            events.publish(chat.user_id, "chat", chat=chat.pk)
    return updated == 1


def running_turn(chat: Chat) -> Turn | None:
    return chat.turns.filter(state=Turn.State.RUNNING).first()
