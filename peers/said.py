"""Search over everything said in the account's chats: prompts, answers and peer messages
(the conversations' entries), stemmed as English, newest first, the words found marked.

PostgreSQL matches the entries' stored `said_vector` (GIN, chats migration 0011) with
websearch_to_tsquery; SQLite matches the FTS5 table `chats_entry_fts` (porter tokenizer,
the account an indexed token). Both find the page's ids first (LIMIT in the database),
then mark the words of those rows only (snippet(); PostgreSQL stems the page's words
with ts_lexize); the count stops at CAP.

A peer message between two chats is said once: its sender's side (peer_out) stands for
it unless a chat is asked for; an answer repeated inside a message's card is that message."""

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.db import connection
from django.db.models import BooleanField, Exists, OuterRef, Q, QuerySet
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
EXCERPT = 300  # characters of a long text shown around the words found
KINDS = {
    "prompt": [Entry.Kind.PROMPT],
    "answer": [Entry.Kind.ANSWER],
    "message": [Entry.Kind.PEER_IN, Entry.Kind.PEER_OUT],
}
KIND_OF = {kind: name for name, kinds in KINDS.items() for kind in kinds}

# Fixed SQL; the person's words go in only as bound parameters (S611 is about the text).
PG_QUERY = "websearch_to_tsquery('english', %s)"
PG_MATCH = "chats_entry.said_vector @@ " + PG_QUERY
# Of the page's words, those that stem as one of the query's (ts_headline would drop
# anything shaped like a tag, `Vec<String>` included, so PostgreSQL only stems here).
PG_STEMMED = (
    "SELECT w FROM unnest(%s::text[]) AS w WHERE ts_lexize('english_stem', lower(w)) "
    "&& tsvector_to_array(to_tsvector('english', %s))"
)
LITE_MATCH = "chats_entry.id IN (SELECT rowid FROM chats_entry_fts WHERE chats_entry_fts MATCH %s)"
LITE_SNIPPETS = (
    "SELECT rowid, snippet(chats_entry_fts, 0, '\ue000', '\ue001', '…', 48) "
    "FROM chats_entry_fts WHERE chats_entry_fts MATCH %s AND rowid IN ({})"
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


def narrowed(entries: QuerySet, user, spec) -> QuerySet:
    """The account's said entries the spec's chat, kind and days keep (no_chat for a
    chat not the account's, exactly as for one that does not exist)."""
    if spec.chat is not None:
        entries = entries.filter(chat=access_chat(user, spec.chat))
    else:
        entries = entries.filter(chat__user=user).exclude(
            Q(kind=Entry.Kind.PEER_IN)
            & Q(Exists(Entry.objects.filter(message_id=OuterRef("message_id"), kind="peer_out")))
        )
    entries = entries.filter(kind__in=KINDS[spec.kind] if spec.kind else list(KIND_OF))
    entries = entries.exclude(Q(kind=Entry.Kind.ANSWER) & ~Q(message_id=""))
    if spec.since:
        entries = entries.filter(created_at__gte=day(spec.since, "since"))
    if spec.until:
        entries = entries.filter(created_at__lt=day(spec.until, "until") + timedelta(days=1))
    return entries


def search_said(user, spec, *, limit: int, offset: int) -> Results:
    """One page of what the account said with the spec's words, newest first."""
    words = checked_words(spec)
    limit = min(limit, 100)
    if connection.vendor == "postgresql":
        terms = " ".join(words)
        match = RawSQL(PG_MATCH, [terms], output_field=BooleanField())  # noqa: S611
    else:
        terms = lite_match(words, user.pk)
        match = RawSQL(LITE_MATCH, [terms], output_field=BooleanField())  # noqa: S611
    hits = narrowed(Entry.objects.filter(match), user, spec)
    ids = list(hits.order_by("-created_at", "-id").values_list("pk", flat=True)[offset:][:limit])
    count = hits.values("pk")[: CAP + 1].count()
    return Results(marked_rows(ids, terms), min(count, CAP), count > CAP)


def lite_match(words: list[str], user_id: int) -> str:
    quoted = " ".join('"' + word.replace('"', '""') + '"' for word in words)
    return f'owner : "u{int(user_id)}" AND text : ({quoted})'


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
    marks = ", ".join("%s" for _ in ids)
    with connection.cursor() as cursor:
        cursor.execute(LITE_SNIPPETS.format(marks), [terms, *ids])
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
