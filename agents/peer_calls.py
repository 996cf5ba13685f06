"""Every call the runner and the demo agent make into peers, as coroutines.

peers owns what a message is and where it goes; agents only asks at the right
moments of a turn (docs/rules.md). Sync calls run in the runner's DB thread."""

from agents.dbthread import in_db_thread
from chats import actions as chat_actions
from chats.models import Chat, Entry, Turn
from peers import actions, framing, selectors, serializers, waiting
from peers.models import PeerMessage


async def take_for_turn(turn: Turn) -> list[PeerMessage]:
    return await in_db_thread(actions.take_for_turn)(turn)


async def notices_for_turn(turn: Turn) -> str:
    """The later turns of the messages this chat sent, framed for the turn's prompt."""
    return await in_db_thread(actions.notices_for_turn)(turn)


async def take_notices(chat: Chat) -> list[str]:
    """The later turns of the messages this chat sent, each told once, as sentences."""

    def take() -> list[str]:
        if not chat.peers or not actions.has_notices(chat):
            return []
        return [notice.text for notice in actions.take_notices(chat)]

    return await in_db_thread(take)()


async def frame_all(messages: list[PeerMessage]) -> str:
    # Framing reads the senders' names and the quoted messages: database work.
    return await in_db_thread(framing.frame_all)(messages)


async def deliver_between_steps(chat: Chat) -> list[PeerMessage]:
    return await in_db_thread(actions.deliver_between_steps)(chat)


async def deliver_as_finished(chat: Chat) -> list[PeerMessage]:
    return await in_db_thread(actions.deliver_as_finished)(chat)


async def relay_answer(chat: Chat, text: str, answer: PeerMessage) -> None:
    """The agent says what came back, as an entry linked to the answer it repeats."""

    def add() -> None:
        chat_actions.do_add_entry(chat, kind=Entry.Kind.ANSWER, text=text, message_id=answer.pk)

    await in_db_thread(add)()


async def find_chat_by_name(chat: Chat, name: str) -> Chat | None:
    """A chat of the same account, by name (the demo agent and people address by name)."""
    return await in_db_thread(lambda: selectors.find_chat_by_name(chat.user, name))()


async def send_message(sender: Chat, *, to: str, text: str) -> PeerMessage:
    """MessageChat without waiting; raises Refusal."""
    return await in_db_thread(actions.check_send_message)(sender, to=to, text=text)


async def send_and_wait(
    sender: Chat, *, to: str, text: str, wait_seconds: float
) -> tuple[PeerMessage, PeerMessage | None]:
    """MessageChat with a wait; raises Refusal. The wait holds no DB thread."""
    return await waiting.send_and_wait(sender, to=to, text=text, wait_seconds=wait_seconds)


async def state_words(message: PeerMessage) -> str:
    """The message's state now, in the words people see ("Queued — waking it")."""

    def fresh_words() -> str:
        message.refresh_from_db(fields=["state", "reason", "path", "note"])
        return serializers.words(message)

    return await in_db_thread(fresh_words)()


async def first_lines(chat: Chat, messages: list[PeerMessage]) -> list[str]:
    """One line per received message, naming who sent it and its first line."""

    def describe() -> list[str]:
        return [received_line(chat, message) for message in messages]

    return await in_db_thread(describe)()


def received_line(chat: Chat, message: PeerMessage) -> str:
    sender = f"{message.from_chat.name}'s" if message.from_chat_id else "your"
    lines = message.text.strip().splitlines() or [""]
    first = lines[0] if len(lines[0]) <= 200 else lines[0][:199] + "…"
    return f'{chat.name} got {sender} message "{first}"'
