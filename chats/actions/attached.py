"""Attached sessions: a session the person runs in their own terminal opens its turns
from its hooks; the runner's requests for it are called off."""

from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import keys
from chats.models import AgentKey, Chat, Entry, Turn
from kernel import events

Status = Chat.Status
# How stale a chat's last_seen_at may grow before a call writes it again: one write a
# minute at most, however often its session calls.
SEEN_EVERY = timedelta(seconds=60)


# The worker of a turn opened by the hooks of a session the person runs themselves.
ATTACHED = "attached:"


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


def attached_turn(chat: Chat) -> Turn | None:
    return chat.turns.filter(state=Turn.State.RUNNING, worker__startswith=ATTACHED).first()


def do_cancel_runner_requests(chat: Chat, *, why: str) -> int:
    """Wakes and send-ons not started yet: their messages went another way."""
    return chat.turns.filter(
        state=Turn.State.REQUESTED, trigger__in=[Turn.Trigger.WAKE, Turn.Trigger.SEND_ON]
    ).update(state=Turn.State.CANCELLED, ended_at=timezone.now(), error=why)


def do_mark_seen(chat: Chat) -> None:
    """Its session called Crosstalk (MCP, a hook, REST with its key): the chat counts as
    having run while it is seen within the reach window (peers.selectors.reachable)."""
    now = timezone.now()
    attachment = getattr(chat, "attachment", None)  # the attachment key it called with
    if attachment is not None and stamp_seen(AgentKey, attachment, now):
        attachment.last_seen_at = now
    was = chat.last_seen_at
    if stamp_seen(Chat, chat, now):
        chat.last_seen_at = now
        if was is None or now - was > 2 * SEEN_EVERY:  # its session came (back): pages hear
            events.publish(chat.user_id, "chat", chat=chat.pk)


def stamp_seen(model, row, now) -> bool:
    """`row.last_seen_at = now` when it is stale, in one guarded UPDATE (racing calls
    write it once); whether it was written."""
    if row.last_seen_at is not None and now - row.last_seen_at < SEEN_EVERY:
        return False
    stale = Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=now - SEEN_EVERY)
    return bool(model.objects.filter(stale, pk=row.pk).update(last_seen_at=now))


def do_issue_attachment_key(chat: Chat, *, cli: str, folder: str = "") -> tuple[AgentKey, str]:
    """A key of its own for one attachment (shown once): the chat's other keys keep
    working; an earlier key of this same CLI and folder is revoked (it was replaced)."""
    secret = keys.new_secret("cak")
    with transaction.atomic():
        now = timezone.now()
        chat.agent_keys.filter(cli=cli, folder=folder, revoked_at__isnull=True).update(
            revoked_at=now
        )
        key = AgentKey.objects.create(chat=chat, cli=cli, folder=folder, digest=keys.digest(secret))
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return key, secret


def do_revoke_attachment_key(chat: Chat, key_id: int) -> bool:
    """The person revokes one attachment's key: that session's calls fail from now on."""
    with transaction.atomic():
        revoked = chat.agent_keys.filter(pk=key_id, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return bool(revoked)
