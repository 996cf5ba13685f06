"""Search over everything said (peers.said): prompts, answers and peer messages of a
conversation, stemmed as English.

- PostgreSQL: a stored tsvector of each said entry (`english`), NULL for notices and tool
  steps, indexed by GIN; the model does not name the column, only peers.said reads it.
- SQLite: an FTS5 table with the porter tokenizer holding the text and the account as a
  token (`owner`, "u<id>"), kept in step by triggers; it keeps its own copy of the text,
  so snippet() can mark the words found."""

from django.db import migrations

SAID = "('prompt', 'answer', 'peer_in', 'peer_out')"

POSTGRES = [
    "ALTER TABLE chats_entry ADD COLUMN IF NOT EXISTS said_vector tsvector "
    f"GENERATED ALWAYS AS (CASE WHEN kind IN {SAID} THEN to_tsvector('english', text) END) "
    "STORED",
    "CREATE INDEX IF NOT EXISTS entry_said_vector ON chats_entry USING GIN (said_vector)",
]
POSTGRES_UNDO = [
    "DROP INDEX IF EXISTS entry_said_vector",
    "ALTER TABLE chats_entry DROP COLUMN IF EXISTS said_vector",
]

# The entry's row, with its account as a token, when it is something said.
INSERT = (
    "INSERT INTO chats_entry_fts(rowid, text, owner) SELECT new.id, new.text, 'u' || user_id "
    f"FROM chats_chat WHERE id = new.chat_id AND new.kind IN {SAID}"
)
SQLITE = [
    "CREATE VIRTUAL TABLE chats_entry_fts USING fts5(text, owner, "
    "tokenize='porter unicode61 remove_diacritics 2')",
    f"CREATE TRIGGER entry_fts_insert AFTER INSERT ON chats_entry BEGIN {INSERT}; END",
    "CREATE TRIGGER entry_fts_delete AFTER DELETE ON chats_entry BEGIN "
    "DELETE FROM chats_entry_fts WHERE rowid = old.id; END",
    "CREATE TRIGGER entry_fts_update AFTER UPDATE OF text, kind ON chats_entry BEGIN "
    f"DELETE FROM chats_entry_fts WHERE rowid = old.id; {INSERT}; END",
    "INSERT INTO chats_entry_fts(rowid, text, owner) SELECT e.id, e.text, 'u' || c.user_id "
    f"FROM chats_entry e JOIN chats_chat c ON c.id = e.chat_id WHERE e.kind IN {SAID}",
]
SQLITE_UNDO = [
    *(
        f"DROP TRIGGER IF EXISTS entry_fts_{name}"
        for name in ("insert", "delete", "update")
    ),
    "DROP TABLE IF EXISTS chats_entry_fts",
]
BY_VENDOR = {"postgresql": (POSTGRES, POSTGRES_UNDO), "sqlite": (SQLITE, SQLITE_UNDO)}


def run(undo: bool):
    def apply(apps, schema_editor) -> None:
        for statement in BY_VENDOR.get(schema_editor.connection.vendor, ([], []))[undo]:
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("chats", "0010_idempotent_answer_to_kernel")]

    operations = [migrations.RunPython(run(undo=False), run(undo=True), elidable=False)]
