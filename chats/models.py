from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from accounts.keys import new_id

DELETED_NAME = "a deleted chat"


def new_chat_id() -> str:
    return new_id("chat")


# THE rule of who takes part in agent-to-agent messaging: the switch is on and the
# person started the chat (one started from outside receives, but never lists, reads
# or sends). Its two forms read this one spec: `chat.takes_part`, `taking_part()`.
TAKING_PART = {"peers": True, "origin": "user"}


class ChatQuerySet(models.QuerySet):
    def taking_part(self):
        return self.filter(**TAKING_PART)


class Chat(models.Model):
    class Agent(models.TextChoices):
        CLAUDE_CODE = "claude-code", "Claude Code"
        CODEX = "codex", "Codex"
        GEMINI = "gemini", "Gemini"
        COMMAND = "command", "Command"
        DEMO = "demo", "Demo"

    class Origin(models.TextChoices):
        USER = "user", "You"
        GITHUB = "github", "GitHub"
        SLACK = "slack", "Slack"
        WEBHOOK = "webhook", "Webhook"
        A2A = "a2a", "A2A"
        AUTOMATION = "automation", "Automation"

    class Inbound(models.TextChoices):
        ACCEPT = "accept", "Accept messages from other chats"
        ASK = "ask", "Ask me first"

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        IDLE = "idle", "Idle"
        WAITING = "waiting", "Waiting"
        STOPPED = "stopped", "Stopped"
        FAILED = "failed", "Failed"

    id = models.CharField(primary_key=True, max_length=32, default=new_chat_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="chats")
    name = models.CharField(max_length=80)
    repository = models.CharField(max_length=200, blank=True)
    branch = models.CharField(max_length=200, blank=True)
    agent = models.CharField(max_length=20, choices=Agent, default=Agent.DEMO)
    model = models.CharField(max_length=100, blank=True)
    permission_mode = models.CharField(max_length=40, blank=True)
    folder = models.CharField(max_length=500, blank=True)
    command = models.CharField(max_length=1000, blank=True)
    origin = models.CharField(max_length=20, choices=Origin, default=Origin.USER)
    status = models.CharField(max_length=10, choices=Status, default=Status.IDLE)
    peers = models.BooleanField("Agent-to-agent messaging", default=False)
    # `ask`: another chat's message waits for the person's approval (peers.actions.approval).
    inbound = models.CharField(max_length=6, choices=Inbound, default=Inbound.ACCEPT)
    # Put away by the person: out of every list, picker and reach until unarchived.
    archived = models.BooleanField(default=False)
    # Deleted by the person: only this row stays, named DELETED_NAME, so the messages it
    # sent and received still read in the other chats' history (chats.actions.lifecycle).
    deleted_at = models.DateTimeField(null=True, blank=True)
    last_ran_at = models.DateTimeField(null=True, blank=True)
    # When its agent's session last called Crosstalk (an MCP call, a hook post, a REST
    # call with its key): a session seen within the reach window counts as having run.
    last_seen_at = models.DateTimeField(null=True, blank=True)
    last_asked = models.TextField(blank=True)
    last_answered = models.TextField(blank=True)
    # Why its last failed turn failed, in a sentence a person can act on (shown while `failed`).
    failure = models.TextField(blank=True)
    # When the person last wrote to this chat; the "without you" limits count from here.
    person_wrote_at = models.DateTimeField(null=True, blank=True)
    agent_key_digest = models.CharField(max_length=64, unique=True)
    # The CLI session this chat's agent runs in (its SessionStart hook, or a runner's turn).
    session_id = models.CharField(max_length=200, blank=True)
    # The session registered when the person stopped the chat: while it is stopped, only
    # that session's prompt (or the person, from the browser) lifts the Stop; a session
    # registering later is recorded in session_id but gains no such right.
    stop_session_id = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ChatQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                "user",
                condition=models.Q(deleted_at__isnull=True),
                name="chat_name_unique_in_account",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def from_outside(self) -> bool:
        return self.origin != self.Origin.USER

    @property
    def takes_part(self) -> bool:
        """Its agent may list, read and message (TAKING_PART)."""
        return all(getattr(self, field) == value for field, value in TAKING_PART.items())


class AgentKey(models.Model):
    """One attachment's key: a session the person runs with one CLI (in one folder, when
    agent_config wrote it there) acts as the chat with it. Each attachment has its own,
    so attaching another CLI never breaks the first; each is revocable. Only the digest
    is kept, as for the chat's own key."""

    chat = models.ForeignKey(Chat, models.CASCADE, related_name="agent_keys")
    cli = models.CharField(max_length=20)
    folder = models.CharField(max_length=500, blank=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.chat_id} {self.cli} key {self.pk}"


class Turn(models.Model):
    class Trigger(models.TextChoices):
        PROMPT = "prompt", "Your prompt"
        WAKE = "wake", "A peer message woke it"
        SEND_ON = "send_on", "Queued messages sent on"
        # A request of the chat's origin (docs/origins.md): the one kind of turn whose
        # final text goes back outside, so it never takes a peer message.
        OUTSIDE = "outside", "A request from outside"

    class State(models.TextChoices):
        REQUESTED = "requested", "Requested"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    chat = models.ForeignKey(Chat, models.CASCADE, related_name="turns")
    trigger = models.CharField(max_length=10, choices=Trigger)
    state = models.CharField(max_length=10, choices=State, default=State.REQUESTED)
    # What the person wrote (empty for turns the runner starts for messages).
    prompt = models.TextField(blank=True)
    # Whether held peer messages go along with this turn (the person's choice).
    send_queued = models.BooleanField(default=True)
    # The full input the agent got: the prompt plus the framed peer messages.
    input = models.TextField(blank=True)
    final_text = models.TextField(blank=True)
    error = models.TextField(blank=True)
    # The chain this turn's sends belong to, and the hop that brought it here.
    chain = models.CharField(max_length=32, blank=True)
    hop = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=100, blank=True)
    # A hosted CLI's credential: the digest of a key that acts as the chat only while
    # this turn runs (chats.selectors.chat_for_agent_key), so no chat key is ever stored.
    key_digest = models.CharField(max_length=64, blank=True, db_index=True)
    # What the agent's process reported: exit status, wall time, cost (None: not reported).
    exit_code = models.IntegerField(null=True, blank=True)
    duration_seconds = models.FloatField(null=True, blank=True)
    cost_usd = models.FloatField(null=True, blank=True)
    # Its worker pushes this forward while it runs; once past, any worker takes the turn back.
    lease_until = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["requested_at", "id"]
        indexes = [models.Index(fields=["state", "requested_at"])]

    def __str__(self) -> str:
        return f"{self.chat_id} turn {self.pk} ({self.state})"

    @property
    def answers_origin(self) -> bool:
        """Its final text goes back to the chat's origin (origins.actions.answers)."""
        return self.trigger == self.Trigger.OUTSIDE


class Entry(models.Model):
    class Kind(models.TextChoices):
        PROMPT = "prompt", "You"
        ANSWER = "answer", "Agent"
        PEER_IN = "peer_in", "Message from a chat"
        PEER_OUT = "peer_out", "Message to a chat"
        NOTICE = "notice", "Notice"
        # A step of a CLI agent: first line "name · short argument", then the details.
        TOOL = "tool", "Tool call"

    chat = models.ForeignKey(Chat, models.CASCADE, related_name="entries")
    turn = models.ForeignKey(Turn, models.SET_NULL, null=True, blank=True, related_name="entries")
    kind = models.CharField(max_length=10, choices=Kind)
    text = models.TextField()
    # The peer message a peer_in / peer_out entry shows (peers sits above chats).
    message_id = models.CharField(max_length=32, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["chat", "created_at"])]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.kind}: {self.text[:40]}"

    @property
    def headline(self) -> str:
        """A tool entry's one line (name · argument); its details follow it."""
        return self.text.partition("\n")[0]

    @property
    def details(self) -> str:
        return self.text.partition("\n")[2]
