"""The kernel's one table: the first answer to a request carrying an Idempotency-Key."""

from django.db import models


class IdempotentAnswer(models.Model):
    """The first answer to a POST carrying an Idempotency-Key (kernel.idempotency).

    `status` stays null while the first request runs; a retry waits for it."""

    credential = models.CharField(max_length=64)  # a digest of the bearer secret
    key = models.CharField(max_length=255)
    request_digest = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField(null=True)
    # What the work committed ("message:msg_…"), set in the work's own transaction:
    # a claim without it provably did nothing, so it may run again (kernel.idempotency).
    result = models.CharField(max_length=80, blank=True)
    # JSON as text: jsonb would reorder its keys, and a replay must read the same.
    body = models.TextField(blank=True)
    created_at = models.DateTimeField()

    class Meta:
        # Made by chats before the kernel had a package of its own: the table keeps its name.
        db_table = "chats_idempotentanswer"
        constraints = [
            models.UniqueConstraint("credential", "key", name="idempotency_key_once_per_credential")
        ]
        indexes = [models.Index(fields=["created_at"])]

    def __str__(self) -> str:
        return f"{self.key} → {self.status}"
