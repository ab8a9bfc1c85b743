"""The rows a page reads of a relation, by SQL compiled once per relation and page size.

:mod:`djony.objects.page_gets` answers a page's related ``get()`` and ``count()`` from
one ``values_list`` query of the related model's plain default manager over the owners'
keys (``thumbnail_set`` rows of ``image_id IN (<the page's images>)``), and Django builds
and compiles that query again on every request: only the keys differ.  :func:`rows` keeps,
per query kind, database, number of keys and type of key, the SQL Django compiles it to,
checked once to take the keys, in the order given, as its only parameters and to be the
same in every request (:func:`~djony.objects.independent.request_independent`).  Another
page of as many keys runs that SQL on Django's cursor (logged, counted, wrapped as any
query) and its rows are converted by the converters Django's own query applies (the
fields' ``from_db_value``, the backend's).  Anything else is Django's own query.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connections, models
from django.db.models.query import ValuesListIterable

from djony.objects.compiled import KeptQueries, KeptSQL
from djony.objects.independent import request_independent
from djony.objects.kept import PerOwner, register

#: On the ``_meta`` of the model a kind of query reads first (``kind[0]``): (the caller's
#: kind of query, database, number of keys, type of key) -> RowsQuery or None.
_KEPT = PerOwner("_djony_page_rows", KeptQueries)
register(
    "Options._djony_page_rows",
    "(the kind of a page's relation read: related model, foreign key, what it selects; "
    "the database, the number of owner keys, their type) -> its RowsQuery or None: the "
    "query is the same for every page of as many owners but for their keys, the kept "
    "SQL's only parameters (checked equal to Django's own compile when kept)",
    "one per relation read, database, page size and type of key (DJONY_CACHE_SIZE entries at "
    "most per model read: djony.objects.kept.PerOwner)",
)


class RowsQuery(KeptSQL):
    """A ``values_list`` query's SQL over a list of keys, and its converters."""

    def rows(self, keys: list) -> list[tuple]:
        """The query's rows for ``keys`` (as many as it was kept for), converted as
        Django's ``values_list`` converts them."""
        compiler, converters = self.converters()
        with connections[self.alias].cursor() as cursor:
            cursor.execute(self.sql, keys)
            found = cursor.fetchall()
        if converters:
            return [tuple(row) for row in compiler.apply_converters(found, converters)]
        return [tuple(row) for row in found]


def rows(kind: tuple, alias: str, keys: set, build: Callable[[list], Any]) -> list[tuple]:
    """``list(build(listed))``, a ``values_list`` queryset on ``alias`` whose only
    parameters are ``listed``, the ``keys`` in order, by the SQL kept for ``kind`` (the
    model it reads, then what else tells the query apart) and as many keys (of one type:
    Django's own query for a mix)."""
    key_type = type(next(iter(keys)))
    if any(type(key) is not key_type for key in keys):
        return list(build(list(keys)))
    try:
        listed = sorted(keys)  # one order of the same keys: the same parameters
    except TypeError:  # keys without an order: Django's own query
        return list(build(list(keys)))
    kept_key = (kind, alias, len(listed), key_type)
    queries = _KEPT.of(kind[0]._meta)
    if kept_key not in queries:
        queryset = build(listed)
        queries[kept_key] = compiled = _compile(queryset, listed, alias)
        if compiled is None:
            return list(queryset)
    kept = queries.get(kept_key)
    if kept is None:
        return list(build(listed))
    return kept.rows(listed)


def _compile(queryset: models.QuerySet, keys: list, alias: str) -> RowsQuery | None:
    """The kept SQL of ``queryset``, or ``None`` when its parameters are not ``keys`` alone
    (or anything of it may change between requests)."""
    query = queryset.query
    if (
        queryset.db != alias
        or queryset._iterable_class is not ValuesListIterable
        or list(queryset._fields)
        != [*query.extra_select, *query.values_select, *query.annotation_select]
    ):
        return None  # no values_list, or one whose columns Django's iterable reorders
    compiled = over_keys(query, alias, keys)
    if compiled is None:
        return None
    compiler, sql = compiled
    return RowsQuery(query, sql, tuple(keys), alias, compiler)


def over_keys(query: Any, alias: str, keys: list) -> tuple[Any, str] | None:
    """``query`` compiled on ``alias`` (its compiler and SQL) when its parameters are
    ``keys`` alone, in order, and nothing of it may change between requests, else ``None``."""
    compiler = query.get_compiler(alias)
    try:
        sql, params = compiler.as_sql()
    except (EmptyResultSet, FullResultSet):
        return None
    if tuple(params) != tuple(keys) or not request_independent(query, compiler):
        return None
    return compiler, sql
