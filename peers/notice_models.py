"""What a chat's agent is told about, beside its messages: the later turns of the
messages it sent (Notice) and its notifyWhenIdle subscriptions (IdleWatch). peers.models
imports them (its models by name here: no import back)."""

from django.conf import settings
from django.db import models

from accounts.keys import new_id


def new_notice_id() -> str:
    return new_id("ntc")


class Notice(models.Model):
    """A later turn of a message a chat's agent sent (approved, denied, held, removed,
    cancelled, not delivered, answered), told to that agent once (peers.actions.notices):
    at its next step, its next turn's prompt, or from its inbox."""

    id = models.CharField(primary_key=True, max_length=32, default=new_notice_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    # The sending chat, whose agent is told.
    chat = models.ForeignKey("chats.Chat", models.CASCADE, related_name="notices")
    message = models.ForeignKey("peers.PeerMessage", models.CASCADE, related_name="notices")
    state = models.CharField(max_length=24)
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField()
    # Set when its agent got it (null: it still waits).
    told_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["chat", "told_at"], name="notice_untold")]

    def __str__(self) -> str:
        return f"{self.message_id} {self.state}"


def new_watch_id() -> str:
    return new_id("watch")


class IdleWatch(models.Model):
    """notifyWhenIdle: `from_chat` hears once, with a notice, when `to_chat` next ends
    a turn, or that it did not within the reach window (peers.actions.watch)."""

    class Outcome(models.TextChoices):
        NOTIFIED = "notified", "Notified"
        EXPIRED = "expired", "Expired"
        UNREACHABLE = "unreachable", "Its subscriber could no longer be reached"

    id = models.CharField(primary_key=True, max_length=32, default=new_watch_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    from_chat = models.ForeignKey("chats.Chat", models.CASCADE, related_name="+")
    to_chat = models.ForeignKey("chats.Chat", models.CASCADE, related_name="+")
    # The message sent with the subscription, if any.
    message = models.ForeignKey(
        "peers.PeerMessage", models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=12, choices=Outcome, blank=True)
    notice = models.ForeignKey(
        "peers.PeerMessage", models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        indexes = [
            models.Index(fields=["to_chat", "ended_at"], name="idlewatch_open"),
            models.Index(fields=["ended_at", "expires_at"], name="idlewatch_expiry"),
        ]

    def __str__(self) -> str:
        return self.id
