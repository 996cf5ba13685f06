"""`detail` mixed three things: why a message waits, the path it was delivered by,
and free-text not-delivered reasons. They become `reason`, `path` and `note`."""

from django.db import migrations, models

PATHS = {"between_steps", "as_finished", "waiting_call", "turn_prompt", "inbox"}
WAITING = {"next_step", "waking", "behind_turn", "with_background_work", "held_until_you_write"}


def split_detail(apps, schema_editor):
    PeerMessage = apps.get_model("peers", "PeerMessage")
    for message in PeerMessage.objects.exclude(detail="").iterator():
        detail = message.detail
        if message.state == "delivered":
            message.path = detail if detail in PATHS else ""
        elif message.state == "pending" and detail == "waiting_call":
            message.reason = "awaited"
        elif message.state in ("pending", "queued") and detail in WAITING:
            message.reason = detail
        elif message.state == "cancelled" and detail == "removed":
            message.reason = "removed"
        elif message.state == "not_delivered":
            message.reason, message.note = "agent_unavailable", detail[:300]
        message.save(update_fields=["path", "reason", "note"])


def join_detail(apps, schema_editor):
    PeerMessage = apps.get_model("peers", "PeerMessage")
    for message in PeerMessage.objects.iterator():
        if message.state == "not_delivered":
            message.detail = message.note[:200]
        elif message.reason == "awaited":
            message.detail = "waiting_call"
        else:
            message.detail = message.path or message.reason
        message.save(update_fields=["detail"])


class Migration(migrations.Migration):
    dependencies = [("peers", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="peermessage",
            name="reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("next_step", "its next step takes it"),
                    ("awaited", "its sender is waiting for it"),
                    ("waking", "waking it"),
                    ("behind_turn", "behind its current turn"),
                    ("with_background_work", "waits with its background work"),
                    ("held_until_you_write", "held until you write"),
                    ("removed", "removed from the queue"),
                    ("agent_unavailable", "its agent could not start"),
                    ("turn_failed", "its turn failed"),
                    ("worker_stopped", "the worker running its turn stopped"),
                    ("other", "it could not be handed over"),
                ],
                max_length=24,
            ),
        ),
        migrations.AddField(
            model_name="peermessage",
            name="path",
            field=models.CharField(
                blank=True,
                choices=[
                    ("between_steps", "between steps"),
                    ("as_finished", "as it finished"),
                    ("waiting_call", "as the answer a waiting call took"),
                    ("turn_prompt", "as a turn's prompt"),
                    ("inbox", "read from its inbox"),
                ],
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="peermessage",
            name="note",
            field=models.CharField(blank=True, max_length=300),
        ),
        migrations.RunPython(split_detail, join_detail),
        migrations.RemoveField(model_name="peermessage", name="detail"),
        migrations.AddIndex(
            model_name="peermessage",
            index=models.Index(fields=["path", "delivered_at"], name="peers_peerm_path_3ef140_idx"),
        ),
    ]
