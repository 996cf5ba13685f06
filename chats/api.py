"""Who a bearer secret acts as, on every JSON face (REST and MCP): a chat's agent (a
`cak_` key), a person (an API token), or nobody; and ninja's auth classes for each kind.
The shared plumbing (bodies, pages, refusals as JSON) is kernel.api's."""

from dataclasses import dataclass

from ninja.security import HttpBearer

from accounts.actions import user_for_api_token
from chats.actions import do_mark_seen
from chats.models import Chat
from chats.selectors import chat_for_agent_key
from kernel.api import bearer_secret
from kernel.refusals import Refusal


@dataclass(frozen=True, slots=True)
class Caller:
    user: object
    chat: Chat | None = None  # set when an agent key called: the agent acts as this chat


def authenticate(request) -> Caller | None:
    return caller_for_secret(bearer_secret(request))


def caller_for_secret(secret: str) -> Caller | None:
    """Who a bearer secret acts as (REST and MCP): a chat's agent, a person, or nobody."""
    if not secret:
        return None
    if secret.startswith("cak_"):
        chat = chat_for_agent_key(secret)
        if chat is None or not chat.user.is_active:
            return None
        do_mark_seen(chat)  # its session is alive: it counts as having run
        return Caller(user=chat.user, chat=chat)
    user = user_for_api_token(secret)
    return Caller(user=user) if user else None


class Credential(HttpBearer):
    """Bearer auth of one kind of caller (ninja): the caller becomes request.auth; a
    missing, unknown or wrong-kind secret is refused as not_authenticated."""

    agent = False
    whose = "a personal API token"

    def __call__(self, request) -> Caller:
        caller = authenticate(request)
        if caller is None or self.agent != (caller.chat is not None):
            raise Refusal("not_authenticated", f"Send Authorization: Bearer with {self.whose}.")
        return caller

    def authenticate(self, request, token: str) -> Caller | None:
        return caller_for_secret(token)


class PersonToken(Credential):
    """Your personal API token: acts as you."""


class AgentKey(Credential):
    """A chat's agent key: acts as that chat's agent and nothing else."""

    agent = True
    whose = "the chat's agent key"
