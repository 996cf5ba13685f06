"""chats' turn-end signal, handed to origins (chats sits below and cannot call it)."""

from django.dispatch import receiver

from chats.signals import turn_failed, turn_finished
from origins.replies import FAILED_TURN, note_turn_finished


@receiver(turn_finished, dispatch_uid="origins-note-turn-finished")
def answer_outside(sender, *, chat, final_text, **kwargs) -> None:
    if chat.from_outside:  # one cheap test before a query on every turn's end
        note_turn_finished(chat, final_text)


@receiver(turn_failed, dispatch_uid="origins-note-turn-failed")
def answer_outside_failure(sender, *, chat, **kwargs) -> None:
    # The outside never sees why (an error may name the server's paths): only that it failed.
    if chat.from_outside:
        note_turn_finished(chat, FAILED_TURN)
