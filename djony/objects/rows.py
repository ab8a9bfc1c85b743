"""How rows become objects or values: the columns an entity selects, and what a row gives.

:class:`~djony.objects.querysets.PonyQuerySet` selects, for an entity, the
columns :func:`row_layout` lists (in Django's attnames, so Django compiles the
query) and lets Pony build the objects from them; :func:`objects_from_rows` for
rows that also carry ``annotate()``/``extra()`` values, :func:`shaped` for the
rows of ``values()``/``values_list()``.  :func:`load_to_one` loads the objects a
page's foreign keys name before its session ends.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any

from django.db import models
from django.db.models.query import FlatValuesListIterable, NamedValuesListIterable, ValuesIterable
from pony.orm.core import UnrepeatableReadError, del_statuses


@functools.cache
def row_layout(entity: Any) -> tuple[list[str], dict[Any, list[int]]]:
    """The Django attnames to select for ``entity`` and where each Pony attribute reads."""
    model = entity._djony_info_.model
    attname_of = {field.column: field.attname for field in model._meta.local_concrete_fields}
    attnames: list[str] = []
    offsets: dict[Any, list[int]] = {}
    for attr in entity._attrs_:
        if attr.columns and not attr.is_collection:
            offsets[attr] = list(range(len(attnames), len(attnames) + len(attr.columns)))
            attnames.extend(attname_of[column] for column in attr.columns)
    return attnames, offsets


class Rows:
    """Rows already fetched, read by Pony as it reads a cursor."""

    def __init__(self, rows: list) -> None:
        self._rows = rows

    def fetchall(self) -> list:
        return self._rows

    def fetchmany(self, size: int) -> list:
        return self._rows[:size]


def objects_from_rows(
    entity: Any, offsets: dict, compiler: Any, names: list[str], rows: list
) -> list[tuple[Any, dict[str, Any]]]:
    """Pony objects from rows whose last columns are ``annotate()``/``extra()`` values.

    The values are converted by Django (as a Django instance gets them); the
    columns by Pony, as for any other row.
    """
    width = len(rows[0]) - len(names) if rows else 0
    expressions = [column[0] for column in compiler.select[: compiler.col_count]]
    converters = {
        index: converter
        for index, converter in compiler.get_converters(expressions).items()
        if index >= width
    }
    converted = compiler.apply_converters(rows, converters) if converters else rows
    entity._database_._get_cache()  # the session's cache the objects are made in
    result = []
    for row in converted:
        real_entity, pkval, avdict = entity._parse_row_(row[:width], offsets)
        obj = real_entity._get_from_identity_map_(pkval, "loaded")
        if obj._status_ in del_statuses:
            continue
        obj._db_set_(avdict)
        result.append((obj, dict(zip(names, row[width:], strict=True))))
    return result


def shaped(queryset: models.QuerySet, iterable: type, rows: list[tuple]) -> list[Any]:
    """``values()``/``values_list()`` rows as Django's iterables give them."""
    if iterable is FlatValuesListIterable:
        return [row[0] for row in rows]
    if iterable is ValuesIterable or iterable is NamedValuesListIterable:
        query = queryset.query
        names = [*query.extra_select, *query.values_select, *query.annotation_select]
        if iterable is ValuesIterable:
            return [dict(zip(names, row, strict=True)) for row in rows]
        row_type = namedtuple("Row", names)  # noqa: PYI024 - as Django's values_list(named=True)
        return [row_type(*row) for row in rows]
    return rows


def load_to_one(objects: list[Any]) -> None:
    """Load the objects that ``objects`` name by a foreign key or one-to-one column.

    For objects read in a session that ends before the caller uses them
    (a query evaluated outside any ``db_session``): Pony cannot load a row
    once its session is over, so ``note.author.username`` would fail where
    a Django instance reads it on access.  One query per related entity
    (Pony's batch load of its unloaded objects, up to its parameter limit
    per query); one level deep.
    """
    if not objects:
        return
    cache = objects[0]._session_cache_
    if cache is None or not cache.is_alive:
        return
    attrs = [
        attr
        for attr in type(objects[0])._attrs_
        if attr.reverse is not None and attr.columns and not attr.is_collection
    ]
    pending = {}
    for obj in objects:
        for attr in attrs:
            related = attr.get(obj) if obj._vals_ is not None else None
            if related is not None:
                pending[id(related)] = related
    for related in pending.values():
        if related in cache.seeds[related._pk_attrs_]:
            try:
                related._load_()  # with the other unloaded objects of its entity
            except UnrepeatableReadError:
                continue  # a key naming no row: reading it raises later, as on Django's access
