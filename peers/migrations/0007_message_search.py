"""Full-text search over messages' text: a GIN index on PostgreSQL, an FTS5 table kept in
step by triggers on SQLite (peers.search reads whichever the database has)."""

from django.db import migrations

POSTGRES = [
    "CREATE INDEX IF NOT EXISTS peermsg_text_search "
    "ON peers_peermessage USING GIN (to_tsvector('simple', text))",
]
POSTGRES_UNDO = ["DROP INDEX IF EXISTS peermsg_text_search"]

# External content: the FTS table keeps only the index; rowid is the message row's rowid.
SQLITE = [
    "CREATE VIRTUAL TABLE peers_peermessage_fts USING fts5(text, user_id UNINDEXED, "
    "content='peers_peermessage', content_rowid='rowid', tokenize='unicode61')",
    "CREATE TRIGGER peermsg_fts_insert AFTER INSERT ON peers_peermessage BEGIN "
    "INSERT INTO peers_peermessage_fts(rowid, text, user_id) "
    "VALUES (new.rowid, new.text, new.user_id); END",
    "CREATE TRIGGER peermsg_fts_delete AFTER DELETE ON peers_peermessage BEGIN "
    "INSERT INTO peers_peermessage_fts(peers_peermessage_fts, rowid, text, user_id) "
    "VALUES ('delete', old.rowid, old.text, old.user_id); END",
    "CREATE TRIGGER peermsg_fts_update AFTER UPDATE OF text ON peers_peermessage BEGIN "
    "INSERT INTO peers_peermessage_fts(peers_peermessage_fts, rowid, text, user_id) "
    "VALUES ('delete', old.rowid, old.text, old.user_id); "
    "INSERT INTO peers_peermessage_fts(rowid, text, user_id) "
    "VALUES (new.rowid, new.text, new.user_id); END",
    "INSERT INTO peers_peermessage_fts(peers_peermessage_fts) VALUES ('rebuild')",
]
SQLITE_UNDO = [
    "DROP TRIGGER IF EXISTS peermsg_fts_insert",
    "DROP TRIGGER IF EXISTS peermsg_fts_delete",
    "DROP TRIGGER IF EXISTS peermsg_fts_update",
    "DROP TABLE IF EXISTS peers_peermessage_fts",
]
BY_VENDOR = {"postgresql": (POSTGRES, POSTGRES_UNDO), "sqlite": (SQLITE, SQLITE_UNDO)}


def run(undo: bool):
    def apply(apps, schema_editor) -> None:
        statements = BY_VENDOR.get(schema_editor.connection.vendor, ([], []))[undo]
        for statement in statements:
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("peers", "0006_answer_refused")]

    operations = [migrations.RunPython(run(undo=False), run(undo=True), elidable=False)]
