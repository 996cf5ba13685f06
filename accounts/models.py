from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    peers_for_new_chats = models.BooleanField(
        "Agent-to-agent messaging for new chats", default=False
    )


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    hint = models.CharField(
        max_length=12, help_text="The secret's first characters, to tell tokens apart."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"


class SignupAttempt(models.Model):
    """One sign-up form sent, by address: sign-ups per address and hour are limited
    (accounts.actions.check_signup_allowed); rows older than an hour are pruned."""

    address = models.CharField(max_length=64, db_index=True)
    at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.address} at {self.at:%Y-%m-%d %H:%M}"
