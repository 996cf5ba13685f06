"""Search over everything said in the account's chats: prompts, answers and peer messages
(the conversations' entries), stemmed as English, newest first, the words found marked.

PostgreSQL matches the entries' `said_vector` (GIN, chats migration 0011) with
websearch_to_tsquery and the entry's tags; SQLite matches the FTS5 table
`chats_entry_fts` (porter tokenizer; the account, chat, kind and place as tokens). Each
is one indexed match read newest first with a LIMIT, giving the page's ids and the
count (which stops at CAP); then only the page's rows get their words marked (SQLite's
snippet(); PostgreSQL stems the page's words with ts_lexize and marks them here).

A peer message between two chats is said once: its sender's side (peer_out) stands for
it unless a chat is asked for; an answer repeated inside a message's card is that message."""

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.db import connection
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from chats.markdown import MARK_END, MARK_START, render_marked, unmarked
from chats.models import Entry
from chats.selectors import access_chat
from chats.serializers import iso
from kernel.refusals import Refusal

WORD = re.compile(r"\w+", re.UNICODE)
MAX_WORDS = 12
MAX_QUERY = 500
CAP = 100  # matches counted at most: "100+" beyond
MOST_READ = 2000  # ids one search reads at most, however deep its page
EXCERPT = 300  # characters of a long text shown around the words found
KINDS = {
    "prompt": [Entry.Kind.PROMPT],
    "answer": [Entry.Kind.ANSWER],
    "message": [Entry.Kind.PEER_IN, Entry.Kind.PEER_OUT],
}
KIND_OF = {kind: name for name, kinds in KINDS.items() for kind in kinds}

# Fixed SQL; the person's words go in only as bound parameters (S611 is about the text).
PG_QUERY = "websearch_to_tsquery('english', %s)"
# The words (none left once stopwords go: nothing found) and the tags, one match.
PG_MATCH = f"numnode({PG_QUERY}) > 0 AND chats_entry.said_vector @@ ({PG_QUERY} && %s::tsquery)"
# Of the page's words, those that stem as one of the query's (ts_headline would drop
# anything shaped like a tag, `Vec<String>` included, so PostgreSQL only stems here).
PG_STEMMED = (
    "SELECT w FROM unnest(%s::text[]) AS w WHERE ts_lexize('english_stem', lower(w)) "
    "&& tsvector_to_array(to_tsvector('english', %s))"
)
# The hits newest first (FTS5 reads its index in rowid order and stops at the LIMIT);
# a date range joins the entries for their created_at.
LITE_HITS = (
    "SELECT chats_entry_fts.rowid FROM chats_entry_fts{join} "
    "WHERE chats_entry_fts MATCH %s{where} ORDER BY chats_entry_fts.rowid DESC LIMIT %s"
)
# The page's hits are consecutive in rowid order: a rowid range (which FTS5 seeks) holds
# exactly them, so snippet() runs on the page only, never on every hit.
LITE_SNIPPETS = (
    "SELECT rowid, snippet(chats_entry_fts, 0, '\ue000', '\ue001', '…', 48) "
    "FROM chats_entry_fts WHERE chats_entry_fts MATCH %s AND rowid BETWEEN %s AND %s"
)


@dataclass(frozen=True)
class Found:
    entry: Entry
    marked: str  # the text found, its words between MARK_START and MARK_END

    @property
    def kind(self) -> str:
        return KIND_OF[self.entry.kind]

    @property
    def html(self) -> str:
        """The excerpt as the chat shows it (Markdown, sanitised) with <mark>s."""
        return render_marked(self.marked)


@dataclass(frozen=True)
class Results:
    found: list[Found]
    count: int  # at most CAP
    more: bool  # more than CAP matched


def words_of(query: str) -> list[str]:
    """The query's words: data, never query syntax (`or` would be an operator)."""
    return [w for w in WORD.findall(query) if w.lower() != "or"][:MAX_WORDS]


def checked_words(spec) -> list[str]:
    query = spec.query.strip()
    if "\x00" in query or len(query) > MAX_QUERY:
        raise Refusal("invalid_input", f"query: up to {MAX_QUERY} characters, no NUL.")
    words = words_of(query)
    if not words:
        raise Refusal("invalid_input", "query: give at least one word to find.")
    return words


def day(value: str, field: str) -> datetime:
    try:
        return datetime.combine(date.fromisoformat(value), datetime.min.time(), tzinfo=UTC)
    except ValueError:
        raise Refusal("invalid_input", f"{field}: a day, YYYY-MM-DD.") from None


def days(spec) -> list[tuple[str, datetime]]:
    """The spec's days as bounds on created_at: (">=", start of since), ("<", end of until)."""
    bounds = [(">=", day(spec.since, "since"))] if spec.since else []
    if spec.until:
        bounds.append(("<", day(spec.until, "until") + timedelta(days=1)))
    return bounds


def search_said(user, spec, *, limit: int, offset: int) -> Results:
    """One page of what the account said with the spec's words, newest first (the last
    written first); another account's chat is no_chat, exactly as one that does not exist.

    One statement reads the hits' ids up to the page's end or CAP + 1, whichever is more:
    the page, and the capped count, at once."""
    words = checked_words(spec)
    chat = access_chat(user, spec.chat) if spec.chat is not None else None
    read = pg_ids if connection.vendor == "postgresql" else lite_ids
    limit = min(limit, 100)
    # A deep offset reads at most MOST_READ ids (pages past it are empty), not all of them.
    ids, terms = read(user, chat, spec, words, min(max(offset + limit, CAP + 1), MOST_READ))
    page = ids[offset : offset + limit]
    return Results(marked_rows(page, terms), min(len(ids), CAP), len(ids) > CAP)


def tags_of(user, chat, spec) -> tuple[list[str], list[str]]:
    """The tags (chats migration 0011) every hit has, and those of which it has one: the
    account; the chat and "shown", or the whole account's "said"; the kind's."""
    needed = [f"u{int(user.pk)}"]
    needed += [f"c{chat.pk.replace('_', '')}", "shown"] if chat is not None else ["said"]
    kinds = [f"k{kind.replace('_', '')}" for kind in KINDS[spec.kind]] if spec.kind else []
    return needed, kinds


def pg_hits(user, chat, spec, words: list[str]) -> tuple[QuerySet, str]:
    """PostgreSQL: the entries with the words and the tags (one GIN-indexed match), in the
    spec's days; and the words as the database matches them."""
    needed, kinds = tags_of(user, chat, spec)
    tags = " & ".join(f"'#{tag}'" for tag in needed)
    if kinds:
        tags += " & (" + " | ".join(f"'#{tag}'" for tag in kinds) + ")"
    terms = " ".join(words)
    match = RawSQL(PG_MATCH, [terms, terms, tags], output_field=BooleanField())  # noqa: S611
    entries = Entry.objects.filter(match)
    for op, moment in days(spec):
        entries = entries.filter(**{"created_at__gte" if op == ">=" else "created_at__lt": moment})
    return entries, terms


def pg_ids(user, chat, spec, words, most: int) -> tuple[list[int], str]:
    hits, terms = pg_hits(user, chat, spec, words)
    return list(hits.order_by("-id").values_list("pk", flat=True)[:most]), terms


def lite_terms(user, chat, spec, words: list[str]) -> str:
    """SQLite: one MATCH of the tags and the words (each quoted: data, never syntax)."""
    needed, kinds = tags_of(user, chat, spec)
    tags = [f'"{tag}"' for tag in needed[1:]]
    if kinds:
        tags.append("(" + " OR ".join(kinds) + ")")
    quoted = " ".join('"' + word.replace('"', '""') + '"' for word in words)
    return f'owner : "{needed[0]}" AND tags : ({" AND ".join(tags)}) AND text : ({quoted})'


def lite_ids(user, chat, spec, words, most: int) -> tuple[list[int], str]:
    terms = lite_terms(user, chat, spec, words)
    bounds = days(spec)
    join = " JOIN chats_entry ON chats_entry.id = chats_entry_fts.rowid" if bounds else ""
    where = "".join(f" AND chats_entry.created_at {op} %s" for op, _ in bounds)
    moments = [connection.ops.adapt_datetimefield_value(moment) for _, moment in bounds]
    with connection.cursor() as cursor:
        cursor.execute(LITE_HITS.format(join=join, where=where), [terms, *moments, most])
        return [row[0] for row in cursor.fetchall()], terms


def marked_rows(ids: list[int], terms: str) -> list[Found]:
    """The page's entries, in `ids`' order, each with its excerpt's words marked."""
    if not ids:
        return []
    entries = Entry.objects.filter(pk__in=ids).select_related("chat")
    if connection.vendor == "postgresql":
        entries = list(entries)
        found = stemmed_words({w for e in entries for w in WORD.findall(e.text)}, terms)
        by_id = {entry.pk: Found(entry, excerpt(entry.text, found)) for entry in entries}
    else:
        snippets = lite_snippets(ids, terms)
        by_id = {entry.pk: Found(entry, snippets.get(entry.pk, entry.text)) for entry in entries}
    return [by_id[pk] for pk in ids if pk in by_id]


def stemmed_words(words: set[str], terms: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(PG_STEMMED, [sorted(words), terms])
        return {row[0] for row in cursor.fetchall()}


def excerpt(text: str, found: set[str]) -> str:
    """About EXCERPT characters of `text` around its first word found, whole words, each
    word found between MARK_START and MARK_END (SQLite's snippet() does the same)."""
    hits = [m for m in WORD.finditer(text) if m.group() in found]
    start = 0
    if len(text) > EXCERPT and hits:
        start = max(0, hits[0].start() - EXCERPT // 4)
        start = text.find(" ", start) + 1 if start else 0
    end = min(len(text), start + EXCERPT)
    if end < len(text):
        end = max(text.rfind(" ", start, end), hits[0].end() if hits else end)
    out, at = [], start
    for m in hits:
        if start <= m.start() and m.end() <= end:
            out += [text[at : m.start()], MARK_START, m.group(), MARK_END]
            at = m.end()
    out.append(text[at:end])
    return ("…" if start else "") + "".join(out) + ("…" if end < len(text) else "")


def lite_snippets(ids: list[int], terms: str) -> dict[int, str]:
    with connection.cursor() as cursor:
        cursor.execute(LITE_SNIPPETS, [terms, min(ids), max(ids)])
        return dict(cursor.fetchall())


def found_json(found: Found) -> dict:
    entry = found.entry
    return {
        "id": entry.pk,
        "kind": found.kind,
        "chat": entry.chat_id,
        "chat_name": entry.chat.name,
        "message": entry.message_id or None,
        "text": unmarked(found.marked),
        "html": found.html,
        "created_at": iso(entry.created_at),
    }


def results_json(results: Results) -> dict:
    return {
        "items": [found_json(found) for found in results.found],
        "count": results.count,
        "more": results.more,
    }


__all__ = ["MARK_END", "MARK_START", "Results", "results_json", "search_said"]
