"""/internal/admin/peers: "Who may run agents", a grant/revoke toggle per account."""

import pytest
from django.contrib.auth.models import Permission
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


def test_staff_grants_and_revokes_an_account(staff_client, owner):
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
def test_an_unknown_account_changes_nothing(staff_client, owner, runner):
    response = staff_client.post(PAGE, {"runner": runner, "allow": "1"}, follow=True)
    assert response.status_code == 200
    assert "There is no such account." in response.content.decode()
    assert not may_run(owner)


def test_nobody_but_staff_can_grant(owner, owner_client, outsider):
    response = owner_client.post(PAGE, {"runner": owner.pk, "allow": "1"})
    assert response.status_code == 404
    assert Client().post(PAGE, {"runner": outsider.pk, "allow": "1"}).status_code == 404
    assert not may_run(owner) and not may_run(outsider)


def test_the_django_admin_lists_the_permission(db):
    permission = Permission.objects.get(codename="run_hosted", content_type__app_label="agents")
    assert permission.name == "Can run hosted agents on this server"
