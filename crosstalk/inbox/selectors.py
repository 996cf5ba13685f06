"""The account's inbox items: a page of them, one item, and the count the top bar shows
(one query). An item is {"id", "kind", "chat", "message", "text", "created_at", "done"};
its id is "<kind>:<the id of what it is about>", stable across reads."""

import re
from dataclasses import dataclass
from heapq import merge

from django.contrib.auth import get_user_model
from django.db.models import CharField, Count, Exists, OuterRef, Subquery, Value
from django.db.models.functions import Cast, Coalesce, Concat

from chats.models import Chat
from chats.serializers import iso
from crosstalk.inbox.kinds import BY_NAME, KINDS, Kind
from crosstalk.models import InboxDone

ITEM_ID = re.compile(r"([a-z_]{1,30}):([A-Za-z0-9_-]{1,40})")


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    kind: Kind
    chat: Chat | None
    message: str | None
    text: str
    created_at: object
    done: bool

    def as_json(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind.name,
            "chat": self.chat.pk if self.chat else None,
            "message": self.message,
            "text": self.text,
            "created_at": iso(self.created_at),
            "done": self.done,
        }


def with_done(kind: Kind, user):
    """The kind's rows for the account, each with `done` (marked done by the person)."""
    item = Concat(Value(f"{kind.name}:"), Cast(OuterRef("pk"), CharField()))
    marked = InboxDone.objects.filter(user=user, item=item)
    return kind.rows(user).annotate(done=Exists(marked))


def kind_rows(kind: Kind, user, *, done: bool):
    rows = with_done(kind, user)
    return rows if done else rows.filter(done=False)


def as_item(kind: Kind, row) -> Item:
    return Item(
        id=f"{kind.name}:{row.pk}",
        kind=kind,
        chat=kind.chat(row),
        message=kind.message(row),
        text=kind.text(row),
        created_at=row.at,
        done=row.done,
    )


def inbox_items(user, *, limit: int, offset: int, done: bool = False) -> list[Item]:
    """Newest first across kinds; with `done`, the items marked done too."""
    wanted = offset + limit
    per_kind = [
        [as_item(kind, row) for row in kind_rows(kind, user, done=done).order_by("-at")[:wanted]]
        for kind in KINDS
    ]
    newest_first = merge(*per_kind, key=lambda item: (item.created_at, item.id), reverse=True)
    return list(newest_first)[offset:wanted]


def inbox_count(user, *, done: bool = False) -> int:
    """How many items wait (with `done`, all of them), in one query of one scalar
    subquery a kind."""
    counts = {
        kind.name: Coalesce(Subquery(count_of(kind_rows(kind, user, done=done))), 0)
        for kind in KINDS
    }
    row = get_user_model().objects.filter(pk=user.pk).values(**counts).first()
    return sum(row.values()) if row else 0


def count_of(rows):
    """COUNT(*) of a queryset as a subquery (grouped by nothing)."""
    return rows.order_by().annotate(one=Value(1)).values("one").annotate(n=Count("*")).values("n")


def find_items(user, item_ids: list[str]) -> list[str]:
    """The ids among `item_ids` that are items of this account (done or not): one
    query a kind named."""
    wanted: dict[str, dict[str, str]] = {}
    for item_id in dict.fromkeys(item_ids):
        match = ITEM_ID.fullmatch(item_id) if isinstance(item_id, str) else None
        if match and match.group(1) in BY_NAME:
            wanted.setdefault(match.group(1), {})[match.group(2)] = item_id
    found = []
    for name, by_key in wanted.items():
        rows = BY_NAME[name].rows(user).annotate(key=Cast("pk", CharField()))
        keys = rows.filter(key__in=list(by_key)).values_list("key", flat=True)
        found += [by_key[key] for key in keys]
    return found
