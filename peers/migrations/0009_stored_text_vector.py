"""PostgreSQL keeps each message's tsvector in a stored generated column, indexed by GIN:
ranking a common word's thousands of hits read the vector from the row instead of parsing
every text again (ts_rank over to_tsvector(text) was 145 ms of a 163 ms search at
100,000 messages). The model does not name the column: only peers.search reads it."""

from django.db import migrations

POSTGRES = [
    "ALTER TABLE peers_peermessage ADD COLUMN IF NOT EXISTS text_vector tsvector "
    "GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED",
    "CREATE INDEX IF NOT EXISTS peermsg_text_vector ON peers_peermessage USING GIN (text_vector)",
    "DROP INDEX IF EXISTS peermsg_text_search",
]
POSTGRES_UNDO = [
    "CREATE INDEX IF NOT EXISTS peermsg_text_search "
    "ON peers_peermessage USING GIN (to_tsvector('simple', text))",
    "DROP INDEX IF EXISTS peermsg_text_vector",
    "ALTER TABLE peers_peermessage DROP COLUMN IF EXISTS text_vector",
]


def run(undo: bool):
    def apply(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in POSTGRES_UNDO if undo else POSTGRES:
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("peers", "0008_search_by_account")]

    operations = [migrations.RunPython(run(undo=False), run(undo=True), elidable=False)]
