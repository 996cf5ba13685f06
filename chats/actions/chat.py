"""Chats themselves: create, rename and switch, stop, delete; their agent key and session."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import keys
from chats import agent_kinds, runners
from chats.inputs import ChatCreate, ChatUpdate, valid_session_id
from chats.models import Chat, Entry, Turn
from chats.selectors import account_chats
from kernel import events
from kernel.idempotency import note_work
from kernel.refusals import Refusal

Status = Chat.Status


SESSION_ID_RULE = (
    "session_id: letters, digits, `-`, `_`, `.` and `:` only, at most 128, not starting with `-`."
)


def check_create_chat(user, *, spec: ChatCreate) -> tuple[Chat, str]:
    """Returns the new chat and its agent key (shown this once)."""
    folder = check_chat_template(user, spec)
    if name_taken(user, spec.name):
        raise Refusal("name_taken", f"You already have a chat named {spec.name!r}; pick another.")
    fields = {**spec.model_dump(), "folder": folder}
    if fields["peers"] is None:
        fields["peers"] = user.peers_for_new_chats
    if fields["inbound"] is None:
        fields["inbound"] = default_inbound(user, spec.agent, spec.permission_mode)
    try:
        return do_create_chat(user, **fields)
    except IntegrityError:
        raise Refusal("name_taken", f"You already have a chat named {spec.name!r}.") from None


def default_inbound(user, agent: str, permission_mode: str) -> str:
    """The account's choice (Settings), else `ask` for a chat that bypasses approvals."""
    if user.inbound_for_new_chats:
        return user.inbound_for_new_chats
    if agent_kinds.bypasses_approvals(agent, permission_mode):
        return Chat.Inbound.ASK
    return Chat.Inbound.ACCEPT


def check_chat_template(user, spec) -> str:
    """What a new chat's agent needs, also checked when an origin is set up to start chats:
    `spec` (a ChatCreate, an OriginSpec) names agent, folder, command and permission_mode.
    Returns the working folder resolved, made when missing inside the account's own."""
    agent, command = spec.agent, spec.command
    permission_mode = spec.permission_mode or ""
    if agent == Chat.Agent.COMMAND and not command:
        raise Refusal("invalid_input", "command: a command chat needs the command line to run.")
    if (problem := agent_kinds.why_mode_refused(agent, permission_mode)) is not None:
        raise Refusal("invalid_input", problem)
    return check_folder_ready(user, agent=agent, folder=spec.folder, command=command)


def check_folder_ready(user, *, agent: str, folder: str, command: str) -> str:
    """The working folder to store: one of the account's own, resolved, made when missing
    (chats.folders); the account allowed to run there, and the agent ready to."""
    runners.check_may_run(user, agent=agent, folder=folder)
    folder = runners.check_folder(user, folder, make=agent != Chat.Agent.DEMO)
    # Said now rather than by a failed first turn: no folder here, no CLI installed.
    problem = agent_kinds.why_not_ready(agent, folder=folder, command=command)
    if problem is not None:
        raise Refusal("invalid_input", problem)
    return folder


def do_create_chat(user, **fields) -> tuple[Chat, str]:
    secret = keys.new_secret("cak")
    with transaction.atomic():
        chat = Chat.objects.create(user=user, agent_key_digest=keys.digest(secret), **fields)
        note_work(f"chat:{chat.pk}")  # a keyed request's claim, in this transaction
        events.publish(user.pk, "chat", chat=chat.pk)
    return chat, secret


def name_taken(user, name: str, *, exclude: str | None = None) -> bool:
    chats = account_chats(user).filter(name__iexact=name)
    return chats.exclude(pk=exclude).exists() if exclude else chats.exists()


def check_update_chat(user, chat: Chat, *, spec: ChatUpdate) -> Chat:
    changes = spec.model_dump(exclude_none=True)
    mode = changes.get("permission_mode", "")
    if (problem := agent_kinds.why_mode_refused(chat.agent, mode)) is not None:
        raise Refusal("invalid_input", problem)
    if "folder" in changes:  # moved: judged as at creation
        changes["folder"] = check_folder_ready(
            user, agent=chat.agent, folder=changes["folder"], command=chat.command
        )
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


def do_note_person_wrote(chat_ids: list[str], *, now) -> None:
    """The person wrote to these chats (as one of them, or to one): their "without you"
    counters start again from now."""
    Chat.objects.filter(pk__in=chat_ids).update(person_wrote_at=now)


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
        if chat.status != Status.STOPPED:
            # Who may lift it is fixed now: a stop repeated later keeps the first one's.
            chat.stop_session_id = chat.session_id
        chat.status = Status.STOPPED
        chat.save(update_fields=["status", "stop_session_id", "updated_at"])
        events.publish(chat.user_id, "chat", chat=chat.pk)
    return chat


def do_delete_chats(user) -> int:
    """Remove every chat of the account, with its turns, entries and messages (seed_demo)."""
    with transaction.atomic():
        chat_ids = list(Chat.objects.filter(user=user).values_list("pk", flat=True))
        Chat.objects.filter(pk__in=chat_ids).delete()
        for chat_id in chat_ids:
            events.publish(user.pk, "chat", chat=chat_id)
    return len(chat_ids)


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
    with transaction.atomic():
        chat.session_id = session_id
        chat.save(update_fields=["session_id", "updated_at"])
        if chat.status == Status.STOPPED and session_id != chat.stop_session_id:
            note_session_while_stopped(chat, session_id)
        events.publish(chat.user_id, "chat", chat=chat.pk)


def note_session_while_stopped(chat: Chat, session_id: str) -> None:
    """Registering is no key to a Stop: only the session registered before it restarts it."""
    before = f" or the session registered before the Stop ({chat.stop_session_id})"
    text = (
        f"Session {session_id} registered while the chat is stopped; it cannot restart it. "
        f"Only you, writing here{before if chat.stop_session_id else ''}, can."
    )
    Entry.objects.create(chat=chat, kind=Entry.Kind.NOTICE, text=text)
    events.publish(chat.user_id, "entry", chat=chat.pk)
