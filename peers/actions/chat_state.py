"""The chat changes that carry a peers rule: the switch (logged), a stop and a
failed turn (both hold the chat's messages until the person writes)."""

from django.db import transaction

from chats import actions as chat_actions
from chats.inputs import ChatUpdate
from chats.models import Chat, Turn
from peers.actions.deliver import hold_for_person
from peers.actions.record import record
from peers.models import Activity


def check_update_chat(user, chat: Chat, *, spec: ChatUpdate) -> Chat:
    """PATCH a chat (name, peers, model, permission mode); a switch is logged."""
    with transaction.atomic():
        was_on = chat.peers
        chat = chat_actions.check_update_chat(user, chat, spec=spec)
        if chat.peers != was_on:
            record_switch(chat)
    return chat


def do_set_peers(chat: Chat, *, enabled: bool) -> Chat:
    with transaction.atomic():
        if chat.peers != enabled:
            chat_actions.do_update_chat(chat, peers=enabled)
            record_switch(chat)
    return chat


def record_switch(chat: Chat) -> None:
    detail = "on" if chat.peers else "off"
    record(chat.user_id, Activity.Action.SWITCH, chat_id=chat.pk, detail=detail)


def check_stop_chat(chat: Chat) -> Chat:
    """The person stops the chat: its turn ends and its messages are held for them."""
    with transaction.atomic():
        chat = chat_actions.do_stop_chat(chat)
        hold_for_person(chat)
    return chat


def do_fail_turn(turn: Turn, *, error: str) -> bool:
    """A turn failed: the chat reads `failed` and its messages wait for the person."""
    with transaction.atomic():
        failed = chat_actions.do_fail_turn(turn, error=error)
        if failed:
            hold_for_person(turn.chat)
    return failed
