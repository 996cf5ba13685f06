"""New rows of several tables in one round trip to the database.

A send writes its message, its two conversation entries, its activity row and adds
one to its counters' rows; on PostgreSQL they go as one statement (data-modifying
WITH clauses; the foreign keys are checked at commit), elsewhere one statement per
table. No ids are read back and no signals are sent, as with bulk_create."""

from django.db import connection
from django.db.models import AutoField, Model
from django.db.models.sql import InsertQuery


def insert_all(*groups: list[Model], then: tuple[str, list] | None = None) -> None:
    """INSERT each group (rows of one model), in this order, then run `then` (one more
    data-modifying statement and its parameters: an upsert)."""
    statements = [insert_sql(rows) for rows in groups if rows]
    if then is not None:
        statements.append(then)
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            for sql, params in statements:
                cursor.execute(sql, params)
            return
        *first, (last_sql, last_params) = statements
        heads = [f"w{i} AS ({sql})" for i, (sql, _) in enumerate(first)]
        params = [p for _, ps in first for p in ps] + list(last_params)
        sql = f"WITH {', '.join(heads)} {last_sql}" if heads else last_sql
        cursor.execute(sql, params)


def insert_sql(rows: list[Model]) -> tuple[str, tuple]:
    meta = rows[0]._meta
    fields = [f for f in meta.concrete_fields if not f.generated and not isinstance(f, AutoField)]
    query = InsertQuery(type(rows[0]))
    query.insert_values(fields, rows)
    (statement,) = query.get_compiler(connection=connection).as_sql()
    return statement
