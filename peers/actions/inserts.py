"""New rows of several tables in one round trip to the database.

A send writes its message, its two conversation entries and its activity row;
on PostgreSQL they go as one statement (data-modifying WITH clauses; the foreign
keys are checked at commit), elsewhere one INSERT per table. No ids are read
back and no signals are sent, as with bulk_create."""

from django.db import connection
from django.db.models import AutoField, Model
from django.db.models.sql import InsertQuery


def insert_all(*groups: list[Model]) -> None:
    """INSERT each group (rows of one model), in this order."""
    statements = [insert_sql(rows) for rows in groups if rows]
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
