"""Full-text search over the account's messages, best match first: PostgreSQL's
to_tsvector over a GIN index, SQLite's FTS5 table (both made by migration 0005).

Words are matched whole (every word must be in the text; the last may be a prefix on
SQLite); the person's words are data, never query syntax."""

import re

from django.db import connection
from django.db.models import BooleanField, FloatField, QuerySet
from django.db.models.expressions import RawSQL

WORD = re.compile(r"\w+", re.UNICODE)
MAX_WORDS = 12


def words_of(query: str) -> list[str]:
    return WORD.findall(query)[:MAX_WORDS]


def search(messages: QuerySet, query: str) -> QuerySet:
    """`messages` narrowed to those whose text has every word, ordered best first."""
    words = words_of(query)
    if not words:
        return messages.none()
    if connection.vendor == "postgresql":
        return postgres(messages, words)
    return sqlite(messages, words)


# Fixed SQL; the person's words go in only as bound parameters (S611 is about the text).
PG_VECTOR = "to_tsvector('simple', peers_peermessage.text)"  # the index's own expression
PG_MATCH = PG_VECTOR + " @@ to_tsquery('simple', %s)"
PG_RANK = "ts_rank(" + PG_VECTOR + ", to_tsquery('simple', %s))"
LITE_MATCH = (
    "peers_peermessage.rowid IN (SELECT rowid FROM peers_peermessage_fts "
    "WHERE peers_peermessage_fts MATCH %s)"
)
# bm25: lower is better; looked up by rowid, only for the rows that matched.
LITE_RANK = (
    "(SELECT bm25(peers_peermessage_fts) FROM peers_peermessage_fts "
    "WHERE peers_peermessage_fts MATCH %s AND rowid = peers_peermessage.rowid)"
)


def postgres(messages: QuerySet, words: list[str]) -> QuerySet:
    last = len(words) - 1
    terms = " & ".join(f"{word}:*" if i == last else word for i, word in enumerate(words))
    matches = RawSQL(PG_MATCH, [terms], output_field=BooleanField())  # noqa: S611
    rank = RawSQL(PG_RANK, [terms], output_field=FloatField())  # noqa: S611
    return messages.filter(matches).annotate(rank=rank).order_by("-rank", "-created_at")


def sqlite(messages: QuerySet, words: list[str]) -> QuerySet:
    quoted = ['"' + word.replace('"', '""') + '"' for word in words]
    match = " ".join(quoted) + "*"
    matches = RawSQL(LITE_MATCH, [match], output_field=BooleanField())  # noqa: S611
    rank = RawSQL(LITE_RANK, [match], output_field=FloatField())  # noqa: S611
    return messages.filter(matches).annotate(rank=rank).order_by("rank", "-created_at")
