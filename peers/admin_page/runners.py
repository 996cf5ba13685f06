"""/internal/admin/peers, the "Who may run agents" part: the accounts and whether
each may have hosted or command chats run here (agents.run_hosted), with a
toggle that goes through accounts.actions.do_allow_runners."""

from django.contrib import messages as flash
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from accounts.actions import do_allow_runners, run_hosted_permission
from accounts.models import User

SHOWN = 200  # accounts listed; the Django admin filters the rest


def runner_accounts() -> list[dict]:
    permission = run_hosted_permission()
    granted = Q(user_permissions=permission) | Q(groups__permissions=permission)
    direct = set(User.objects.filter(user_permissions=permission).values_list("pk", flat=True))
    allowed = set(User.objects.filter(granted).values_list("pk", flat=True))
    users = User.objects.filter(is_active=True).order_by("username")[:SHOWN]
    return [
        {
            "user": user,
            "allowed": user.is_superuser or user.pk in allowed,
            # Only a grant on the account itself can be revoked here.
            "revocable": user.pk in direct and not user.is_superuser,
            "grantable": not user.is_superuser and user.pk not in allowed,
        }
        for user in users
    ]


def save_runner(request: HttpRequest, page: str) -> HttpResponse:
    raw = request.POST.get("runner", "")
    user = User.objects.filter(pk=int(raw)).first() if raw.isdigit() and len(raw) < 19 else None
    if user is None:
        flash.error(request, "There is no such account.")
        return redirect(page)
    said = do_allow_runners(user, allowed=request.POST.get("allow") == "1")
    flash.success(request, said)
    return redirect(page)
