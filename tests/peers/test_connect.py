"""Connecting two chats with a brief: both switched on, one message each, or nothing."""

import pytest

from chats.models import Chat, Turn
from kernel.refusals import Refusal
from peers import actions
from peers.models import Activity, PeerMessage
from tests.conftest import make_chat
from tests.peers.conftest import reachable


@pytest.fixture
def two_off(owner):
    chats = make_chat(owner, "api", peers=False), make_chat(owner, "web", peers=False)
    reachable(*chats)
    return chats


def test_it_switches_both_on_and_sends_each_a_brief_naming_the_other(owner, two_off):
    api, web = two_off
    to_api, to_web = actions.check_connect_chats(
        owner, chat_ids=[api.pk, web.pk], brief="Agree on /v2."
    )

    assert Chat.objects.filter(pk__in=[api.pk, web.pk], peers=True).count() == 2
    assert (to_api.to_chat_id, to_web.to_chat_id) == (api.pk, web.pk)
    assert to_api.from_chat_id is None and to_api.sent_by == "person"
    assert '"web"' in to_api.text and to_api.text.endswith("Agree on /v2.")
    assert Turn.objects.filter(chat__in=[api, web], trigger="wake").count() == 2
    assert Activity.objects.filter(action="connect", chat=api, target=web).exists()


def test_it_connects_all_or_nothing(owner, two_off):
    api, web = two_off
    actions.do_set_limits({"wakes_per_hour": 1})
    with pytest.raises(Refusal) as refused:
        actions.check_connect_chats(owner, chat_ids=[api.pk, web.pk], brief="Agree on /v2.")

    assert refused.value.code == "limit_wakes"
    assert PeerMessage.objects.count() == 0
    assert Chat.objects.filter(pk__in=[api.pk, web.pk], peers=True).count() == 0
    assert list(Activity.objects.values_list("action", "detail")) == [("refused", "limit_wakes")]


def test_it_refuses_a_brief_too_long_to_send_before_switching_anything(owner, two_off):
    api, web = two_off
    with pytest.raises(Refusal) as refused:
        actions.check_connect_chats(owner, chat_ids=[api.pk, web.pk], brief="x" * 7990)
    assert refused.value.code == "message_too_long"
    assert not Chat.objects.filter(peers=True).exists()


def test_it_an_outsiders_chat_reads_as_missing(owner, two_off, outsider_chat):
    with pytest.raises(Refusal) as refused:
        actions.check_connect_chats(owner, chat_ids=[two_off[0].pk, outsider_chat.pk], brief="hi")
    assert refused.value.code == "no_chat"
