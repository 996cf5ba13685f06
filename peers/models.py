from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F

from accounts.keys import new_id
from chats.models import Chat, Turn


def new_message_id() -> str:
    return new_id("msg")


class SecondsToDeliver(models.Func):
    """Seconds from sent to delivered, computed by the database (and indexed)."""

    output_field = models.FloatField()

    def __init__(self, **extra):
        super().__init__(F("delivered_at"), F("created_at"), **extra)

    def as_sqlite(self, compiler, connection, **extra):
        (delivered, created), params = self.compiled(compiler)
        return f"((julianday({delivered}) - julianday({created})) * 86400.0)", params

    def as_postgresql(self, compiler, connection, **extra):
        (delivered, created), params = self.compiled(compiler)
        return f"(EXTRACT(EPOCH FROM ({delivered} - {created}))::float8)", params

    def compiled(self, compiler) -> tuple[list[str], list]:
        parts = [compiler.compile(expression) for expression in self.source_expressions]
        return [sql for sql, _ in parts], [p for _, params in parts for p in params]


class PeerMessageQuerySet(models.QuerySet):
    """The message states the pages, the delivery and the waiting calls share, each
    defined once here (and as the properties of the same names on PeerMessage)."""

    def waiting(self):
        """Sent and not taken yet (pending or queued); what Cancel can take back."""
        return self.filter(state__in=WAITING_STATES)

    def held(self):
        """Held until the person writes to the chat it is for."""
        return self.filter(state=PeerMessage.State.QUEUED, reason=PeerMessage.Reason.HELD)

    def not_held(self):
        """Neither held until the person writes nor awaiting the person's approval."""
        return self.exclude(reason__in=PERSON_HOLDS)


class PeerMessage(models.Model):
    class SentBy(models.TextChoices):
        AGENT = "agent", "Agent"
        PERSON = "person", "You"
        # Crosstalk itself, telling a chat what it asked to hear (notifyWhenIdle).
        NOTICE = "notice", "Crosstalk"

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        QUEUED = "queued", "Queued"
        DELIVERED = "delivered", "Delivered"
        CANCELLED = "cancelled", "Cancelled"
        NOT_DELIVERED = "not_delivered", "Not delivered"

    class Reason(models.TextChoices):
        """Why a message waits, or why it ended without arriving; the labels are the
        words people see after the state ("Queued — waking it")."""

        NEXT_STEP = "next_step", "its next step takes it"
        AWAITED = "awaited", "its sender is waiting for it"
        WAKING = "waking", "waking it"
        FOR_ITS_SESSION = "for_its_session", "waits for its session to run"
        BEHIND_TURN = "behind_turn", "behind its current turn"
        WITH_BACKGROUND_WORK = "with_background_work", "waits with its background work"
        HELD = "held_until_you_write", "held until you write"
        # The recipient's inbound is `ask`: it waits for the person to approve or deny it.
        AWAITING_APPROVAL = "awaiting_approval", "awaiting your approval"
        DENIED = "denied", "denied by the person"
        REMOVED = "removed", "removed from the queue"
        AGENT_UNAVAILABLE = "agent_unavailable", "its agent could not start"
        TURN_FAILED = "turn_failed", "its turn failed"
        WORKER_STOPPED = "worker_stopped", "the worker running its turn stopped"
        OTHER = "other", "it could not be handed over"

    class Path(models.TextChoices):
        """How a delivered message reached its agent (docs/rules.md's delivery table)."""

        BETWEEN_STEPS = "between_steps", "between steps"
        AS_FINISHED = "as_finished", "as it finished"
        WAITING_CALL = "waiting_call", "as the answer a waiting call took"
        TURN_PROMPT = "turn_prompt", "as a turn's prompt"
        INBOX = "inbox", "read from its inbox"
        TOOL_RESULT = "tool_result", "with a tool's result"

    id = models.CharField(primary_key=True, max_length=32, default=new_message_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    from_chat = models.ForeignKey(
        Chat, models.CASCADE, null=True, blank=True, related_name="messages_sent"
    )
    to_chat = models.ForeignKey(
        Chat, models.CASCADE, null=True, blank=True, related_name="messages_received"
    )
    sent_by = models.CharField(max_length=10, choices=SentBy)
    text = models.TextField()
    reply_to = models.ForeignKey(
        "self", models.SET_NULL, null=True, blank=True, related_name="replies"
    )
    answer = models.ForeignKey("self", models.SET_NULL, null=True, blank=True, related_name="+")
    exchange = models.CharField(max_length=32)
    chain = models.CharField(max_length=32)
    hop = models.PositiveIntegerField(default=1)
    # Both chat ids, sorted, so one index serves "between these two, both ways".
    pair = models.CharField(max_length=70, blank=True)
    state = models.CharField(max_length=16, choices=State)
    reason = models.CharField(max_length=24, choices=Reason, blank=True)
    path = models.CharField(max_length=16, choices=Path, blank=True)
    # The sentence that goes with a not-delivered reason.
    note = models.CharField(max_length=300, blank=True)
    # Why its agent's answer (its final text) was not sent: "<code>: <sentence>".
    answer_refused = models.CharField(max_length=300, blank=True)
    woke = models.BooleanField(default=False)
    sent_in_turn = models.ForeignKey(
        Turn, models.SET_NULL, null=True, blank=True, related_name="messages_sent"
    )
    delivered_in_turn = models.ForeignKey(
        Turn, models.SET_NULL, null=True, blank=True, related_name="messages_delivered"
    )
    # Set while the sender waits for the answer inside its MessageChat call.
    waiting_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    state_changed_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)

    objects = PeerMessageQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "created_at"]),
            models.Index(fields=["from_chat", "created_at"]),
            models.Index(fields=["to_chat", "state"]),
            models.Index(fields=["pair", "created_at"]),
            models.Index(fields=["chain"]),
            models.Index(fields=["path", "delivered_at"]),
            # The admin page's metrics (peers/metrics.py). Covering, and in the order
            # each GROUP BY / ORDER BY wants, so SQLite streams them without a sort.
            models.Index(
                fields=["state", "reason", "path", "created_at", "woke"],
                name="peermsg_metrics_state",
            ),
            models.Index(
                F("state"),
                F("path"),
                SecondsToDeliver(),
                F("created_at"),
                F("delivered_at"),  # with created_at: the expression's inputs, so covering
                name="peermsg_metrics_delivery",
            ),
            models.Index(fields=["created_at", "woke"], name="peermsg_metrics_time"),
            models.Index(
                fields=["state", "path", "created_at", "delivered_at"],
                name="peermsg_metrics_window",
            ),
        ]

    def __str__(self) -> str:
        return self.id

    @property
    def is_waiting(self) -> bool:
        return self.state in WAITING_STATES

    @property
    def is_cancellable(self) -> bool:
        # Only what has not arrived can be taken back: exactly the waiting ones.
        return self.is_waiting

    @property
    def is_held(self) -> bool:
        return self.state == self.State.QUEUED and self.reason == self.Reason.HELD

    @property
    def is_awaiting_approval(self) -> bool:
        return self.state == self.State.QUEUED and self.reason == self.Reason.AWAITING_APPROVAL

    @property
    def answered(self) -> bool:
        return self.answer_id is not None

    @property
    def detail(self) -> str:
        """docs/api.md's `detail`: why it waits, the path it took, or why it did not arrive."""
        if self.state == self.State.NOT_DELIVERED:
            return self.note or self.reason
        if self.reason == self.Reason.AWAITED:
            return self.Path.WAITING_CALL
        return self.path or self.reason


WAITING_STATES = (PeerMessage.State.PENDING, PeerMessage.State.QUEUED)
# What waits on the person: no agent takes these until the person acts.
PERSON_HOLDS = (PeerMessage.Reason.HELD, PeerMessage.Reason.AWAITING_APPROVAL)


class Limits(models.Model):
    """One row (pk=1) that admins tune at run time; read on every send."""

    reach_hours = models.PositiveIntegerField(
        "Chats reachable when they ran within (hours)",
        default=48,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 365)],
    )
    chat_per_hour = models.PositiveIntegerField(
        "Messages one chat sends an hour",
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
    )
    wakes_per_hour = models.PositiveIntegerField(
        "Idle chats woken an hour, across the account",
        default=20,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
    )
    pair_per_window = models.PositiveIntegerField(
        "Messages between two chats, both ways, per window",
        default=12,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
    )
    pair_window_minutes = models.PositiveIntegerField(
        "Pair window (minutes)",
        default=15,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 60)],
    )
    pair_without_you = models.PositiveIntegerField(
        "Messages between two chats without you",
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
    )
    chain_without_you = models.PositiveIntegerField(
        "Messages in one chain without you",
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
    )
    list_read_per_hour = models.PositiveIntegerField(
        "ListChats and ReadChat calls by a chat an hour",
        default=120,
        validators=[MinValueValidator(1), MaxValueValidator(100_000)],
    )
    max_text = models.PositiveIntegerField(
        "Longest message (characters)",
        default=8000,
        validators=[MinValueValidator(1), MaxValueValidator(100_000)],
    )
    max_wait_seconds = models.PositiveIntegerField(
        "Longest wait (seconds)",
        default=45,
        validators=[MinValueValidator(0), MaxValueValidator(600)],
    )
    origin_requests_per_hour = models.PositiveIntegerField(
        "Requests one origin sends an hour (unless the origin sets its own)",
        default=60,
        validators=[MinValueValidator(1), MaxValueValidator(100_000)],
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "limits"

    def __str__(self) -> str:
        return "Peer messaging limits"


class Activity(models.Model):
    class Action(models.TextChoices):
        LIST = "list"
        READ = "read"
        MESSAGE = "message"
        DELIVERY = "delivery"
        CANCEL = "cancel"
        # The person approved or denied a message awaiting approval (peers.actions.approval).
        APPROVE = "approve"
        DENY = "deny"
        SWITCH = "switch"
        CONNECT = "connect"
        REFUSED = "refused"
        LIMITS = "limits"
        # A request from an origin, or its answer going back (origins.actions).
        ORIGIN = "origin"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    chat = models.ForeignKey(Chat, models.CASCADE, null=True, blank=True, related_name="+")
    action = models.CharField(max_length=10, choices=Action)
    target = models.ForeignKey(Chat, models.CASCADE, null=True, blank=True, related_name="+")
    message = models.ForeignKey(
        PeerMessage, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    detail = models.CharField(max_length=200, blank=True)
    # Repeated refusals of one key within a minute share one row (peers.actions.record).
    count = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "activity"
        indexes = [
            models.Index(fields=["user", "created_at"]),
            models.Index(fields=["chat", "action", "created_at"]),
            # Refusals by code for the admin page's metrics.
            models.Index(fields=["action", "created_at", "detail"], name="activity_metrics_action"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.detail}"


class MessageCount(models.Model):
    """How many messages one key of a limit sent in one minute; a limit's check sums
    these over its window instead of counting the messages (peers.actions.counters)."""

    class Kind(models.TextChoices):
        CHAT = "chat", "Sent by a chat"
        PAIR = "pair", "Between two chats"
        PAIR_AGENT = "pair_agent", "Between two chats, by their agents"
        WAKES = "wakes", "Woke a chat"

    # The account, for the wakes summed across it (and deleted with it).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="+", db_index=False
    )
    # The chat the key names (a pair's first), so the rows go when their messages do.
    chat = models.ForeignKey(Chat, models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind)
    key = models.CharField(max_length=70)
    # Whole minutes since 1970, UTC.
    minute = models.BigIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "key", "minute"], name="msgcount_key_minute")
        ]
        indexes = [
            models.Index(fields=["user", "kind", "minute"], name="msgcount_account"),
            models.Index(fields=["minute"], name="msgcount_prune"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} @{self.minute}: {self.count}"


# Kept in their own module (the notices told to a sender; notifyWhenIdle's subscriptions).
from peers.notice_models import IdleWatch, Notice, new_notice_id, new_watch_id  # noqa: E402

__all__ = ["IdleWatch", "Notice", "new_notice_id", "new_watch_id"]
