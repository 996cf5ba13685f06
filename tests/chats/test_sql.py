"""kernel.sql and the hand-written statements it runs (the agent key lookup, a send's
lock): each run reads its own values' rows as the ORM would, values go as parameters
only, and what no statement can answer (an empty list, a NUL) is answered or refused
before any SQL. Beside them, the name lookups an attacker would try wildcards on."""

import datetime

import pytest
from django.db import connection, models, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from accounts.actions import do_signup
from accounts.models import User
from chats.actions import name_taken
from chats.api import caller_for_secret
from chats.models import Chat
from chats.selectors import chat_for_agent_key, chat_with_key
from kernel.sql import converter, fetch, placeholders
from peers.actions.locking import (
    account_chats_by_id,
    lock_chats,
    lock_for_send,
    locked_account_chats,
    row_locks,
)
from peers.selectors import find_chat_by_name
from tests.conftest import make_chat

pytestmark = pytest.mark.django_db


def test_it_reads_each_chat_and_its_user_as_the_orm_does(chat, other_chat, outsider_chat):
    for expected in (chat, other_chat, outsider_chat, chat):
        with CaptureQueriesContext(connection) as ran:
            found = chat_with_key(expected.agent_key_digest)
            assert found.user.username == expected.user.username  # read with the chat
        assert len(ran) == 1
        orm = Chat.objects.select_related("user").get(pk=expected.pk)
        for model, mine, theirs in ((Chat, found, orm), (User, found.user, orm.user)):
            for field in model._meta.concrete_fields:  # the same values of the same types
                ours, its = getattr(mine, field.attname), getattr(theirs, field.attname)
                assert (ours, type(ours)) == (its, type(its)), field.name
        assert found.user_id == found.user.pk and not found._state.adding
    assert chat_with_key("no such digest") is None


def test_it_finds_the_chat_of_a_key_and_nothing_else(chat, outsider_chat):
    assert chat_for_agent_key(chat.agent_key) == chat
    assert chat_for_agent_key(outsider_chat.agent_key) == outsider_chat
    for wrong in ("", "cak_", chat.agent_key + "x", "-" + chat.agent_key, "cak_\x00"):
        assert chat_for_agent_key(wrong) is None
        assert caller_for_secret(wrong) is None


def test_it_takes_no_wildcard_or_other_case_in_a_digest(chat):
    digest = chat.agent_key_digest
    for wrong in ("%", "_" * len(digest), digest[:-1] + "_", digest[:8] + "%", digest.upper()):
        assert chat_with_key(wrong) is None, wrong


def test_it_the_send_lock_takes_only_the_accounts_own_chats(owner, chat, other_chat, outsider_chat):
    with transaction.atomic():
        locked = lock_chats(owner, [other_chat.pk, chat.pk, outsider_chat.pk, None, "-x"])
    assert list(locked) == sorted([chat.pk, other_chat.pk])
    with transaction.atomic():
        assert lock_chats(owner, []) == {}
    with transaction.atomic():
        assert lock_for_send(owner, from_chat=chat, to=other_chat.pk, person=True) == other_chat
        assert lock_for_send(owner, from_chat=chat, to=outsider_chat.pk, person=False) is None


def test_it_reads_lists_of_every_length_in_id_order(owner, chat, other_chat, outsider_chat):
    both = sorted([chat.pk, other_chat.pk])
    missing = [f"chat_none{i}" for i in range(20)]
    read = locked_account_chats if row_locks() else account_chats_by_id
    with transaction.atomic():
        for length in range(20):
            ids = sorted([*both, *missing[:length]])
            assert [c.pk for c in read(owner.pk, ids)] == both
        assert read(owner.pk, [outsider_chat.pk]) == []  # another account's chat
        assert read(outsider_chat.user_id, [outsider_chat.pk]) == [outsider_chat]


def test_it_answers_an_empty_list_without_a_statement(owner):
    with pytest.raises(ValueError, match="empty IN list"):
        placeholders([])
    with transaction.atomic(), CaptureQueriesContext(connection) as ran:
        assert account_chats_by_id(owner.pk, []) == []
        assert locked_account_chats(owner.pk, []) == []
    assert len(ran) == 0


def test_it_refuses_a_nul_before_any_sql(owner, chat):
    with CaptureQueriesContext(connection) as ran:
        with pytest.raises(ValueError, match="NUL"):
            fetch("SELECT 1 WHERE 1 = %s", ["a\x00b"])
        with pytest.raises(ValueError, match="NUL"):
            chat_with_key(chat.agent_key_digest + "\x00")
        with pytest.raises(ValueError, match="NUL"):
            account_chats_by_id(owner.pk, [chat.pk + "\x00"])
    assert len(ran) == 0
    with transaction.atomic():  # a send names it: missing, as on either backend
        assert lock_chats(owner, [chat.pk + "\x00", "\x00"]) == {}
        assert lock_for_send(owner, from_chat=None, to=chat.pk + "\x00", person=True) is None


@pytest.mark.parametrize("value", [None, True, 1.5, b"bytes", {"a": 1}, ["a"]])
def test_it_refuses_a_value_that_is_not_str_or_int(value):
    with pytest.raises(TypeError, match="str and int"):
        fetch("SELECT %s", [value])


def test_it_refuses_to_read_a_field_it_has_no_conversion_for():
    for field in (models.JSONField(), models.DecimalField(), models.UUIDField()):
        with pytest.raises(TypeError, match="kernel.sql"):
            converter(field, connection.vendor)


def test_it_reads_sqlites_text_and_integers_as_the_orm_does():
    created_at = converter(Chat._meta.get_field("created_at"), "sqlite")
    assert created_at("2026-12-05 07:30:01.5") == datetime.datetime(
        2026, 12, 5, 7, 30, 1, 500000, tzinfo=datetime.UTC
    )
    assert created_at(None) is None
    peers = converter(Chat._meta.get_field("peers"), "sqlite")
    assert (peers(1), peers(0), peers(None)) == (True, False, None)
    assert converter(Chat._meta.get_field("created_at"), "postgresql") is None


@pytest.mark.skipif(not row_locks(), reason="SQLite has no row locks to refuse")
@pytest.mark.django_db(transaction=True)  # outside the test's own transaction
def test_it_refuses_a_lock_outside_a_transaction_as_the_orm_does(owner, chat):
    with transaction.atomic():
        assert locked_account_chats(owner.pk, [chat.pk]) == [chat]
    with pytest.raises(TransactionManagementError):
        locked_account_chats(owner.pk, [chat.pk])


WILD_NAMES = ["50%_off\\now", "50x_off\\now", "50%xoff\\now", "50%_offxnow", "50%%_off\\\\now"]


def test_it_finds_a_chat_named_with_wildcards_and_only_it(owner, outsider):
    chats = {name: make_chat(owner, name) for name in WILD_NAMES}
    make_chat(outsider, WILD_NAMES[0])  # the same name in another account
    for name, chat in chats.items():
        assert find_chat_by_name(owner, name) == chat
        assert find_chat_by_name(owner, f" {name.upper()} ") == chat  # any case, trimmed
        assert name_taken(owner, name.upper())
        assert not name_taken(owner, name, exclude=chat.pk)
    for absent in ("50%", "50_off\\now", "%", "_", "\\", "50%_off\\now%"):
        assert find_chat_by_name(owner, absent) is None, absent
        assert not name_taken(owner, absent), absent


def test_it_takes_a_user_name_with_wildcards_as_itself(db):
    assert do_signup(username="50%_off\\now", password="long-enough-1") is not None
    assert do_signup(username="50%_OFF\\NOW", password="long-enough-1") is None  # any case
    for other in ("50x_off\\now", "50%xoff\\now", "50%_offxnow", "50%"):
        assert do_signup(username=other, password="long-enough-1") is not None, other
    assert User.objects.count() == 5
