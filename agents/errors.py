"""How a turn's agent can fail to run: read by the runner, raised by the adapters and
the set-up they share."""


class AgentUnavailable(Exception):
    """The agent could not start at all: its messages were never handed over."""


class AgentFailed(Exception):
    """The agent started and failed; the message is the one line the person sees."""
