"""Full-text search over the account's messages, best match first: PostgreSQL's stored
tsvector column over a GIN index (migration 0009), SQLite's FTS5 table with the account
as an indexed token (migration 0008); both stemmed as English since migration 0012
(`english`, the porter tokenizer): `ports` finds "port".

Words are matched whole (every word must be in the text; the last may be a prefix);
the person's words are data, never query syntax."""

import re

from django.db import connection
from django.db.models import BooleanField, FloatField, QuerySet
from django.db.models.expressions import RawSQL

WORD = re.compile(r"\w+", re.UNICODE)
MAX_WORDS = 12


def words_of(query: str) -> list[str]:
    return WORD.findall(query)[:MAX_WORDS]


def search(messages: QuerySet, query: str, user_id: int) -> QuerySet:
    """`messages` (of that account) narrowed to those whose text has every word, best
    first. On SQLite it runs the match now; evaluate the result before searching again."""
    words = words_of(query)
    if not words:
        return messages.none()
    if connection.vendor == "postgresql":
        return postgres(messages, words)
    return sqlite(messages, words, user_id)


# Fixed SQL; the person's words go in only as bound parameters (S611 is about the text).
# The stored vector of the text (migration 0009), GIN-indexed: ranking reads it, never
# parses the text again.
PG_VECTOR = "peers_peermessage.text_vector"
PG_MATCH = PG_VECTOR + " @@ to_tsquery('english', %s)"
PG_RANK = "ts_rank(" + PG_VECTOR + ", to_tsquery('english', %s))"
# SQLite: the account's hits and their bm25 (lower is better) go into a temporary table of
# this connection, made again for each search; the query then looks each row up by rowid.
# (A correlated bm25 runs the MATCH once per row: seconds for a common word.)
LITE_HITS = [
    "DROP TABLE IF EXISTS temp.message_hits",
    "CREATE TEMP TABLE message_hits (id INTEGER PRIMARY KEY, score REAL)",
    # The account is an indexed token (migration 0008): FTS5 intersects it with the words.
    "INSERT INTO temp.message_hits SELECT rowid, bm25(peers_peermessage_fts, 1.0, 0.0) "
    "FROM peers_peermessage_fts WHERE peers_peermessage_fts MATCH %s",
]
LITE_MATCH = "peers_peermessage.rowid IN (SELECT id FROM temp.message_hits)"
LITE_RANK = "(SELECT score FROM temp.message_hits WHERE id = peers_peermessage.rowid)"


def postgres(messages: QuerySet, words: list[str]) -> QuerySet:
    last = len(words) - 1
    terms = " & ".join(f"{word}:*" if i == last else word for i, word in enumerate(words))
    matches = RawSQL(PG_MATCH, [terms], output_field=BooleanField())  # noqa: S611
    rank = RawSQL(PG_RANK, [terms], output_field=FloatField())  # noqa: S611
    return messages.filter(matches).annotate(rank=rank).order_by("-rank", "-created_at")


def sqlite(messages: QuerySet, words: list[str], user_id: int) -> QuerySet:
    quoted = ['"' + word.replace('"', '""') + '"' for word in words]
    match = f'owner : "u{int(user_id)}" AND text : (' + " ".join(quoted) + "*)"
    with connection.cursor() as cursor:
        for statement in LITE_HITS:
            cursor.execute(statement, [match] if "%s" in statement else [])
    matches = RawSQL(LITE_MATCH, [], output_field=BooleanField())  # noqa: S611
    rank = RawSQL(LITE_RANK, [], output_field=FloatField())  # noqa: S611
    return messages.filter(matches).annotate(rank=rank).order_by("rank", "-created_at")
