"""What a plain agent send asks of the database, statement by statement: the account
and the recipient locked together, every limit's counter in one query, and on
PostgreSQL every row it writes (counters included) in one statement."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from chats.actions import do_stop_chat
from peers.actions import check_send_message


def statements_of_a_plain_send(sender, recipient) -> list[str]:
    check_send_message(sender, to=recipient.pk, text="warm up")  # the limits are cached
    do_stop_chat(recipient)  # held: no wake, no turn
    with CaptureQueriesContext(connection) as queries:
        check_send_message(sender, to=recipient.pk, text="which port?")
    # The test's own transaction turns the send's BEGIN and COMMIT into savepoints.
    return [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]


def test_it_a_plain_send_runs_one_statement_per_step(sender, recipient):
    statements = statements_of_a_plain_send(sender, recipient)

    if connection.vendor == "postgresql":
        lock, counters, writes = statements
        assert "FOR NO KEY UPDATE" in lock and '"accounts_user"' in lock
        assert lock.index('"accounts_user"') < lock.rindex('FOR NO KEY UPDATE OF "chats_chat"')
        assert writes.startswith('WITH w0 AS (INSERT INTO "peers_peermessage"')
        assert '"peers_activity"' in writes and '"chats_entry"' in writes
        assert 'INSERT INTO "peers_messagecount"' in writes and "ON CONFLICT" in writes
    else:
        # SQLite: its IMMEDIATE transaction serializes writers (no lock query), and
        # its statements are calls inside the process: one INSERT per table.
        recipient_read, counters, *inserts = statements
        assert recipient_read.startswith('SELECT "chats_chat"."id"')
        tables = [sql.split()[2] for sql in inserts]
        assert tables == [
            '"peers_peermessage"',
            '"chats_entry"',
            '"peers_activity"',
            '"peers_messagecount"',
        ]
    assert counters.startswith("SELECT ((SELECT COUNT(*)")
    assert '"peers_messagecount"' in counters
