"""docs/rules.md's delivery table, as data: where a message goes by its recipient's state.

Sending routes by it, ListChats' `how_fast` reads it, and the words people see
come from its labels. This is the one place a delivery path is decided."""

from dataclasses import dataclass

from chats import agent_kinds
from chats.models import Chat, Turn
from peers.models import PeerMessage

State = PeerMessage.State
Reason = PeerMessage.Reason
Path = PeerMessage.Path
Status = Chat.Status
HELD = "held"


@dataclass(frozen=True, slots=True)
class Route:
    state: str
    reason: str
    # The path it will be delivered by ("held" until the person writes).
    path: str
    # How fast, in the words ListChats shows.
    words: str
    # The turn the send requests for it ("" for none).
    turn: str = ""

    @property
    def wakes(self) -> bool:
        return self.turn == Turn.Trigger.WAKE


NEXT_STEP = Route(State.PENDING, Reason.NEXT_STEP, Path.BETWEEN_STEPS, "after its current step")
BEHIND_TURN = Route(
    State.QUEUED,
    Reason.BEHIND_TURN,
    Path.TURN_PROMPT,
    "when its current turn ends",
    Turn.Trigger.SEND_ON,
)
WAKING = Route(State.QUEUED, Reason.WAKING, Path.TURN_PROMPT, "wakes it now", Turn.Trigger.WAKE)
# An idle session the person runs and attached (no folder: nothing to wake): its own
# hooks take the message with the person's next prompt there.
FOR_ITS_SESSION = Route(
    State.QUEUED, Reason.FOR_ITS_SESSION, Path.TURN_PROMPT, "when its session next runs"
)
WITH_BACKGROUND_WORK = Route(
    State.QUEUED, Reason.WITH_BACKGROUND_WORK, Path.TURN_PROMPT, "when its background work ends"
)
HELD_UNTIL_YOU_WRITE = Route(State.QUEUED, Reason.HELD, HELD, "held until you write to it")
# Another chat's message to a chat whose inbound is `ask` (or more permissive than its
# sender's): it waits for the person, waking nothing, until approved (then routed anew).
AWAITING = Reason.AWAITING_APPROVAL
AWAITING_APPROVAL = Route(State.QUEUED, AWAITING, AWAITING, "after your person approves it")
# An answer its sender waits for inside a MessageChat call.
AWAITED = Route(State.PENDING, Reason.AWAITED, Path.WAITING_CALL, "inside its waiting call")
# An answer to a message from the person goes to the person.
TO_YOU = Route(State.DELIVERED, "", "", "to you")

BY_STATUS = {
    Status.IDLE: WAKING,
    Status.WAITING: WITH_BACKGROUND_WORK,
    Status.STOPPED: HELD_UNTIL_YOU_WRITE,
    Status.FAILED: HELD_UNTIL_YOU_WRITE,
}


# Outside stays outside: a turn whose final text goes back to the chat's origin
# (Turn.answers_origin) never takes a peer message — not between its steps, not as it
# finishes, not with its prompt, not from its inbox. What comes meanwhile waits
# behind it and gets a turn of its own, whose answer stays in Crosstalk.
def takes_peer_messages(turn: Turn | None) -> bool:
    return turn is None or not turn.answers_origin


def answering_origin(chat: Chat) -> bool:
    """Is a turn answering the chat's origin running now? Asked of the database, not of
    `chat.status`, which an inbox's long poll read before such a turn started."""
    if not chat.from_outside:
        return False  # only outside chats have such turns: no query for the others
    return chat.turns.filter(state=Turn.State.RUNNING, trigger=Turn.Trigger.OUTSIDE).exists()


def asks_first(sender: Chat | None, recipient: Chat | None, *, by_agent: bool) -> bool:
    """Does a message from `sender`'s agent wait for the person's approval? Only another
    chat's agent is asked about (never the person, as themselves or as a chat, nor a
    Connect brief): when the recipient's inbound is `ask`, or it acts without asking
    anyone and its sender does not (unless the person turned that rule off)."""
    if not by_agent or sender is None or recipient is None:
        return False
    if recipient.inbound == Chat.Inbound.ASK:
        return True
    return sender.user.ask_when_more_permissive and more_permissive(recipient, than=sender)


def more_permissive(chat: Chat, *, than: Chat) -> bool:
    def bypasses(c: Chat) -> bool:
        return agent_kinds.bypasses_approvals(c.agent, c.permission_mode)

    return bypasses(chat) and not bypasses(than)


def route_for(recipient: Chat | None, *, awaited: bool = False, asks: bool = False) -> Route:
    """The route of a message sent to `recipient` now."""
    if recipient is None:
        return TO_YOU
    if awaited:
        return AWAITED
    if asks:
        return AWAITING_APPROVAL
    if recipient.status == Status.RUNNING:
        if answering_origin(recipient):
            return BEHIND_TURN
        return NEXT_STEP if agent_kinds.takes(recipient.agent).between_steps else BEHIND_TURN
    if recipient.status == Status.IDLE and not agent_kinds.can_be_woken(
        recipient.agent, recipient.folder
    ):
        return FOR_ITS_SESSION
    return BY_STATUS[recipient.status]


CANCELLED_WORDS = {Reason.REMOVED: Reason.REMOVED.label, Reason.DENIED: Reason.DENIED.label}


def words(message: PeerMessage) -> str:
    """The state in the words people see, the same in every interface."""
    state = State(message.state).label
    if message.state == State.DELIVERED:
        how = Path(message.path).label if message.path else "to you"
    elif message.state == State.NOT_DELIVERED:
        how = message.note or (Reason(message.reason).label if message.reason else "")
    elif message.state == State.CANCELLED:
        how = CANCELLED_WORDS.get(message.reason, "before it arrived")
    else:
        how = Reason(message.reason).label if message.reason else ""
    return f"{state} — {how}" if how else state
