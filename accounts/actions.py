from datetime import timedelta

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Permission
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import keys
from accounts.models import ApiToken, SignupAttempt, User

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


def user_for_api_token(secret: str) -> User | None:
    token = ApiToken.objects.select_related("user").filter(digest=keys.digest(secret)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    # Touch at most once a minute: this runs on every API call.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def run_hosted_permission() -> Permission:
    """`agents.run_hosted`: Crosstalk may run processes on this server for the account."""
    return Permission.objects.get(content_type__app_label="agents", codename="run_hosted")


def do_allow_runners(user: User, *, allowed: bool) -> str:
    """Grants (or revokes) `agents.run_hosted` on the account itself; says what it did."""
    permission = run_hosted_permission()
    if allowed:
        user.user_permissions.add(permission)
    else:
        user.user_permissions.remove(permission)
    fresh = User.objects.get(pk=user.pk)  # has_perm caches on the instance
    name = user.get_username()
    if allowed:
        return f"{name} may now run hosted agents and command chats on this server."
    if fresh.is_superuser:
        return f"{name} is a superuser: superusers may always run agents here."
    if fresh.has_perm("agents.run_hosted"):
        return f"Revoked from {name} itself; one of {name}'s groups still grants it."
    return f"{name} may no longer run hosted agents or command chats on this server."
