"""The typed input of an origin's set-up, shared by the Settings page and any other face."""

from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, StringConstraints

from chats.inputs import AgentKind, Input, Name
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

    def kind_settings(self, old: dict) -> dict:
        """The settings JSON of this kind; a blank token keeps the old one."""
        if self.kind in ("webhook", "automation"):
            return {"callback_url": self.callback_url} if self.callback_url else {}
        if self.kind == "github":
            fields = {"handle": self.handle, "api_url": self.api_url}
            return {**fields, "token": self.token or old.get("token", "")}
        if self.kind == "slack":
            return {
                "api_url": self.api_url,
                "bot_token": self.bot_token or old.get("bot_token", ""),
            }
        return {}
