"""Hand-written SQL for the few statements every request runs, and their rows read as
the ORM reads them.

Building and compiling a queryset costs more CPU than its round trip to PostgreSQL
(a chat with its user: about 1 ms on a slow core), and every agent request looks its
chat up by key and every send locks its chats. Those statements are written out as SQL
in the modules that own them; this module runs them and reads their rows. Values go as
parameters only, never into the SQL text: a statement's text depends on nothing but how
many values an IN list holds, so PostgreSQL prepares it once it repeats."""

from collections.abc import Callable, Sequence
from functools import cache

from django.conf import settings
from django.db import connection
from django.db.models import Model
from django.utils import timezone
from django.utils.dateparse import parse_datetime

# The fields `read` knows how to read (Field.get_internal_type()); any other (JSON,
# decimals, a field with its own from_db_value) is refused, not read wrongly.
PLAIN_FIELDS = {
    "AutoField",
    "BigAutoField",
    "BigIntegerField",
    "CharField",
    "FloatField",
    "IntegerField",
    "PositiveIntegerField",
    "SmallIntegerField",
    "TextField",
}
CONVERTED_FIELDS = {"BooleanField", "DateTimeField"}


def fetch(sql: str, params: Sequence[str | int]) -> list[tuple]:
    """The statement's rows. Values are str or int; a NUL is refused here, before any
    SQL, on both backends (PostgreSQL would refuse it only once sent; SQLite would
    store and compare it)."""
    for value in params:
        if type(value) not in (str, int):
            raise TypeError(f"a hand-written statement takes str and int values, not {value!r}")
        if type(value) is str and "\x00" in value:
            raise ValueError("a value of a hand-written statement may not contain NUL")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def placeholders(values: Sequence) -> str:
    """`%s, %s` for `IN (…)` with these values. `IN ()` is no SQL: the caller answers an
    empty list without a statement."""
    if not values:
        raise ValueError("an empty IN list: answer it without running a statement")
    return ", ".join(["%s"] * len(values))


def columns(model: type[Model]) -> str:
    """The model's columns, each with its table, in the order `read` takes them. The
    caller keeps the statement it builds with them per backend (a cache on vendor)."""
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    return ", ".join(f"{table}.{quote(field.column)}" for field in model._meta.concrete_fields)


def read(model: type[Model], row: Sequence, start: int = 0) -> Model:
    """An instance of `model` from its `columns` in row[start:], with the values the ORM
    would have read."""
    names, converters = reader(model, connection.vendor)
    values = row[start : start + len(names)]
    values = [value if c is None else c(value) for c, value in zip(converters, values, strict=True)]
    return model.from_db(connection.alias, names, values)


@cache
def reader(model: type[Model], vendor: str) -> tuple[list[str], list[Callable | None]]:
    fields = model._meta.concrete_fields
    return [field.attname for field in fields], [converter(field, vendor) for field in fields]


def converter(field, vendor: str) -> Callable | None:
    """What a value of this field needs after the driver: SQLite's driver hands back
    naive datetimes (or text) and may hand back 0/1 for booleans; psycopg already
    answers with aware datetimes and booleans."""
    target = getattr(field, "target_field", field)  # a foreign key reads as its target
    kind = target.get_internal_type()
    if hasattr(target, "from_db_value") or kind not in PLAIN_FIELDS | CONVERTED_FIELDS:
        raise TypeError(f"{field} ({kind}) is not read by kernel.sql: say how first")
    if vendor != "sqlite" or kind in PLAIN_FIELDS:
        return None
    return sqlite_datetime if kind == "DateTimeField" else sqlite_bool


def sqlite_datetime(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    if settings.USE_TZ and timezone.is_naive(value):
        value = timezone.make_aware(value, connection.timezone)
    return value


def sqlite_bool(value):
    return bool(value) if value in (0, 1) else value
