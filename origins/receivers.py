"""chats' turn-end signal, handed to origins (chats sits below and cannot call it)."""

from django.dispatch import receiver

from chats.signals import turn_finished
from origins.replies import note_turn_finished


@receiver(turn_finished, dispatch_uid="origins-note-turn-finished")
def answer_outside(sender, *, chat, final_text, **kwargs) -> None:
    if chat.from_outside:  # one cheap test before a query on every turn's end
        note_turn_finished(chat, final_text)
