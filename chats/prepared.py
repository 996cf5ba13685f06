"""Hot queries whose SQL is compiled once per process (a send's key lookup and locks).

The ORM builds and compiles a query each time it runs. For a SELECT of a chat with
its user that is about 1 ms of CPU on a slow core, five times its round trip to
PostgreSQL, and a send runs two such queries. A PreparedQuery compiles its query
the first time it runs with a given shape (how many values each list holds) and
keeps the SQL; each later run binds the new values into the saved parameters and
lets the ORM run it and read the rows as always: its converters, select_related,
FOR UPDATE (refused outside a transaction, as the ORM refuses it).

It compiles the query built from stand-in values, so it knows which parameter each
value fills; a value the SQL does not carry as a parameter (a lookup that folds it
into the SQL text) is refused when the query is first prepared, not bound wrongly."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db.models import Model, QuerySet
from django.db.models.sql import Query
from django.db.transaction import TransactionManagementError


@dataclass(frozen=True, slots=True)
class Compiled:
    queryset: QuerySet  # built from the stand-ins; cloned, never run
    sql: str
    params: tuple
    slots: tuple  # for each parameter: the index of the value it takes, or None
    select: list
    klass_info: dict | None
    annotation_col_map: dict | None
    col_count: int
    has_extra_select: bool


# Shapes kept per query: a caller passing lists of many lengths gets the ORM's own
# compile for the ones past this, not a cache that grows with them.
MAX_SHAPES = 16


class PreparedQuery:
    """`PreparedQuery(lambda digest: Chat.objects.filter(agent_key_digest=digest))`; call
    it with the values (str, int, or lists of them) to get the rows as a list."""

    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self.build = build
        self.compiled: dict[tuple, Compiled] = {}

    def __call__(self, *values) -> list[Model]:
        shape = tuple(len(value) if is_list(value) else None for value in values)
        compiled = self.compiled.get(shape)
        if compiled is None:
            if len(self.compiled) >= MAX_SHAPES:
                return list(self.build(*values))
            compiled = self.compiled[shape] = compile_once(self.build, values)
        flat = [item for value in values for item in as_list(value)]
        if not all(type(item) in (str, int) for item in flat):
            raise TypeError(f"a prepared query takes str and int values, not {values!r}")
        params = tuple(
            p if slot is None else flat[slot]
            for p, slot in zip(compiled.params, compiled.slots, strict=True)
        )
        query = compiled.queryset.query.chain(klass=BoundQuery)
        query.bound = (compiled, params)
        run = compiled.queryset._chain()
        run.query = query
        return list(run)


def is_list(value) -> bool:
    return isinstance(value, list | tuple)


def as_list(value) -> Sequence:
    return value if is_list(value) else [value]


def stand_ins(values: tuple) -> tuple[tuple, list]:
    """Values of the same types and shape that no real query carries."""
    made = []

    def stand_in(value):
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise TypeError(f"a prepared query takes str and int values, not {value!r}")
        n = len(made)
        made.append(-(2**62) - n if isinstance(value, int) else f"\x00stand-in-{n}\x00")
        return made[-1]

    shaped = tuple(
        [stand_in(v) for v in value] if is_list(value) else stand_in(value) for value in values
    )
    return shaped, made


def compile_once(build: Callable[..., QuerySet], values: tuple) -> Compiled:
    shaped, made = stand_ins(values)
    queryset = build(*shaped)
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    index = {value: i for i, value in enumerate(made)}
    slots = tuple(index.get(p) if isinstance(p, int | str) else None for p in params)
    if {slot for slot in slots if slot is not None} != set(range(len(made))):
        raise ValueError("each value of a prepared query must reach its SQL as a parameter")
    return Compiled(
        queryset,
        sql,
        tuple(params),
        slots,
        compiler.select,
        compiler.klass_info,
        compiler.annotation_col_map,
        compiler.col_count,
        compiler.has_extra_select,
    )


class BoundQuery(Query):
    """A prepared query's Query for one run: its compiler answers with the saved SQL
    and the bound values instead of compiling."""

    bound: tuple[Compiled, tuple]

    def get_compiler(self, using=None, connection=None, elide_empty=True):
        compiler = super().get_compiler(using, connection, elide_empty)
        compiled, params = self.bound
        compiler.select = compiled.select
        compiler.klass_info = compiled.klass_info
        compiler.annotation_col_map = compiled.annotation_col_map
        compiler.col_count = compiled.col_count
        compiler.has_extra_select = compiled.has_extra_select

        def as_sql(with_limits=True, with_col_aliases=False):
            features = compiler.connection.features
            locks = self.select_for_update and features.has_select_for_update
            if locks and features.supports_transactions and compiler.connection.get_autocommit():
                raise TransactionManagementError(  # as the ORM's own compiler refuses it
                    "select_for_update cannot be used outside of a transaction."
                )
            return compiled.sql, params

        compiler.as_sql = as_sql
        return compiler
