"""Outside sources that start chats (docs/origins.md): one configured origin of one
account, the threads it started, each delivery it sent once, each answer going back."""

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from chats.models import Chat, Turn


def new_public_id() -> str:
    # In URLs that take no session: unguessable, and not the row's pk.
    return f"org_{secrets.token_urlsafe(18)}"


def new_origin_secret() -> str:
    return secrets.token_urlsafe(32)


class Origin(models.Model):
    # The same values as a chat's origin (every kind but "user").
    class Kind(models.TextChoices):
        WEBHOOK = Chat.Origin.WEBHOOK.value, Chat.Origin.WEBHOOK.label
        GITHUB = Chat.Origin.GITHUB.value, Chat.Origin.GITHUB.label
        SLACK = Chat.Origin.SLACK.value, Chat.Origin.SLACK.label
        A2A = Chat.Origin.A2A.value, Chat.Origin.A2A.label
        AUTOMATION = Chat.Origin.AUTOMATION.value, Chat.Origin.AUTOMATION.label

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="origins")
    public_id = models.CharField(max_length=40, unique=True, default=new_public_id, editable=False)
    kind = models.CharField(max_length=20, choices=Kind)
    name = models.CharField(max_length=80)
    enabled = models.BooleanField(default=True)
    # The HMAC secret, GitHub webhook secret, Slack signing secret or A2A bearer token.
    secret = models.CharField(max_length=200, default=new_origin_secret)
    # Per kind: webhook {"callback_url"}, github {"handle", "api_url", "token"},
    # slack {"bot_token", "api_url"}, a2a {}.
    settings = models.JSONField(default=dict, blank=True)
    # The chat each request starts (validated as creating a chat is).
    agent = models.CharField(max_length=20, choices=Chat.Agent, default=Chat.Agent.DEMO)
    repository = models.CharField(max_length=200, blank=True)
    branch = models.CharField(max_length=200, blank=True)
    folder = models.CharField(max_length=500, blank=True)
    model = models.CharField(max_length=100, blank=True)
    permission_mode = models.CharField(max_length=40, blank=True)
    command = models.CharField(max_length=1000, blank=True)
    # None: the admin's limit (peers.Limits.origin_requests_per_hour).
    requests_per_hour = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1), MaxValueValidator(100_000)]
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint("user", "name", name="origin_name_unique_in_account"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class OriginThread(models.Model):
    """One conversation outside (an issue, a Slack thread, an A2A context) → its chat."""

    origin = models.ForeignKey(Origin, models.CASCADE, related_name="threads")
    thread_key = models.CharField(max_length=300)
    chat = models.OneToOneField(Chat, models.CASCADE, related_name="origin_thread")
    # What the kind needs to answer: issue number and repo, channel and thread_ts, ...
    reply_to = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint("origin", "thread_key", name="origin_thread_once"),
        ]

    def __str__(self) -> str:
        return f"{self.origin_id}:{self.thread_key}"


class OriginDelivery(models.Model):
    """A request accepted from an origin; its delivery id is accepted once, and so is what
    its signature covers (a captured request sent again under a fresh, unsigned id is the
    same request). The rows of the last hour are the origin's requests-an-hour count; rows
    older than ORIGIN_DELIVERY_KEEP_DAYS are dropped."""

    origin = models.ForeignKey(Origin, models.CASCADE, related_name="deliveries")
    delivery_id = models.CharField(max_length=200)
    # The turn that answers this request: the only kind of turn whose final text goes
    # back (origins.selectors.answered_request). None once the chat's turns are gone.
    turn = models.OneToOneField(
        Turn, models.SET_NULL, null=True, blank=True, related_name="origin_request"
    )
    # sha256 of the signed bytes (webhook: "<timestamp>.<body>"; GitHub: the body); "" for
    # kinds whose id is signed itself (Slack's event_id, A2A's messageId).
    signed_digest = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint("origin", "delivery_id", name="origin_delivery_once"),
            models.UniqueConstraint(
                "origin",
                "signed_digest",
                condition=~models.Q(signed_digest=""),
                name="origin_signed_once",
            ),
        ]
        indexes = [models.Index(fields=["origin", "created_at"])]

    def __str__(self) -> str:
        return self.delivery_id


class OriginReply(models.Model):
    """A turn's final text going back where the request came from."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"

    thread = models.ForeignKey(OriginThread, models.CASCADE, related_name="replies")
    text = models.TextField()
    state = models.CharField(max_length=10, choices=State, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # How often the person sent a failed answer again (origins.actions.resend): each
    # resend allows ORIGIN_REPLY_ATTEMPTS more tries, up to MOST_RESENDS.
    resends = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["state", "next_attempt_at"])]

    def __str__(self) -> str:
        return f"reply {self.pk} ({self.state})"


class A2ATask(models.Model):
    """An A2A task of an origin, as the a2a-sdk's Task message (JSON), so any web process
    answers tasks/get and a restart loses nothing."""

    id = models.CharField(primary_key=True, max_length=100)
    origin = models.ForeignKey(Origin, models.CASCADE, related_name="a2a_tasks")
    context_id = models.CharField(max_length=300)
    state = models.PositiveSmallIntegerField(default=0)  # a2a TaskState's number
    data = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["origin", "context_id"])]

    def __str__(self) -> str:
        return self.id
