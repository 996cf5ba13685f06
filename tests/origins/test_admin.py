"""Origins in the Django admin: listed, read-only, never a secret in clear; enable,
disable, delete and resend through origins.actions."""

import pytest
from django.conf import settings
from django.utils import timezone

from origins.models import Origin, OriginReply, OriginThread
from tests.conftest import make_chat
from tests.origins.conftest import make_origin

pytestmark = pytest.mark.django_db
SECRETS = {"token": "ghp_n0t-shown", "private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc"}


@pytest.fixture
def github(owner):
    return make_origin(owner, "gh", kind="github", settings={"handle": "bot", **SECRETS})


def test_it_lists_and_shows_an_origin_without_its_secrets(admin_client, github):
    listing = admin_client.get("/django-admin/origins/origin/").content.decode()
    assert "gh" in listing
    page = admin_client.get(f"/django-admin/origins/origin/{github.pk}/change/")
    text = page.content.decode()
    assert page.status_code == 200 and "bot" in text and "(set)" in text
    for secret in [github.secret, *SECRETS.values()]:
        assert secret.split("\n")[-1] not in text


def test_it_disables_and_deletes_through_the_actions(admin_client, github):
    url = "/django-admin/origins/origin/"
    admin_client.post(url, {"action": "disable", "_selected_action": [github.pk]})
    assert Origin.objects.get(pk=github.pk).enabled is False
    admin_client.post(url, {"action": "delete_origins", "_selected_action": [github.pk]})
    assert not Origin.objects.exists()


def test_it_resends_a_failed_answer(admin_client, owner):
    origin = make_origin(owner)
    chat = make_chat(owner, "outside", origin="webhook")
    thread = OriginThread.objects.create(origin=origin, thread_key="t", chat=chat)
    now = timezone.now()
    reply = OriginReply.objects.create(
        thread=thread,
        text="x",
        state="failed",
        attempts=settings.ORIGIN_REPLY_ATTEMPTS,
        next_attempt_at=now,
        created_at=now,
    )
    url = "/django-admin/origins/originreply/"
    assert admin_client.get(url).status_code == 200
    admin_client.post(url, {"action": "resend", "_selected_action": [reply.pk]})
    reply.refresh_from_db()
    assert (reply.state, reply.resends) == ("pending", 1)


def test_a_staff_member_who_may_only_view_origins_changes_none(client, github):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    viewer = get_user_model().objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_origin"))
    client.force_login(viewer)
    url = "/django-admin/origins/origin/"
    assert client.get(url).status_code == 200
    for action in ("disable", "delete_origins"):
        client.post(url, {"action": action, "_selected_action": [github.pk]})
    assert Origin.objects.get(pk=github.pk).enabled is True
