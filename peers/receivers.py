"""peers listens to chats (which cannot import peers): stops hold messages, switches are logged."""

from django.dispatch import receiver

from chats.signals import chat_failed, chat_stopped, peers_switched
from peers import actions, delivery
from peers.models import Activity


@receiver(chat_stopped)
def hold_messages_of_stopped_chat(sender, *, chat, **kwargs) -> None:
    delivery.hold_for_stopped(chat)


@receiver(chat_failed)
def hold_messages_of_failed_chat(sender, *, chat, **kwargs) -> None:
    # A failed chat holds what waits for it, like a stopped one, until the person writes.
    delivery.hold_for_stopped(chat)


@receiver(peers_switched)
def record_switch(sender, *, chat, enabled: bool, **kwargs) -> None:
    actions.record(
        chat.user_id, Activity.Action.SWITCH, chat_id=chat.pk, detail="on" if enabled else "off"
    )
