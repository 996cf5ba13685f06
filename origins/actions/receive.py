"""A request from outside starts or continues its thread's chat and queues a turn
(docs/origins.md), checked first: its text, its delivery id once, the origin's hourly limit."""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import keys
from chats import actions as chat_actions
from chats.inputs import ChatCreate
from chats.models import Chat, Turn
from kernel.inputs import unsafe_text
from kernel.refusals import Refusal
from origins.framing import frame_outside
from origins.inputs import Inbound
from origins.models import Origin, OriginDelivery, OriginThread
from origins.selectors import no_origin, requests_per_hour
from peers.actions.record import record, record_refusal
from peers.models import Activity

MAX_THREAD_KEY = 300
MAX_AUTHOR = 200


@dataclass(frozen=True)
class Received:
    """What a request started: its thread (and so its chat) and the turn it queued."""

    thread: OriginThread
    turn: Turn


def receive_from_origin(
    origin: Origin, inbound: Inbound, *, now=None, template: ChatCreate | None = None
) -> Received:
    """Start or continue the thread's chat and queue a turn; raises Refusal, recorded.

    `template`: the new chat's fields instead of the origin's (automation's start_chat)."""
    now = now or timezone.now()
    try:
        check_inbound(inbound)
        with transaction.atomic():
            # One request of an origin at a time: its count, its delivery ids and its
            # threads' chats are decided under this row's lock.
            locked = Origin.objects.select_for_update(of=("self",)).filter(
                pk=origin.pk, enabled=True, user__is_active=True
            )
            if (locked := locked.first()) is None:
                raise no_origin()
            check_delivery_new(locked, inbound)
            check_origin_limit(locked, now)
            return do_receive(locked, inbound, now, template=template)
    except Refusal as refusal:
        if refusal.code != "not_found":
            record_refusal(origin.user, refusal)
        raise


def check_inbound(inbound: Inbound) -> None:
    parts = (inbound.thread_key, inbound.text, inbound.author, inbound.delivery_id)
    if any(unsafe_text(part) for part in parts):
        raise Refusal("invalid_input", "Text may not contain NUL characters or lone surrogates.")
    if not inbound.text.strip():
        raise Refusal("empty_message", "The request has no text for the agent.")
    if not inbound.delivery_id or len(inbound.delivery_id) > 200:
        raise Refusal("invalid_input", "Each request needs a delivery id (at most 200 characters).")
    if not inbound.thread_key or len(inbound.thread_key) > MAX_THREAD_KEY:
        raise Refusal("invalid_input", f"The thread is 1 to {MAX_THREAD_KEY} characters.")


def check_delivery_new(origin: Origin, inbound: Inbound) -> None:
    """Its id, and what its signature covers, were never accepted: a captured request sent
    again under a fresh (unsigned) delivery id is the same request."""
    deliveries = OriginDelivery.objects.filter(origin=origin)
    if deliveries.filter(delivery_id=inbound.delivery_id).exists():
        raise Refusal(
            "duplicate_delivery",
            f"Delivery {inbound.delivery_id!r} was already accepted; nothing was started again.",
        )
    if inbound.signed_digest and deliveries.filter(signed_digest=inbound.signed_digest).exists():
        raise Refusal(
            "duplicate_delivery",
            "This signed request was already accepted under another delivery id; "
            "nothing was started again.",
        )


def check_origin_limit(origin: Origin, now) -> None:
    allowed = requests_per_hour(origin)
    recent = OriginDelivery.objects.filter(origin=origin, created_at__gt=now - timedelta(hours=1))
    if recent.count() >= allowed:
        raise Refusal(
            "limit_origin_hour",
            f"This origin already sent {allowed} requests in the last hour; try again later.",
        )


def do_receive(origin: Origin, inbound: Inbound, now, *, template=None) -> Received:
    """The caller holds the origin's row lock."""
    try:
        with transaction.atomic():
            delivery = OriginDelivery.objects.create(
                origin=origin,
                delivery_id=inbound.delivery_id,
                signed_digest=inbound.signed_digest,
                created_at=now,
            )
    except IntegrityError:  # accepted meanwhile by a process that did not hold the lock
        raise Refusal("duplicate_delivery", "That delivery was already accepted.") from None
    do_prune_deliveries(origin, now)
    thread = start_or_continue(origin, inbound, template=template)
    text = capped(inbound.text)
    turn = do_queue_outside_turn(thread.chat, origin, author=inbound.author, text=text)
    # Which request this turn answers: its final text, and only its, goes back.
    delivery.turn = turn
    delivery.save(update_fields=["turn"])
    who = f" from {inbound.author[:80]}" if inbound.author else ""
    record(
        origin.user_id,
        Activity.Action.ORIGIN,
        chat_id=thread.chat_id,
        detail=f"{origin.get_kind_display()} request{who} ({origin.name})"[:200],
        now=now,
    )
    return Received(thread, turn)


def do_prune_deliveries(origin: Origin, now) -> None:
    """Keeps the origin's rows bounded: past the window, a signed request is refused as
    stale anyway (the webhook's timestamp, a GitHub comment's created_at)."""
    keep = timedelta(days=settings.ORIGIN_DELIVERY_KEEP_DAYS)
    OriginDelivery.objects.filter(origin=origin, created_at__lt=now - keep).delete()


def capped(text: str) -> str:
    """Outside content past ORIGIN_MAX_CHARS is cut, and the agent is told so."""
    most = settings.ORIGIN_MAX_CHARS
    if len(text) <= most:
        return text
    note = f"[… cut: the request had {len(text):,} characters; the first {most:,} are shown.]"
    return f"{text[:most]}\n{note}"


def start_or_continue(origin: Origin, inbound: Inbound, *, template=None) -> OriginThread:
    thread = (
        OriginThread.objects.select_related("chat")
        .filter(origin=origin, thread_key=inbound.thread_key)
        .first()
    )
    if thread is not None:
        if thread.chat.status == Chat.Status.STOPPED:
            raise Refusal("not_running", "The chat for this thread was stopped by its person.")
        if inbound.reply_to and inbound.reply_to != thread.reply_to:
            thread.reply_to = inbound.reply_to
            thread.save(update_fields=["reply_to"])
        return thread
    if template is not None:
        spec = template.model_copy(update={"origin": origin.kind})
        chat, _key = chat_actions.check_create_chat(origin.user, spec=spec)
    else:
        chat = create_outside_chat(origin, inbound.thread_key)
    return OriginThread.objects.create(
        origin=origin, thread_key=inbound.thread_key, chat=chat, reply_to=inbound.reply_to
    )


def template_spec(origin: Origin, *, name: str) -> ChatCreate:
    """The chat an origin starts, as creating a chat takes it (validated the same way)."""
    return ChatCreate.model_validate(
        {
            "name": name,
            "repository": origin.repository,
            "branch": origin.branch,
            "agent": origin.agent,
            "model": origin.model,
            "permission_mode": origin.permission_mode,
            "folder": origin.folder,
            "command": origin.command,
            "origin": origin.kind,
        },
        strict=True,
    )


def create_outside_chat(origin: Origin, thread_key: str) -> Chat:
    base = f"{origin.name} · {thread_key}"[:72].strip()
    name = base
    for number in range(2, 50):
        if not chat_actions.name_taken(origin.user, name):
            break
        name = f"{base} {number}"
    else:
        name = f"{base[:60]} {keys.new_id('t')}"
    chat, _key = chat_actions.check_create_chat(origin.user, spec=template_spec(origin, name=name))
    return chat


def do_queue_outside_turn(chat: Chat, origin: Origin, *, author: str, text: str) -> Turn:
    """Like the person's prompt (chats.actions.do_prompt), but the content is framed as
    untrusted and the person's "without you" counters are not reset: they did not write."""
    framed = frame_outside(
        kind=origin.kind,
        kind_label=origin.get_kind_display(),
        origin_name=origin.name,
        author=author[:MAX_AUTHOR],
        text=text,
    )
    who = f" · {author[:MAX_AUTHOR]}" if author else ""
    notice = f"From {origin.get_kind_display()}{who}:\n{text}"
    return chat_actions.do_outside_prompt(chat, notice=notice, asked=text, prompt=framed)
