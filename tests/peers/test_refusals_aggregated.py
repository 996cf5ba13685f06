"""Repeated refusals of one key are counted into one activity row a minute, never a row each."""

from datetime import timedelta

import time_machine
from django.db.models import Sum
from django.utils import timezone

from peers.metrics import refusals_since
from peers.models import Activity


def refused_rows():
    return Activity.objects.filter(action=Activity.Action.REFUSED)


def send_to_nowhere(agent_api):
    answer = agent_api.call(
        "POST", "/api/v1/agent/messages", {"to": "nowhere", "text": "hi", "wait_seconds": 0}
    )
    assert answer.status_code == 404, answer.json()
    return answer


def test_it_300_refused_calls_of_one_key_make_a_handful_of_rows(agent_api, chat):
    start = timezone.now()
    with time_machine.travel(start, tick=True) as clock:
        for number in range(300):
            if number == 150:
                clock.shift(timedelta(seconds=61))  # a new minute: a new row
            send_to_nowhere(agent_api)
    rows = refused_rows()
    assert 2 <= rows.count() <= 4
    assert rows.aggregate(total=Sum("count"))["total"] == 300
    assert {row.chat_id for row in rows} == {chat.pk}
    assert refusals_since(start - timedelta(minutes=5)) == {"no_chat": 300}


def test_it_another_key_or_another_code_gets_its_own_row(agent_api, chat, other_chat):
    from tests.conftest import ApiClient

    send_to_nowhere(agent_api)
    send_to_nowhere(agent_api)
    send_to_nowhere(ApiClient(other_chat.agent_key))
    bad = agent_api.call("POST", "/api/v1/agent/messages", {"to": 5})
    assert bad.status_code == 400
    counts = sorted((row.chat_id, row.detail, row.count) for row in refused_rows())
    assert counts == sorted(
        [(chat.pk, "no_chat", 2), (other_chat.pk, "no_chat", 1), (chat.pk, bad.json()["code"], 1)]
    )


def test_it_the_activity_api_and_page_show_the_count(agent_api, owner_api, owner_client):
    for _ in range(3):
        send_to_nowhere(agent_api)
    rows = owner_api.call("GET", "/api/v1/activity").json()["items"]
    assert [(row["action"], row["count"]) for row in rows] == [("refused", 3)]
    assert "(×3)" in owner_client.get("/activity/").text
