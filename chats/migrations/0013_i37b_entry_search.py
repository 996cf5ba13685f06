"""Search over everything said (peers.said): prompts, answers and peer messages of a
conversation, stemmed as English.

- PostgreSQL: a tsvector of each said entry (`english`) with its tags (below) as "#"
  lexemes, NULL for notices and tool steps, set by a trigger and indexed by GIN: a search
  is one `@@` of the words and the tags; the model does not name the column, only
  peers.said reads it.
- SQLite: an FTS5 table with the porter tokenizer holding the text, the account as a
  token (`owner`, "u<id>") and the entry's kind, chat and place as tokens (`tags`), kept
  in step by triggers: a search is one MATCH read newest first (rowid DESC) with LIMIT.
  It keeps its own copy of the text, so snippet() can mark the words found."""

from django.db import migrations

SAID = "('prompt', 'answer', 'peer_in', 'peer_out')"

# The tags (below) as lexemes starting with "#", which the english parser never makes.
PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION entry_said_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind NOT IN {SAID} THEN
    NEW.said_vector := NULL;
    RETURN NEW;
  END IF;
  NEW.said_vector := to_tsvector('english', NEW.text) || array_to_tsvector(ARRAY[
    '#u' || (SELECT user_id FROM chats_chat WHERE id = NEW.chat_id),
    '#k' || replace(NEW.kind, '_', ''),
    '#c' || replace(NEW.chat_id, '_', '')
  ] || CASE
    WHEN NEW.kind = 'answer' AND NEW.message_id <> '' THEN ARRAY[]::text[]
    WHEN NEW.kind = 'peer_in' AND EXISTS (SELECT 1 FROM chats_entry o
      WHERE o.message_id = NEW.message_id AND o.kind = 'peer_out') THEN ARRAY['#shown']
    ELSE ARRAY['#shown', '#said']
  END);
  RETURN NEW;
END $$"""
POSTGRES = [
    "ALTER TABLE chats_entry ADD COLUMN IF NOT EXISTS said_vector tsvector",
    PG_FUNCTION,
    "CREATE TRIGGER entry_said_vector BEFORE INSERT OR UPDATE OF text, kind, message_id "
    "ON chats_entry FOR EACH ROW EXECUTE FUNCTION entry_said_vector()",
    f"UPDATE chats_entry SET kind = kind WHERE kind IN {SAID}",
    "CREATE INDEX IF NOT EXISTS entry_said_vector ON chats_entry USING GIN (said_vector)",
]
POSTGRES_UNDO = [
    "DROP INDEX IF EXISTS entry_said_vector",
    "DROP TRIGGER IF EXISTS entry_said_vector ON chats_entry",
    "DROP FUNCTION IF EXISTS entry_said_vector()",
    "ALTER TABLE chats_entry DROP COLUMN IF EXISTS said_vector",
]

# The entry's tags (both backends): the account ("u" and its id), its kind ("kprompt", "kpeerin"…), its chat ("c" and the id without
# "_"), "shown" unless it is an answer repeated inside a message's card (its message_id
# set), "said" when shown and not the second side of a message between two chats (the
# sender's side, inserted first by chats.actions.message_entries, stands for it).
TAGS = (
    "'k' || replace(new.kind, '_', '') || ' c' || replace(new.chat_id, '_', '') || CASE "
    "WHEN new.kind = 'answer' AND new.message_id <> '' THEN '' "
    "WHEN new.kind = 'peer_in' AND EXISTS (SELECT 1 FROM chats_entry o "
    "WHERE o.message_id = new.message_id AND o.kind = 'peer_out') THEN ' shown' "
    "ELSE ' shown said' END"
)
# The entry's row, with its account as a token, when it is something said.
INSERT = (
    "INSERT INTO chats_entry_fts(rowid, text, owner, tags) "
    f"SELECT new.id, new.text, 'u' || user_id, {TAGS} "
    f"FROM chats_chat WHERE id = new.chat_id AND new.kind IN {SAID}"
)
SQLITE = [
    "CREATE VIRTUAL TABLE chats_entry_fts USING fts5(text, owner, tags, "
    "tokenize='porter unicode61 remove_diacritics 2')",
    f"CREATE TRIGGER entry_fts_insert AFTER INSERT ON chats_entry BEGIN {INSERT}; END",
    "CREATE TRIGGER entry_fts_delete AFTER DELETE ON chats_entry BEGIN "
    "DELETE FROM chats_entry_fts WHERE rowid = old.id; END",
    "CREATE TRIGGER entry_fts_update AFTER UPDATE OF text, kind, message_id ON chats_entry "
    f"BEGIN DELETE FROM chats_entry_fts WHERE rowid = old.id; {INSERT}; END",
    # Rows already there, in order: each message's sender's side before its other side.
    *(
        f"INSERT INTO chats_entry_fts(rowid, text, owner, tags) "
        f"SELECT new.id, new.text, 'u' || c.user_id, {TAGS} FROM chats_entry new "
        f"JOIN chats_chat c ON c.id = new.chat_id WHERE new.kind IN {kinds} ORDER BY new.id"
        for kinds in ("('prompt', 'answer', 'peer_out')", "('peer_in')")
    ),
]
SQLITE_UNDO = [
    *(f"DROP TRIGGER IF EXISTS entry_fts_{name}" for name in ("insert", "delete", "update")),
    "DROP TABLE IF EXISTS chats_entry_fts",
]
BY_VENDOR = {"postgresql": (POSTGRES, POSTGRES_UNDO), "sqlite": (SQLITE, SQLITE_UNDO)}


def run(undo: bool):
    def apply(apps, schema_editor) -> None:
        for statement in BY_VENDOR.get(schema_editor.connection.vendor, ([], []))[undo]:
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("chats", "0012_merge_i36a_i37a")]

    operations = [migrations.RunPython(run(undo=False), run(undo=True), elidable=False)]
