"""Replies, the turn's final text as the answer, chains and the person's fresh start."""

import pytest

from chats import actions as chat_actions
from chats.models import Entry
from kernel.refusals import Refusal
from peers import actions
from peers import actions as delivery
from peers import actions as peer_actions
from peers.delivery_table import words
from peers.models import PeerMessage
from tests.peers.conftest import running


def woken_turn(chat):
    turn = chat_actions.claim_next_turn("tests")
    assert turn.chat_id == chat.pk
    delivery.take_for_turn(turn)
    return turn


def finish(turn, text):
    chat_actions.do_mark_turn_done(turn, final_text=text)
    turn.refresh_from_db()
    return delivery.answer_from_final_text(turn)


def test_it_sends_the_final_text_back_as_the_answer(sender, recipient):
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?\nthanks")
    answers = finish(woken_turn(recipient), "It listens on 8080.")

    assert len(answers) == 1
    answer = answers[0]
    assert (answer.from_chat_id, answer.to_chat_id, answer.reply_to_id) == (
        recipient.pk,
        sender.pk,
        question.pk,
    )
    assert answer.text == "It listens on 8080."
    assert answer.exchange == question.exchange and answer.chain == question.chain
    question.refresh_from_db()
    assert question.answered


def test_it_the_turns_answer_entry_shows_the_answer_it_sent(sender, recipient):
    actions.check_send_message(sender, to=recipient.pk, text="which port?")
    turn = woken_turn(recipient)
    elsewhere = chat_actions.do_add_entry(recipient, kind=Entry.Kind.ANSWER, text="Another turn's.")
    (answer,) = finish(turn, "It listens on 8080.")

    linked = Entry.objects.filter(message_id=answer.pk, kind=Entry.Kind.ANSWER)
    assert [(e.turn_id, e.text) for e in linked] == [(turn.pk, "It listens on 8080.")]
    assert Entry.objects.get(pk=elsewhere.pk).message_id == ""


def test_it_a_turn_woken_by_an_answer_never_answers_back(sender, recipient):
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    finish(woken_turn(recipient), "8080")
    answer = PeerMessage.objects.get(reply_to=question)
    assert answer.detail == "waking"  # the sender was idle and no call waited

    assert finish(woken_turn(sender), "Thanks, noted.") == []
    assert PeerMessage.objects.count() == 2


def test_it_a_turn_that_wrote_back_itself_sends_nothing_more(sender, recipient):
    question = actions.check_send_message(sender, to=recipient.pk, text="which port?")
    turn = woken_turn(recipient)
    actions.check_send_message(recipient, to=sender.pk, text="8080", reply_to=question.pk)
    assert finish(turn, "done") == []


def test_it_an_answer_to_the_person_goes_to_the_person(owner, recipient):
    question = actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="status?")
    (answer,) = finish(woken_turn(recipient), "All green.")
    assert answer.to_chat_id is None and answer.reply_to_id == question.pk
    assert (answer.state, answer.path, words(answer)) == ("delivered", "", "Delivered — to you")


def test_it_answers_each_sender_once_and_every_message_it_took(owner, sender, recipient):
    """Issue 34: a batch is answered whole, by one answer per sender (the person too)."""
    mine = [
        actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text=text)
        for text in ("status?", "and the tests?")
    ]
    theirs = [
        actions.check_send_message(sender, to=recipient.pk, text=text)
        for text in ("which port?", "which host?", "which user?")
    ]
    answers = finish(woken_turn(recipient), "All green.")

    assert sorted((a.to_chat_id or "", a.reply_to_id) for a in answers) == sorted(
        [("", mine[-1].pk), (sender.pk, theirs[-1].pk)]
    )
    to_me = next(a for a in answers if a.to_chat_id is None)
    to_them = next(a for a in answers if a.to_chat_id == sender.pk)
    for batch, answer in ((mine, to_me), (theirs, to_them)):
        for message in batch:
            message.refresh_from_db()
            assert message.answered and message.answer_id == answer.pk


def test_it_an_answer_to_you_as_a_chat_goes_to_that_chat(owner, sender, recipient):
    question = actions.check_send_as_person(owner, from_chat=sender.pk, to=recipient.pk, text="hi")
    assert question.sent_by == "person" and question.from_chat_id == sender.pk
    (answer,) = finish(woken_turn(recipient), "hello")
    assert answer.to_chat_id == sender.pk


def test_it_cuts_a_long_final_text_to_the_longest_message(sender, recipient):
    actions.check_send_message(sender, to=recipient.pk, text="essay please")
    (answer,) = finish(woken_turn(recipient), "x" * 9000)
    assert len(answer.text) == 8000


def test_it_reply_to_must_name_a_message_the_recipient_sent_the_sender(owner, sender, recipient):
    mine = actions.check_send_message(sender, to=recipient.pk, text="hi")
    with pytest.raises(Refusal) as refused:
        # sender's own message is not one the recipient sent it
        actions.check_send_message(sender, to=recipient.pk, text="again", reply_to=mine.pk)
    assert refused.value.code == "no_such_message"


def test_it_messages_from_one_line_of_the_person_share_a_chain(sender, recipient):
    turn = running(sender, "ask payments-api: which port?")
    first = actions.check_send_message(sender, to=recipient.pk, text="one")
    second = actions.check_send_message(sender, to=recipient.pk, text="two")
    assert first.chain == second.chain == turn.chain
    assert (first.hop, second.hop) == (1, 1)

    woken = woken_turn(recipient)
    assert woken.chain == turn.chain
    (answer,) = finish(woken, "8080")
    assert answer.chain == turn.chain and answer.hop == 2


def test_it_the_chain_limit_counts_everything_descending_from_one_line(sender, recipient, owner):
    actions.do_set_limits({"chain_without_you": 2})
    running(sender)
    actions.check_send_message(sender, to=recipient.pk, text="one")
    actions.check_send_message(sender, to=recipient.pk, text="two")
    with pytest.raises(Refusal) as refused:
        actions.check_send_message(sender, to=recipient.pk, text="three")
    assert refused.value.code == "limit_chain"

    peer_actions.check_stop_chat(sender)
    # A send outside any turn starts a new chain.
    assert actions.check_send_message(sender, to=recipient.pk, text="fresh").hop == 1


def test_it_the_persons_message_gives_the_pair_a_fresh_count(owner, sender, recipient):
    actions.do_set_limits({"pair_without_you": 2, "chain_without_you": 100})
    actions.check_send_message(sender, to=recipient.pk, text="1")
    actions.check_send_message(recipient, to=sender.pk, text="2")
    with pytest.raises(Refusal) as refused:
        actions.check_send_message(sender, to=recipient.pk, text="3")
    assert refused.value.code == "limit_pair_without_you"
    assert "tell the person" in refused.value.message

    actions.check_send_as_person(owner, from_chat=None, to=recipient.pk, text="go on")
    actions.check_send_message(sender, to=recipient.pk, text="3")
