from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    class NewInbound(models.TextChoices):
        BY_PERMISSION = "", "By permission mode (ask for chats that bypass approvals)"
        ACCEPT = "accept", "Accept"
        ASK = "ask", "Ask me first"

    peers_for_new_chats = models.BooleanField(
        "Agent-to-agent messaging for new chats", default=False
    )
    inbound_for_new_chats = models.CharField(
        "Inbound for new chats", max_length=6, choices=NewInbound, blank=True, default=""
    )
    ask_when_more_permissive = models.BooleanField(
        "Always ask before a message reaches a chat more permissive than its sender",
        default=True,
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


class ModelCredential(models.Model):
    """An account's own login to a model provider, for its hosted CLI chats: an API key
    or the contents of the CLI's login file, sealed (accounts.sealing) and never shown
    back; only its last characters (`hint`) and when it was set."""

    class Provider(models.TextChoices):
        ANTHROPIC = "anthropic", "Anthropic (Claude Code)"
        OPENAI = "openai", "OpenAI (Codex)"
        GOOGLE = "google", "Google (Gemini)"

    class Kind(models.TextChoices):
        API_KEY = "api_key", "API key"
        LOGIN_FILE = "login_file", "CLI login file"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.CASCADE, related_name="model_credentials"
    )
    provider = models.CharField(max_length=16, choices=Provider.choices)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # A Fernet token of the secret: the key or file itself is never in the database.
    sealed = models.TextField()
    base_url = models.URLField("Base URL", max_length=500, blank=True)
    hint = models.CharField(max_length=4, help_text="The secret's last characters.")
    set_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "provider"], name="one_credential_a_provider")
        ]
        ordering = ["provider"]

    def __str__(self) -> str:
        return f"{self.get_provider_display()} {self.kind_label} (…{self.hint})"

    @property
    def kind_label(self) -> str:
        return self.get_kind_display()
