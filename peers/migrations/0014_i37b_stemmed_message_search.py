"""The Messages page's search (peers.search) stemmed as English, like the search over
everything said (chats migration 0011): `ports` finds "port". PostgreSQL's stored vector
is made again with the `english` configuration; SQLite's FTS5 table again with the
porter tokenizer (0008's table, triggers and rows otherwise)."""

from importlib import import_module

from django.db import migrations


def postgres(config: str) -> list[str]:
    return [
        "DROP INDEX IF EXISTS peermsg_text_vector",
        "ALTER TABLE peers_peermessage DROP COLUMN IF EXISTS text_vector",
        "ALTER TABLE peers_peermessage ADD COLUMN text_vector tsvector "
        f"GENERATED ALWAYS AS (to_tsvector('{config}', text)) STORED",
        "CREATE INDEX peermsg_text_vector ON peers_peermessage USING GIN (text_vector)",
    ]


def sqlite(tokenizer: str) -> list[str]:
    earlier = import_module("peers.migrations.0008_search_by_account")
    # 0008's SQLITE also makes its two indexes of both backends: IF NOT EXISTS, harmless.
    return [
        statement.replace("tokenize='unicode61'", f"tokenize='{tokenizer}'")
        for statement in earlier.SQLITE
    ]


def run(undo: bool):
    def apply(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor == "postgresql":
            statements = postgres("simple" if undo else "english")
        elif vendor == "sqlite":
            statements = sqlite("unicode61" if undo else "porter unicode61")
        else:
            statements = []
        for statement in statements:
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("peers", "0013_merge_i36a_i36b")]

    operations = [migrations.RunPython(run(undo=False), run(undo=True), elidable=False)]
