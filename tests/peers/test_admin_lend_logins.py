"""Lending the operator's model logins (agents.use_operator_logins): the Lend/Take back
list on /internal/admin/peers, `manage.py lend_logins`, and the demo account."""

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from accounts.models import User

PAGE = "/internal/admin/peers"


@pytest.fixture
def staff_client(db):
    staff = User.objects.create_user("root", password="root-password-1", is_staff=True)
    client = Client()
    client.force_login(staff)
    return client


def lent(user) -> bool:
    return User.objects.get(pk=user.pk).has_perm("agents.use_operator_logins")


def lend_row(page: str, name: str) -> str:
    """The account's "Uses the server's model logins" cell."""
    row = page[page.index(f"<td>{name}") :].split("</tr>")[0]
    return row[row.index('data-right="lend"') :].split("</td>")[0]


def test_it_lends_and_takes_back_on_the_admin_page(staff_client, owner):
    page = staff_client.get(PAGE).content.decode()
    assert "Uses the server's model logins" in page
    assert "no" in lend_row(page, "alice") and "Lend" in lend_row(page, "alice")

    response = staff_client.post(PAGE, {"lend": owner.pk, "allow": "1"}, follow=True)
    assert "alice&#x27;s hosted agents now use this server&#x27;s own model logins" in (
        response.content.decode()
    )
    assert lent(owner)
    # The other list is its own permission: lending lets nobody run agents.
    assert not User.objects.get(pk=owner.pk).has_perm("agents.run_hosted")
    assert "Take back" in lend_row(staff_client.get(PAGE).content.decode(), "alice")

    staff_client.post(PAGE, {"lend": owner.pk, "allow": "0"})
    assert not lent(owner)


def test_it_nobody_but_staff_can_lend(owner, owner_client):
    assert owner_client.post(PAGE, {"lend": owner.pk, "allow": "1"}).status_code == 404
    assert not lent(owner)


def test_it_lend_logins_lends_and_revokes(owner, capsys):
    call_command("lend_logins", "alice")
    assert "now use this server's own model logins" in capsys.readouterr().out
    assert lent(owner)

    call_command("lend_logins", "alice", "--revoke")
    assert "need their own, in Settings → Agents" in capsys.readouterr().out
    assert not lent(owner)


def test_it_lend_logins_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("lend_logins", "nobody")


def test_it_the_django_admin_lists_the_permission(db):
    permission = Permission.objects.get(
        codename="use_operator_logins", content_type__app_label="agents"
    )
    assert permission.name == "Can use the operator's model logins in hosted agents"


def test_it_seed_demo_lends_the_operators_logins_to_the_demo_account(db):
    call_command("seed_demo")
    assert User.objects.get(username="demo").has_perm("agents.use_operator_logins")
