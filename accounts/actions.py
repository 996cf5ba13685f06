import json
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import keys, sealing
from accounts.models import ApiToken, ModelCredential, SignupAttempt, User

HOUR = timedelta(hours=1)


def check_signup_allowed(address: str) -> bool:
    """Counts this sign-up form against its address; False past SIGNUPS_PER_HOUR.
    Written before it is counted, and each write committed: processes racing at the
    limit see each other's rows and refuse rather than overshoot. Past the limit
    nothing is written, so a flood adds no rows."""
    now, address = timezone.now(), address[:64]
    SignupAttempt.objects.filter(at__lt=now - HOUR).delete()
    recent = SignupAttempt.objects.filter(address=address, at__gte=now - HOUR)
    if recent.count() >= settings.SIGNUPS_PER_HOUR:
        return False
    SignupAttempt.objects.create(address=address, at=now)
    return recent.count() <= settings.SIGNUPS_PER_HOUR


def do_signup(*, username: str, password: str) -> User | None:
    """Creates the account, or None if the name is taken (in any letter case). Both take
    one password hash, so neither the answer nor its time tells a taken name from a free one."""
    if User.objects.filter(username__iexact=username).exists():
        make_password(password)
        return None
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password)
    except IntegrityError:  # taken between the check and the insert
        return None


def do_set_password(user: User, *, password: str, activate: bool = False) -> None:
    """Sets the password as given (operators' commands and the demo seed: no strength checks)."""
    user.set_password(password)
    user.is_active = user.is_active or activate
    user.save(update_fields=["password", "is_active"])


def do_create_api_token(user: User, *, name: str) -> tuple[ApiToken, str]:
    """Returns the token row and its secret; the secret is never stored."""
    secret = keys.new_secret("ctk")
    token = ApiToken.objects.create(
        user=user, name=name.strip() or "API token", digest=keys.digest(secret), hint=secret[:8]
    )
    return token, secret


def do_revoke_api_token(user: User, *, token_id: int) -> bool:
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return deleted > 0


def do_set_peers_for_new_chats(user: User, *, enabled: bool) -> None:
    user.peers_for_new_chats = enabled
    user.save(update_fields=["peers_for_new_chats"])


def do_set_inbound_defaults(user: User, *, inbound: str, ask_when_more_permissive: bool) -> None:
    """New chats' inbound (blank: by their permission mode), and whether a message to a
    chat more permissive than its sender always asks."""
    user.inbound_for_new_chats = inbound
    user.ask_when_more_permissive = ask_when_more_permissive
    user.save(update_fields=["inbound_for_new_chats", "ask_when_more_permissive"])


def user_for_api_token(secret: str) -> User | None:
    token = ApiToken.objects.select_related("user").filter(digest=keys.digest(secret)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    # Touch at most once a minute: this runs on every API call.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def agents_permission(codename: str) -> Permission:
    """One of the agents app's permissions: `run_hosted` (Crosstalk may run processes on
    this server for the account), `use_operator_logins` (its hosted CLIs may use the
    operator's own model logins)."""
    return Permission.objects.get(content_type__app_label="agents", codename=codename)


@dataclass(frozen=True)
class AgentsRight:
    """An agents permission an admin grants an account, and the sentences that say what a
    grant or a revoke did ({name}: the account)."""

    codename: str
    granted: str
    superuser: str
    via_group: str
    revoked: str


RUN_HOSTED = AgentsRight(
    "run_hosted",
    granted="{name} may now run hosted agents and command chats on this server.",
    superuser="{name} is a superuser: superusers may always run agents here.",
    via_group="Revoked from {name} itself; one of {name}'s groups still grants it.",
    revoked="{name} may no longer run hosted agents or command chats on this server.",
)
USE_OPERATOR_LOGINS = AgentsRight(
    "use_operator_logins",
    granted="{name}'s hosted agents now use this server's own model logins.",
    superuser="{name} is a superuser: superusers always may use this server's model logins.",
    via_group="Taken back from {name} itself; one of {name}'s groups still lends them.",
    revoked="{name}'s hosted agents no longer use this server's model logins: they need "
    "their own, in Settings → Agents.",
)


def do_set_agents_right(user: User, right: AgentsRight, *, granted: bool) -> str:
    """Grants or revokes `right` on the account itself; says what it did."""
    permission = agents_permission(right.codename)
    if granted:
        user.user_permissions.add(permission)
    else:
        user.user_permissions.remove(permission)
    fresh = User.objects.get(pk=user.pk)  # has_perm caches on the instance
    if granted:
        said = right.granted
    elif fresh.is_superuser:
        said = right.superuser
    elif fresh.has_perm(f"agents.{right.codename}"):
        said = right.via_group
    else:
        said = right.revoked
    return said.format(name=user.get_username())


def do_allow_runners(user: User, *, allowed: bool) -> str:
    """`agents.run_hosted`: Crosstalk may run processes on this server for the account."""
    return do_set_agents_right(user, RUN_HOSTED, granted=allowed)


def do_lend_logins(user: User, *, lent: bool) -> str:
    """`agents.use_operator_logins`: the account's hosted CLIs get the server's own
    provider keys and CLI logins."""
    return do_set_agents_right(user, USE_OPERATOR_LOGINS, granted=lent)


# An account's own model credentials ------------------------------------------------

# A key is some hundred characters, a CLI's login file a few thousand.
MAX_CREDENTIAL_CHARS = 16_000


def check_set_model_credential(
    user: User, *, provider: str, kind: str, value: str, base_url: str = ""
) -> ModelCredential:
    """Sets (or replaces) the account's credential for `provider`; ValidationError,
    by field, when a value cannot be one."""
    value, base_url = value.strip(), base_url.strip()
    if provider not in ModelCredential.Provider.values or kind not in ModelCredential.Kind.values:
        raise ValidationError({"provider": "Choose a provider and a kind of credential."})
    if (problem := why_not_credential(value, kind)) is not None:
        raise ValidationError({"value": problem})
    if (problem := why_not_base_url(base_url)) is not None:
        raise ValidationError({"base_url": problem})
    return do_set_model_credential(
        user, provider=provider, kind=kind, value=value, base_url=base_url
    )


def why_not_credential(value: str, kind: str) -> str | None:
    if not value:
        return "Paste the key or the login file's contents."
    if len(value) > MAX_CREDENTIAL_CHARS:
        limit = f"{MAX_CREDENTIAL_CHARS:,}"
        return f"That is too long for a key or a login file (at most {limit} characters)."
    if "\x00" in value:
        return "A credential may not contain NUL characters."
    if value.startswith("-"):
        return "A credential may not start with `-`."
    if kind == ModelCredential.Kind.API_KEY and any(char.isspace() for char in value):
        return "An API key is one word: no spaces or line breaks."
    if kind == ModelCredential.Kind.LOGIN_FILE and not is_json_object(value):
        return "A CLI's login file is a JSON object (the whole file, as it is)."
    return None


def is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def why_not_base_url(url: str) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or "\x00" in url:
        return "A base URL is an http:// or https:// address."
    if len(url) > ModelCredential._meta.get_field("base_url").max_length:
        return "That base URL is too long."
    return None


def do_set_model_credential(
    user: User, *, provider: str, kind: str, value: str, base_url: str
) -> ModelCredential:
    credential, _ = ModelCredential.objects.update_or_create(
        user=user,
        provider=provider,
        defaults={
            "kind": kind,
            "sealed": sealing.seal(value),
            "base_url": base_url,
            "hint": value[-4:],
            "set_at": timezone.now(),
        },
    )
    return credential


def do_remove_model_credential(user: User, *, provider: str) -> bool:
    deleted, _ = ModelCredential.objects.filter(user=user, provider=provider).delete()
    return deleted > 0
