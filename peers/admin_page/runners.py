"""/internal/admin/peers, the "Who may run agents" part: the accounts and whether
each may have hosted or command chats run here (agents.run_hosted), with a
toggle that goes through accounts.actions.do_allow_runners."""

from django.contrib import messages as flash
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from accounts.actions import do_allow_runners
from accounts.models import User

SHOWN = 200  # accounts listed; the Django admin filters the rest


def runner_accounts() -> list[dict]:
    """The accounts with whether each may run agents: one query."""
    users = (
        User.objects.filter(is_active=True)
        .annotate(
            direct=Exists(granted(User.user_permissions.through, user=OuterRef("pk"))),
            via_group=Exists(granted(Group.permissions.through, group__user=OuterRef("pk"))),
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


def granted(through, **match):
    """Rows of a permissions table (a user's or a group's) that grant agents.run_hosted."""
    run_hosted = {"permission__content_type__app_label": "agents"}
    return through.objects.filter(permission__codename="run_hosted", **run_hosted, **match)


def save_runner(request: HttpRequest, page: str) -> HttpResponse:
    raw = request.POST.get("runner", "")
    user = User.objects.filter(pk=int(raw)).first() if raw.isdigit() and len(raw) < 19 else None
    if user is None:
        flash.error(request, "There is no such account.")
        return redirect(page)
    said = do_allow_runners(user, allowed=request.POST.get("allow") == "1")
    flash.success(request, said)
    return redirect(page)
