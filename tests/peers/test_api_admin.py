"""The Django admin for peers: messages and activity read-only; limits through do_set_limits."""

from django.contrib.admin.utils import quote
from django.urls import reverse

from peers import actions
from peers.limits import current_limits, defaults
from peers.models import Activity


def test_it_lists_messages_and_activity_read_only(admin_client, sender, recipient):
    message = actions.check_send_message(sender, to=recipient.pk, text="Which port?")
    page = admin_client.get("/django-admin/peers/peermessage/")
    assert page.status_code == 200 and message.pk in page.content.decode()
    assert admin_client.get("/django-admin/peers/activity/").status_code == 200
    # As the list links it: admin's quote() escapes the "_" of "msg_…" (a bare "_4f" would
    # read as an escaped character and redirect).
    link = reverse("admin:peers_peermessage_change", args=[quote(message.pk)])
    assert f'href="{link}"' in page.content.decode()
    detail = admin_client.get(link)
    assert detail.status_code == 200 and b"Which port?" in detail.content
    assert admin_client.get("/django-admin/peers/peermessage/add/").status_code == 403


def test_it_saves_limits_through_the_action(admin_client):
    form = {**defaults(), "chat_per_hour": 45}
    actions.do_set_limits({})  # the one row, as the staff page's first save makes it (no "+ Add")
    change = f"/django-admin/peers/limits/{current_limits().pk}/change/"
    response = admin_client.post(change, form)
    assert response.status_code == 302
    assert current_limits().chat_per_hour == 45
    row = Activity.objects.get(action="limits")
    assert "chat_per_hour=45" in row.detail
    form["chat_per_hour"] = 0
    again = admin_client.post(change, form)
    assert again.status_code == 200  # the form shows the error; nothing saved
    assert current_limits().chat_per_hour == 45
