"""The typed inputs of origins: an origin's set-up, shared by the Settings page and any other
face, and one request from outside as a connector read it."""

from dataclasses import dataclass, field
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, StringConstraints

from chats.inputs import AgentKind, Name
from kernel.inputs import Input
from origins.models import Origin

OriginKindName = Literal[tuple(Origin.Kind.values)]


def http_url(value: str) -> str:
    if value and (urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc):
        raise ValueError("an http:// or https:// address")
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
    requests_per_hour: int | None = None
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
