"""Requests accepted before their turns were marked (trigger "outside", linked from the
delivery) and not answered yet: mark them, so their answers still go back."""

from django.db import migrations

FRAMED = "<outside-content "


def mark_turns_in_flight(apps, schema_editor):
    Turn = apps.get_model("chats", "Turn")
    OriginThread = apps.get_model("origins", "OriginThread")
    OriginDelivery = apps.get_model("origins", "OriginDelivery")
    for thread in OriginThread.objects.all():
        turns = Turn.objects.filter(
            chat_id=thread.chat_id,
            state__in=["requested", "running"],
            trigger="prompt",
            prompt__startswith=FRAMED,
        ).order_by("requested_at", "id")
        for turn in turns:
            delivery = (
                OriginDelivery.objects.filter(
                    origin_id=thread.origin_id, turn__isnull=True, created_at__lte=turn.requested_at
                )
                .order_by("-created_at", "-id")
                .first()
            )
            turn.trigger = "outside"
            turn.save(update_fields=["trigger"])
            if delivery is not None:
                delivery.turn = turn
                delivery.save(update_fields=["turn"])


class Migration(migrations.Migration):
    dependencies = [
        ("chats", "0008_turn_trigger_outside"),
        ("origins", "0003_delivery_answered_by_turn"),
    ]

    operations = [
        migrations.RunPython(mark_turns_in_flight, migrations.RunPython.noop),
    ]
