"""Whose model login a hosted CLI turn uses: the account's own (Settings → Agents),
else the operator's when an admin lent them (`agents.use_operator_logins`), else none
and the turn fails saying how to get one. A `command` chat talks to no model: none of
this applies to it, but its jailed home gets the operator's CLI logins only when lent.

The one rule for the operator's variables: a variable is a *credential* when its name
has a part KEY, TOKEN, SECRET, PASSWORD, CREDENTIALS or AUTH (ANTHROPIC_API_KEY,
ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
GOOGLE_APPLICATION_CREDENTIALS, a Codex provider's env_key, …) or when it names where a
login is kept (LOGIN_PLACES). Credentials reach a turn only when lent; everything else
of a provider's variables (a base URL, a model, a switch) is configuration and passes
as before."""

from dataclasses import dataclass, field

from accounts import sealing
from accounts.models import ModelCredential
from agents.errors import AgentUnavailable
from chats.models import Chat

LENDS = "agents.use_operator_logins"
CREDENTIAL_PARTS = frozenset({"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS", "AUTH"})
# Variables that point a CLI at a folder or profile holding a login.
LOGIN_PLACES = frozenset({
    "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "AWS_PROFILE", "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE", "CLOUDSDK_CONFIG",
})  # fmt: skip


def is_credential(name: str) -> bool:
    return name in LOGIN_PLACES or not CREDENTIAL_PARTS.isdisjoint(name.upper().split("_"))


@dataclass(frozen=True, slots=True)
class Provider:
    credential: str  # ModelCredential.Provider
    key_variable: str  # where its CLI reads an API key
    base_url_variable: str  # and a base URL ("": on its command line instead, Codex)
    login_file: str  # where its CLI keeps its login
    name: str
    in_home: bool = True  # that file is in the home (Codex's is in its CODEX_HOME)


PROVIDERS = {
    Chat.Agent.CLAUDE_CODE: Provider(
        ModelCredential.Provider.ANTHROPIC, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
        ".claude/.credentials.json", "Anthropic",
    ),
    Chat.Agent.CODEX: Provider(
        ModelCredential.Provider.OPENAI, "OPENAI_API_KEY", "", "auth.json", "OpenAI", False
    ),
    Chat.Agent.GEMINI: Provider(
        ModelCredential.Provider.GOOGLE, "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL",
        ".gemini/oauth_creds.json", "Google",
    ),
}  # fmt: skip


@dataclass(slots=True)
class TurnLogins:
    """`lent`: the operator's logins, as before. Else the account's own, if any: its key
    and base URL (`api_key`, `base_url`) or its CLI's login file (`login_file`)."""

    lent: bool
    provider: Provider | None = None
    api_key: str = ""
    base_url: str = ""
    login_file: str = ""
    set_at: float = 0.0
    env: dict[str, str] = field(default_factory=dict)

    @property
    def withheld(self) -> bool:
        """The operator's credential variables are kept from this turn (a CLI's, not lent)."""
        return not self.lent and self.provider is not None


def turn_logins(chat: Chat) -> TurnLogins:
    """For the chat's next turn; AgentUnavailable with what to do when it has none."""
    lent = chat.user.is_active and chat.user.has_perm(LENDS)
    provider = PROVIDERS.get(chat.agent)
    if provider is None:  # a command chat: no model, its variables as they were
        return TurnLogins(lent=lent)
    own = chat.user.model_credentials.filter(provider=provider.credential).first()
    if own is not None:
        return own_logins(provider, own)
    if lent:
        return TurnLogins(lent=True, provider=provider)
    raise AgentUnavailable(
        f"this account has no {provider.name} login for {chat.get_agent_display()} on this "
        f"server: add your own API key or login file in Settings → Agents, or ask an admin "
        f"to lend the server's (`manage.py lend_logins {chat.user.get_username()}`)"
    )


def own_logins(provider: Provider, own: ModelCredential) -> TurnLogins:
    try:
        secret = sealing.unseal(own.sealed)
    except sealing.Unreadable:
        raise AgentUnavailable(
            f"your {provider.name} credential can no longer be read on this server (its "
            "SECRET_KEY changed): enter it again in Settings → Agents"
        ) from None
    logins = TurnLogins(lent=False, provider=provider, base_url=own.base_url)
    logins.set_at = own.set_at.timestamp()
    if own.kind == ModelCredential.Kind.LOGIN_FILE:
        logins.login_file = secret
        return logins
    logins.api_key = secret
    logins.env[provider.key_variable] = secret
    if provider.base_url_variable and own.base_url:
        logins.env[provider.base_url_variable] = own.base_url
    return logins
