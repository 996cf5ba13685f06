"""/internal/admin/peers, the "Who may run agents" and "Who may use the server's
model logins" parts: the accounts and whether each may have hosted or command chats
run here (agents.run_hosted), and whether its hosted CLIs may use the operator's own
model logins (agents.use_operator_logins), each with a toggle that goes through
accounts.actions (do_allow_runners, do_lend_logins)."""

from django.contrib import messages as flash
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from accounts.actions import do_allow_runners, do_lend_logins
from accounts.models import User

SHOWN = 200  # accounts listed; the Django admin filters the rest
# The form field that names the account → the permission it toggles, and how.
TOGGLES = {
    "runner": lambda user, on: do_allow_runners(user, allowed=on),
    "lend": lambda user, on: do_lend_logins(user, lent=on),
}


def runner_accounts(codename: str = "run_hosted") -> list[dict]:
    """The accounts with whether each has this agents permission: one query."""
    users = (
        User.objects.filter(is_active=True)
        .annotate(
            direct=Exists(granted(codename, User.user_permissions.through, user=OuterRef("pk"))),
            via_group=Exists(
                granted(codename, Group.permissions.through, group__user=OuterRef("pk"))
            ),
        )
        .order_by("username")[:SHOWN]
    )
    return [
        {
            "user": user,
            "allowed": user.is_superuser or user.direct or user.via_group,
            # Only a grant on the account itself can be revoked here.
            "revocable": user.direct and not user.is_superuser,
            "grantable": not (user.is_superuser or user.direct or user.via_group),
        }
        for user in users
    ]


def account_rights() -> list[dict]:
    """Each account with its two rights, one row each (both lists share their order)."""
    rows = zip(runner_accounts(), runner_accounts("use_operator_logins"), strict=True)
    return [{"user": run["user"], "runner": run, "lend": lend} for run, lend in rows]


def granted(codename: str, through, **match):
    """Rows of a permissions table (a user's or a group's) that grant agents.<codename>."""
    agents = {"permission__content_type__app_label": "agents"}
    return through.objects.filter(permission__codename=codename, **agents, **match)


def save_runner(request: HttpRequest, page: str) -> HttpResponse:
    """A Grant/Revoke button of either list: `runner` or `lend` names the account."""
    field = next(name for name in TOGGLES if name in request.POST)
    raw = request.POST.get(field, "")
    user = User.objects.filter(pk=int(raw)).first() if raw.isdigit() and len(raw) < 19 else None
    if user is None:
        flash.error(request, "There is no such account.")
        return redirect(page)
    said = TOGGLES[field](user, request.POST.get("allow") == "1")
    flash.success(request, said)
    return redirect(page)
