"""Search and the top bar at 100,000 messages (bench/search.py):

- SQLite's FTS5 table gets the account as an indexed token (`owner`, "u<id>"), so a search
  intersects the word's hits with the account's inside the index instead of reading every
  account's hits back from the messages table (contentless: it keeps only the index; the
  triggers hand it the old values to delete);
- both backends get an index for what every page counts (messages held for the person) and
  one for the messages addressed to the person (the page's notifications)."""

from importlib import import_module

from django.db import migrations

BOTH = [
    "CREATE INDEX IF NOT EXISTS peermsg_user_state ON peers_peermessage (user_id, state, reason)",
    "CREATE INDEX IF NOT EXISTS peermsg_to_person ON peers_peermessage (user_id, created_at) "
    "WHERE to_chat_id IS NULL",
]
BOTH_UNDO = [
    "DROP INDEX IF EXISTS peermsg_user_state",
    "DROP INDEX IF EXISTS peermsg_to_person",
]
OLD_TRIGGERS = ["peermsg_fts_insert", "peermsg_fts_delete", "peermsg_fts_update"]
ROW = "(rowid, text, owner) VALUES ({0}.rowid, {0}.text, 'u' || {0}.user_id)"
DELETE = (
    "INSERT INTO peers_peermessage_fts(peers_peermessage_fts, rowid, text, owner) "
    "VALUES ('delete', old.rowid, old.text, 'u' || old.user_id)"
)
SQLITE = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in OLD_TRIGGERS),
    "DROP TABLE IF EXISTS peers_peermessage_fts",
    "CREATE VIRTUAL TABLE peers_peermessage_fts USING fts5(text, owner, content='', "
    "tokenize='unicode61')",
    "CREATE TRIGGER peermsg_fts_insert AFTER INSERT ON peers_peermessage BEGIN "
    f"INSERT INTO peers_peermessage_fts{ROW.format('new')}; END",
    f"CREATE TRIGGER peermsg_fts_delete AFTER DELETE ON peers_peermessage BEGIN {DELETE}; END",
    "CREATE TRIGGER peermsg_fts_update AFTER UPDATE OF text ON peers_peermessage BEGIN "
    f"{DELETE}; INSERT INTO peers_peermessage_fts{ROW.format('new')}; END",
    "INSERT INTO peers_peermessage_fts(rowid, text, owner) "
    "SELECT rowid, text, 'u' || user_id FROM peers_peermessage",
]
# Back to 0007's table: external content, the account unindexed.
SQLITE_UNDO = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in OLD_TRIGGERS),
    "DROP TABLE IF EXISTS peers_peermessage_fts",
]


def run(undo: bool):
    def apply(apps, schema_editor) -> None:
        statements = BOTH_UNDO if undo else BOTH
        if schema_editor.connection.vendor == "sqlite":
            statements = statements + (SQLITE_UNDO if undo else SQLITE)
        for statement in statements:
            schema_editor.execute(statement)
        if undo and schema_editor.connection.vendor == "sqlite":
            for statement in import_module("peers.migrations.0007_message_search").SQLITE:
                schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("peers", "0007_message_search")]

    operations = [migrations.RunPython(run(undo=False), run(undo=True), elidable=False)]
