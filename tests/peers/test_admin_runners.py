"""/internal/admin/peers: "Who may run agents", a grant/revoke toggle per account."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client

from accounts.models import User

PAGE = "/internal/admin/peers"


@pytest.fixture
def staff_client(db):
    staff = User.objects.create_user("root", password="root-password-1", is_staff=True)
    client = Client()
    client.force_login(staff)
    return client


def may_run(user) -> bool:
    return User.objects.get(pk=user.pk).has_perm("agents.run_hosted")


def test_it_staff_grants_and_revokes_an_account(staff_client, owner):
    page = staff_client.get(PAGE).content.decode()
    assert "Who may run agents" in page and "alice" in page

    response = staff_client.post(PAGE, {"runner": owner.pk, "allow": "1"}, follow=True)
    assert "alice may now run" in response.content.decode()
    assert may_run(owner)
    assert "Revoke" in staff_client.get(PAGE).content.decode()

    response = staff_client.post(PAGE, {"runner": owner.pk, "allow": "0"}, follow=True)
    assert "alice may no longer run" in response.content.decode()
    assert not may_run(owner)


@pytest.mark.parametrize("runner", ["", "abc", "99999999", "-1", "1" * 40])
def test_it_an_unknown_account_changes_nothing(staff_client, owner, runner):
    response = staff_client.post(PAGE, {"runner": runner, "allow": "1"}, follow=True)
    assert response.status_code == 200
    assert "There is no such account." in response.content.decode()
    assert not may_run(owner)


def test_it_nobody_but_staff_can_grant(owner, owner_client, outsider):
    response = owner_client.post(PAGE, {"runner": owner.pk, "allow": "1"})
    assert response.status_code == 404
    assert Client().post(PAGE, {"runner": outsider.pk, "allow": "1"}).status_code == 404
    assert not may_run(owner) and not may_run(outsider)


def test_it_the_django_admin_lists_the_permission(db):
    permission = Permission.objects.get(codename="run_hosted", content_type__app_label="agents")
    assert permission.name == "Can run hosted agents on this server"


def test_it_a_grant_through_a_group_shows_but_is_changed_in_the_django_admin(staff_client, owner):
    runners = Group.objects.create(name="runners")
    runners.permissions.add(
        Permission.objects.get(codename="run_hosted", content_type__app_label="agents")
    )
    owner.groups.add(runners)
    page = staff_client.get(PAGE).content.decode()
    row = page[page.index("<td>alice") :].split("</tr>")[0]
    row = row[row.index('data-right="runner"') :].split("</td>")[0]  # its "Runs agents" cell
    assert "yes" in row and "through a group" in row and "<button" not in row
