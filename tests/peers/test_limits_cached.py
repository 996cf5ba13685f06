"""A send reads the limits from its process's copy: an admin's change must still hold
on the very next send in the same process, whether it tightens or loosens them."""

import pytest

from kernel.refusals import Refusal
from peers.actions import check_send_message, do_set_limits
from peers.actions.limits import CACHED
from peers.models import PeerMessage


def send(sender, recipient, text: str = "which port?") -> PeerMessage:
    return check_send_message(sender, to=recipient.pk, text=text)


def test_it_a_lowered_limit_holds_on_the_next_send(sender, recipient):
    send(sender, recipient)  # the process now holds the limits it read
    assert CACHED, "the send should have kept the limits it read"
    do_set_limits({"chat_per_hour": 1})
    with pytest.raises(Refusal) as refused:
        send(sender, recipient)
    assert refused.value.code == "limit_chat_hour"


def test_it_a_raised_limit_holds_on_the_next_send(sender, recipient):
    do_set_limits({"max_text": 10})
    with pytest.raises(Refusal) as refused:
        send(sender, recipient, "x" * 20)
    assert refused.value.code == "message_too_long"
    do_set_limits({"max_text": 100})
    assert send(sender, recipient, "x" * 20).text == "x" * 20


def test_it_a_count_stops_at_its_limit_and_still_refuses(sender, recipient):
    do_set_limits({"chat_per_hour": 3, "pair_per_window": 100})
    for _ in range(3):
        send(sender, recipient)
    for _ in range(2):
        with pytest.raises(Refusal) as refused:
            send(sender, recipient)
        assert refused.value.code == "limit_chat_hour"
    assert PeerMessage.objects.filter(from_chat=sender).count() == 3
