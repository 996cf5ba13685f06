"""Page sockets end with their session: logging out closes that session's sockets at once;
any change to the account (a new password, deactivation) has every socket re-check its
session; chats.consumers also re-checks each session every SESSION_RECHECK_SECONDS."""

import hashlib
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import get_user
from django.db import transaction
from django.utils.module_loading import import_string

from kernel.events import account_group, group_send

END = {"type": "session.end"}
CHECK = {"type": "session.check"}


def session_group(session_key: str) -> str:
    # A digest: the session key itself never reaches the channel layer.
    return "session." + hashlib.sha256(session_key.encode()).hexdigest()[:40]


def session_user_id(session_key: str | None) -> int | None:
    """The id of the person this session still logs in, or None: a missing or expired
    session, or one whose password hash no longer matches (Django's own check)."""
    if not session_key:
        return None
    store = import_string(settings.SESSION_ENGINE + ".SessionStore")(session_key)
    user = get_user(SimpleNamespace(session=store))
    return user.pk if user.is_authenticated else None


def end_session_sockets(sender, request, user, **kwargs) -> None:
    """user_logged_out: the session is flushed next; its sockets close after commit."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        transaction.on_commit(lambda: group_send(session_group(key), END), robust=True)


def recheck_account_sockets(sender, instance, **kwargs) -> None:
    """post_save of a User: its sockets re-check their sessions (a new password ends the
    others, as Django's session hash check does for pages)."""
    user_id = instance.pk
    transaction.on_commit(lambda: group_send(account_group(user_id), CHECK), robust=True)
