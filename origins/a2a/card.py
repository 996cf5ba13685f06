"""The agent card of one A2A origin: who answers (the template chat), where, and how to
authenticate (a bearer token: the origin's secret)."""

from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT, TransportProtocol


def card_for(origin, endpoint: str) -> dict:
    return agent_card_to_dict(agent_card(origin, endpoint))


def agent_card(origin, endpoint: str) -> AgentCard:
    return AgentCard(
        name=origin.name,
        description=(
            f"A Crosstalk chat ({origin.agent}"
            + (f" in {origin.repository}" if origin.repository else "")
            + "). Each contextId is one conversation with it; its answer is the task's artifact."
        ),
        supported_interfaces=[
            AgentInterface(
                url=endpoint,
                protocol_binding=TransportProtocol.JSONRPC.value,
                protocol_version=PROTOCOL_VERSION_CURRENT,
            )
        ],
        version="1.0",
        capabilities=AgentCapabilities(streaming=True),
        security_schemes={
            "bearer": SecurityScheme(
                http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer")
            )
        },
        security_requirements=[SecurityRequirement(schemes={"bearer": StringList()})],
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="ask",
                name="Ask this chat",
                description="Send a question or a task; the chat's agent answers it.",
                tags=["coding", "crosstalk"],
            )
        ],
    )


class CardShape:
    """What every origin's card shares: the request handler checks capabilities on it."""

    name = "Crosstalk chat"
    agent = "demo"
    repository = ""


def shared_card() -> AgentCard:
    return agent_card(CardShape, "/a2a/")
