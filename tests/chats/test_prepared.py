"""chats.prepared: a query compiled once answers as the ORM does, run after run, with
each run's own values, and refuses what it could bind wrongly."""

import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from chats.api import caller_for_secret
from chats.models import Chat
from chats.prepared import MAX_SHAPES, PreparedQuery
from chats.selectors import chat_for_agent_key
from peers.actions.locking import lock_chats, row_locks

pytestmark = pytest.mark.django_db


def by_key() -> PreparedQuery:
    return PreparedQuery(
        lambda digest: Chat.objects.select_related("user").filter(agent_key_digest=digest)
    )


def test_each_run_binds_its_own_values_and_reads_as_the_orm_does(chat, other_chat, outsider_chat):
    query = by_key()
    for expected in (chat, other_chat, outsider_chat, chat):
        with CaptureQueriesContext(connection) as ran:
            (found,) = query(expected.agent_key_digest)
            assert found.user.username == expected.user.username  # read with the chat
        assert len(ran) == 1
        orm = Chat.objects.get(pk=expected.pk)
        for field in Chat._meta.concrete_fields:  # the ORM's converters ran: same types
            assert getattr(found, field.attname) == getattr(orm, field.attname), field.name
    assert query("no such digest") == []
    assert len(query.compiled) == 1


def test_the_key_lookup_finds_its_chat_and_nothing_else(chat, outsider_chat):
    assert chat_for_agent_key(chat.agent_key) == chat
    assert chat_for_agent_key(outsider_chat.agent_key) == outsider_chat
    for wrong in ("", "cak_", chat.agent_key + "x", "-" + chat.agent_key, "cak_\x00"):
        assert chat_for_agent_key(wrong) is None
        assert caller_for_secret(wrong) is None


def test_a_list_of_another_length_is_compiled_on_its_own(owner, chat, other_chat, outsider_chat):
    query = PreparedQuery(
        lambda user_id, ids: Chat.objects.filter(user_id=user_id, pk__in=ids).order_by("pk")
    )
    both = sorted([chat.pk, other_chat.pk])
    assert [c.pk for c in query(owner.pk, [chat.pk])] == [chat.pk]
    assert [c.pk for c in query(owner.pk, both)] == both
    assert [c.pk for c in query(owner.pk, [other_chat.pk])] == [other_chat.pk]
    assert query(owner.pk, [outsider_chat.pk]) == []  # another account's chat is left out
    assert len(query.compiled) == 2


def test_lists_of_many_lengths_keep_only_so_many_shapes(owner, chat):
    query = PreparedQuery(lambda ids: Chat.objects.filter(pk__in=ids))
    for length in range(1, MAX_SHAPES + 5):
        ids = [chat.pk] + [f"chat_none{i}" for i in range(length - 1)]
        assert query(ids) == [chat]  # past the cap too: the ORM's own compile
    assert len(query.compiled) == MAX_SHAPES


def test_the_send_lock_takes_only_the_accounts_own_chats(owner, chat, other_chat, outsider_chat):
    with transaction.atomic():
        locked = lock_chats(owner, [other_chat.pk, chat.pk, outsider_chat.pk, None, "-x"])
    assert list(locked) == sorted([chat.pk, other_chat.pk])
    with transaction.atomic():
        assert lock_chats(owner, []) == {}


@pytest.mark.skipif(not row_locks(), reason="SQLite has no row locks to refuse")
@pytest.mark.django_db(transaction=True)  # outside the test's own transaction
def test_a_lock_outside_a_transaction_is_refused_as_the_orm_refuses_it(owner, chat):
    query = PreparedQuery(
        lambda ids: Chat.objects.filter(pk__in=ids).select_for_update(no_key=True)
    )
    with transaction.atomic():
        assert query([chat.pk]) == [chat]  # compiled inside a transaction
    with pytest.raises(TransactionManagementError):
        query([chat.pk])


def test_a_value_folded_into_the_sql_is_refused_not_bound_wrongly(chat):
    """startswith sends 'value%': no parameter is the value itself."""
    query = PreparedQuery(lambda prefix: Chat.objects.filter(name__startswith=prefix))
    with pytest.raises(ValueError, match="as a parameter"):
        query(chat.name[:3])


@pytest.mark.parametrize("value", [None, True, 1.5, b"bytes", {"a": 1}])
def test_a_value_it_cannot_stand_in_for_is_refused(value):
    query = PreparedQuery(lambda v: Chat.objects.filter(name=v))
    with pytest.raises(TypeError, match="str and int"):
        query(value)
    assert query("a name") == []  # once prepared, the same value is refused again
    with pytest.raises(TypeError, match="str and int"):
        query(value)
