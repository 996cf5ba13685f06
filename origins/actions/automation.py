"""Chats started by scripts and cron jobs: `manage.py start_chat --origin automation` and
MCP/REST start_chat with `origin: "automation"` and `text` (docs/origins.md)."""

import uuid

from django.db import IntegrityError, transaction

from chats.inputs import ChatCreate
from chats.models import Chat
from origins.actions.receive import receive_from_origin
from origins.inputs import Inbound
from origins.models import Origin, OriginThread
from origins.selectors import get_automation_origin

DEFAULT = "automation"
DEFAULT_NAME = "Automation"


def automation_origin(user, ref: str = DEFAULT) -> Origin:
    """`automation`: the account's own Automation origin (made on first use); otherwise an
    automation origin of the account, by its id or name."""
    if ref == DEFAULT:
        return do_get_default_origin(user)
    return get_automation_origin(user, ref)


def do_get_default_origin(user) -> Origin:
    kind = Origin.Kind.AUTOMATION
    existing = Origin.objects.filter(user=user, kind=kind, name=DEFAULT_NAME).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return Origin.objects.create(user=user, kind=kind, name=DEFAULT_NAME)
    except IntegrityError:  # made meanwhile, or a non-automation origin holds the name
        return Origin.objects.get(user=user, kind=kind, name=DEFAULT_NAME)


def check_start_automation(
    user,
    *,
    text: str,
    origin_ref: str = DEFAULT,
    template: ChatCreate | None = None,
    thread: str = "",
    author: str = "",
) -> OriginThread:
    """Each call starts a new chat unless `thread` names one this origin started."""
    origin = automation_origin(user, origin_ref)
    inbound = Inbound(
        thread_key=thread or f"auto-{uuid.uuid4().hex}",
        text=text,
        author=author or "automation",
        delivery_id=f"auto-{uuid.uuid4().hex}",
    )
    return receive_from_origin(origin, inbound, template=template).thread


def start_from_chat_faces(user, *, spec: ChatCreate, text: str) -> Chat:
    """REST and MCP start_chat (crosstalk.start_chat): the spec is the new chat."""
    return check_start_automation(user, text=text, template=spec).chat
