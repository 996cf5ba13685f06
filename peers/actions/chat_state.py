"""The chat changes that carry a peers rule: the switch (logged), a stop (it holds
the chat's messages until the person writes, as a failed turn does in agents.turns),
and a delete (what waited for the chat is not delivered)."""

from django.db import transaction
from django.utils import timezone

from chats import actions as chat_actions
from chats.inputs import ChatUpdate
from chats.models import Chat, Turn
from peers.actions.deliver import hold_for_person
from peers.actions.give_back import give_back_stopped, not_delivered, tell_senders
from peers.actions.idle_notices import notify_watchers
from peers.actions.locking import lock_messages
from peers.actions.notices import NOT_DELIVERED
from peers.actions.record import record
from peers.actions.watch import do_end_watches_of
from peers.models import Activity, PeerMessage

Reason = PeerMessage.Reason


def check_update_chat(user, chat: Chat, *, spec: ChatUpdate) -> Chat:
    """PATCH a chat (name, peers, model, permission mode, folder); a switch is logged."""
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
    """The person stops the chat: its turn ends and its messages are held for them,
    those the turn had taken and not answered too (give_back)."""
    with transaction.atomic():
        chat, running = stop_turns(chat)
        hold_for_person(chat)
    if running:  # a turn ended: its notifyWhenIdle subscribers hear it (after commit)
        notify_watchers(chat)
    return chat


def stop_turns(chat: Chat) -> tuple[Chat, list[Turn]]:
    """The chat, stopped under its row lock, and the turns that were running."""
    locked = Chat.objects.select_for_update(no_key=True).get(pk=chat.pk)
    running = list(locked.turns.filter(state=Turn.State.RUNNING))
    chat = chat_actions.do_stop_chat(locked)
    for turn in running:
        give_back_stopped(turn)
    return chat, running


def check_delete_chat(chat: Chat) -> Chat:
    """The person deletes the chat: its turn stops first (the runner ends the process
    when its turn is gone), what waited for it is not delivered (its senders hear), its
    subscriptions end, and its row stays only as the "deleted chat" the other chats'
    history names (chats.actions.do_delete_chat)."""
    with transaction.atomic():
        chat, _ = stop_turns(chat)
        waiting = PeerMessage.objects.waiting().filter(to_chat=chat)
        waiting = lock_messages(waiting.select_related("from_chat", "to_chat"))
        not_delivered(waiting, note=f"{chat.name} was deleted.", reason=Reason.REMOVED)
        tell_senders(chat, waiting, why="it was deleted", state=NOT_DELIVERED)
        do_end_watches_of(chat, now=timezone.now())
        return chat_actions.do_delete_chat(chat)
