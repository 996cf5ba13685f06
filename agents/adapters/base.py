"""What the runner expects of an agent kind: run a turn, maybe take late messages."""

from dataclasses import dataclass, field

from agents.dbthread import in_db_thread
from chats import agent_kinds
from chats.actions import turn_is_running
from chats.models import Chat, Turn
from peers.models import PeerMessage


class TurnStopped(Exception):
    """The person stopped the chat during the turn: it ends quietly."""


@dataclass(slots=True)
class TurnResult:
    final_text: str = ""
    # Steps of background work left running after the turn (status `waiting`).
    background_steps: int = 0


@dataclass(slots=True)
class TurnContext:
    turn: Turn
    chat: Chat
    # The person's own words: directives come only from here, never from a message.
    prompt: str
    # The peer messages this turn started with (already marked delivered).
    messages: list[PeerMessage]
    # Everything the agent is given: the prompt plus the framed messages.
    input: str
    said: list[str] = field(default_factory=list)
    background_steps: int = 0
    # The working folder as resolved when the turn started ("": none): the process runs
    # there, not wherever the chat's stored path leads by the time it starts.
    folder: str = ""

    def say(self, line: str) -> None:
        self.said.append(line)

    def result(self) -> TurnResult:
        return TurnResult("\n".join(self.said), self.background_steps)

    async def check_running(self) -> None:
        """Between steps: a turn the person stopped goes no further."""
        if not await in_db_thread(turn_is_running)(self.turn.pk):
            raise TurnStopped


class Adapter:
    kind = ""
    # What a running turn of this kind takes (between its steps), its permission modes and
    # the one blank means: read from chats' table of kinds (chats.agent_kinds), which
    # chats routes and validates by, when the subclass is defined.
    takes = agent_kinds.BETWEEN_TURNS_ONLY
    permission_modes: tuple[str, ...] = ()
    default_permission_mode = ""
    # The runner itself offers messages as the turn finishes (the demo); a CLI's Stop hook
    # does that inside its process, so the runner does not.
    takes_messages_as_finished = False

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind:
            spec = agent_kinds.of(cls.kind)
            cls.takes, cls.permission_modes = spec.takes, spec.permission_modes
            cls.default_permission_mode = spec.default_mode

    async def run(self, ctx: TurnContext) -> TurnResult:
        raise NotImplementedError

    async def take_as_finished(self, ctx: TurnContext, messages: list[PeerMessage]) -> TurnResult:
        raise NotImplementedError

    async def background_work(self, ctx: TurnContext, count: int) -> None:
        """The work a turn left running; the runner ends the `waiting` status after it."""
