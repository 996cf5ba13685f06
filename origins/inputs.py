"""The typed inputs of origins: an origin's set-up, shared by the Settings page and any other
face, and one request from outside as a connector read it."""

from dataclasses import dataclass, field
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, StringConstraints, create_model
from pydantic_core import PydanticCustomError

from chats.inputs import AgentKind, Name
from kernel.inputs import Input, Limit, Offset
from origins.models import Origin

OriginKindName = Literal[tuple(Origin.Kind.values)]
MOST_REQUESTS_PER_HOUR = 100_000
RequestsPerHour = Annotated[int, Field(ge=1, le=MOST_REQUESTS_PER_HOUR)]


def http_url(value: str) -> str:
    if value and (urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc):
        raise PydanticCustomError("http_url", "Give an address starting with https:// (or http://)")
    return value


Url = Annotated[
    str, StringConstraints(strip_whitespace=True, max_length=500), AfterValidator(http_url)
]
Short = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Secret = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Digits = Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^[0-9]{0,20}$")]
PrivateKey = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True,
        max_length=10_000,
        pattern=r"^(|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*)$",
    ),
]


class OriginSpec(Input):
    kind: OriginKindName
    name: Name
    enabled: bool = True
    # Blank: a new one is generated (GitHub and Slack give you theirs to paste).
    secret: Secret = ""
    agent: AgentKind = "demo"
    repository: Short = ""
    branch: Short = ""
    folder: Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)] = ""
    model: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = ""
    permission_mode: Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)] = ""
    command: Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)] = ""
    requests_per_hour: RequestsPerHour | None = None
    # Per kind (models.Origin.settings): blank tokens on an edit keep the stored ones.
    callback_url: Url = ""
    handle: Short = ""
    api_url: Url = ""
    token: Secret = ""
    bot_token: Secret = ""
    # GitHub as an App (docs/origins-github-slack.md): these three instead of a token.
    app_id: Digits = ""
    installation_id: Digits = ""
    private_key: PrivateKey = ""

    def kind_settings(self, old: dict) -> dict:
        """The settings JSON of this kind; a blank token keeps the old one."""
        if self.kind in ("webhook", "automation"):
            return {"callback_url": self.callback_url} if self.callback_url else {}
        if self.kind == "github":
            fields = {"handle": self.handle, "api_url": self.api_url}
            return {**fields, "token": self.token or old.get("token", ""), **self.github_app(old)}
        if self.kind == "slack":
            return {
                "api_url": self.api_url,
                "bot_token": self.bot_token or old.get("bot_token", ""),
            }
        return {}

    def github_app(self, old: dict) -> dict:
        if not self.app_id:
            return {}
        key = self.private_key.replace("\r\n", "\n") or old.get("private_key", "")
        return {"app_id": self.app_id, "installation_id": self.installation_id, "private_key": key}


# What an origin's set-up shows back (never its secret, tokens or private key).
SHOWN_SETTINGS = ("callback_url", "handle", "api_url", "app_id", "installation_id")
SECRET_SETTINGS = ("token", "bot_token", "private_key")
TEMPLATE_FIELDS = ("agent", "repository", "branch", "folder", "model", "permission_mode", "command")


def current_values(origin: Origin) -> dict:
    """The origin's set-up as OriginSpec's fields, secrets left blank (blank keeps them)."""
    stored = origin.settings or {}
    return {
        "kind": origin.kind,
        "name": origin.name,
        "enabled": origin.enabled,
        "requests_per_hour": origin.requests_per_hour,
        **{field: getattr(origin, field) for field in TEMPLATE_FIELDS},
        **{field: str(stored.get(field, "")) for field in SHOWN_SETTINGS},
    }


def optional(name: str):
    info = OriginSpec.model_fields[name]
    kind = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    return (kind | None, None)


# PATCH /api/v1/origins/{id} and MCP update_origin: any of OriginSpec's fields; what is
# left out stays as it was (origins.actions.check_update_origin merges and judges).
OriginChanges = create_model(
    "OriginChanges", __base__=Input, **{name: optional(name) for name in OriginSpec.model_fields}
)


class OriginRef(Input):
    origin: Annotated[str, StringConstraints(min_length=1, max_length=60)]


class OriginUpdate(OriginChanges, OriginRef):
    """MCP update_origin: the origin's id and the changes of PATCH /api/v1/origins/{id}."""

    def changes(self) -> dict:
        return self.model_dump(exclude_unset=True, exclude={"origin"})


class OriginPage(Input):
    """MCP list_origins, and the log tools with `origin`: REST's limit and offset."""

    limit: Limit = 50
    offset: Offset = 0


class OriginLogPage(OriginPage, OriginRef):
    pass


class ResendInput(OriginRef):
    answer: Annotated[int, Field(ge=1, le=2**63 - 1)]


@dataclass(frozen=True)
class Inbound:
    """One request from outside, as a connector parsed it."""

    thread_key: str
    text: str
    author: str
    delivery_id: str
    reply_to: dict = field(default_factory=dict)
    # sha256 of what the request's signature covers, when its delivery id is not signed.
    signed_digest: str = ""
