"""What a Tastypie resource treats as its object list, backed by Pony.

:class:`DjonyObjectList` offers the part of the ``QuerySet`` API Tastypie and
authorization classes use (``filter``, ``exclude``, ``order_by``, slicing,
``count``, ``len``, iteration, ``.model``, ``none``, ``delete`` ...).  Every
chained call is recorded on a Django ``QuerySet``, which is never evaluated
by Django: it only turns Django lookups (``author__name__istartswith``,
``published__week_day``, ``tags__name__in`` ...) into SQL for the current
backend, with every user value as a query parameter.  That SQL selects the
entity's columns and runs on Pony's session, and Pony builds the objects, so
filters mean exactly what they mean to ``ModelResource`` on every backend.

Nothing a client sends is ever formatted into SQL or into a Pony query
string; Pony's query caches are not involved at all.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import EmptyResultSet, FieldError
from django.db import DataError, NotSupportedError, models
from pony.orm.core import local as pony_local
from tastypie.exceptions import BadRequest, InvalidSortError

from djony import backends
from djony.compat import none_as_json_null
from djony.registry import entity_for, pin_reads

#: Errors Django raises while compiling SQL for a client's filter value.
COMPILE_ERRORS = (
    ValueError,
    TypeError,
    IndexError,
    AttributeError,
    OverflowError,
    NotSupportedError,
)


class DjonyObjectList:
    """A lazy, chainable list of Pony objects described by a Django QuerySet.

    ``loaders`` are called with the list of loaded objects once a slice is
    evaluated; resources use them to fetch related data for a whole page in
    a constant number of queries (see :mod:`tastypie_djony.related`).
    """

    def __init__(self, queryset: models.QuerySet, loaders: tuple = ()) -> None:
        self.queryset = pin_reads(queryset)  # a write request reads its own writes
        self.loaders = loaders
        self._result: list[Any] | None = None

    # -- QuerySet look-alike ----------------------------------------------
    @property
    def model(self) -> type[models.Model]:
        return self.queryset.model

    @property
    def entity(self) -> Any:
        return entity_for(self.queryset.model, self.queryset.db)

    def _chain(self, queryset: models.QuerySet) -> DjonyObjectList:
        return DjonyObjectList(queryset, self.loaders)

    def all(self) -> DjonyObjectList:
        return self._chain(self.queryset.all())

    _clone = all

    def none(self) -> DjonyObjectList:
        return self._chain(self.queryset.none())

    def filter(self, *args: Any, **kwargs: Any) -> DjonyObjectList:
        with _lookup_errors_as_bad_request():
            kwargs = none_as_json_null(self.queryset.query, kwargs)
            return self._chain(self.queryset.filter(*args, **kwargs))

    def exclude(self, *args: Any, **kwargs: Any) -> DjonyObjectList:
        with _lookup_errors_as_bad_request():
            kwargs = none_as_json_null(self.queryset.query, kwargs)
            return self._chain(self.queryset.exclude(*args, **kwargs))

    def distinct(self, *fields: str) -> DjonyObjectList:
        return self._chain(self.queryset.distinct(*fields))

    def order_by(self, *fields: str) -> DjonyObjectList:
        chained = self._chain(self.queryset.order_by(*fields))
        probe = chained.queryset.all()  # compiling adds joins to the query: use a copy
        try:
            probe.query.get_compiler(self.queryset.db).get_order_by()
        except FieldError as exc:
            raise InvalidSortError(f"Cannot order by {', '.join(fields)}: {exc}") from None
        return chained

    def select_related(self, *fields: str) -> DjonyObjectList:
        return self  # Pony loads relations by key; nothing to join up front.

    def prefetch_related(self, *lookups: str) -> DjonyObjectList:
        return self  # Related data for a page is loaded by the resource's loaders.

    def with_loaders(self, loaders: tuple) -> DjonyObjectList:
        return DjonyObjectList(self.queryset, loaders)

    def __getitem__(self, key: int | slice) -> Any:
        if self._result is not None:
            return self._result[key]
        if isinstance(key, slice):
            start, stop = key.start or 0, key.stop
            most = backends.for_alias(self.queryset.db).max_rows
            if start > most:
                raise BadRequest(f"Invalid offset '{start}' provided: it must be at most {most}.")
            if stop is not None and stop > most:
                stop = None
            return self._chain(self.queryset[start:stop])
        return (
            list(self._chain(self.queryset[key : key + 1]))[0] if key >= 0 else self._fetch()[key]
        )

    def __iter__(self) -> Iterator[Any]:
        return iter(self._fetch())

    def __len__(self) -> int:
        return len(self._fetch())

    def __bool__(self) -> bool:
        return bool(self._fetch())

    def count(self) -> int:
        if self._result is not None:
            return len(self._result)
        try:
            sql, params = self._compile(self.queryset.order_by().values("pk"))
        except EmptyResultSet:
            return 0
        cursor = self._execute(f"SELECT COUNT(*) FROM ({sql}) djony_count", params)
        return cursor.fetchone()[0]

    def exists(self) -> bool:
        return bool(self.count())

    def get(self, **kwargs: Any) -> Any:
        objects = list(self.filter(**kwargs)[:2])
        if not objects:
            raise self.model.DoesNotExist(f"No {self.model._meta.object_name} matches {kwargs!r}.")
        if len(objects) > 1:
            raise self.model.MultipleObjectsReturned(
                f"More than one {self.model._meta.object_name} matches {kwargs!r}."
            )
        return objects[0]

    def delete(self) -> int:
        objects = self._fetch()
        for obj in objects:
            obj.delete()
        return len(objects)

    # -- evaluation -------------------------------------------------------
    def _compile(self, queryset: models.QuerySet) -> tuple[str, tuple]:
        return _as_sql(queryset.query.get_compiler(queryset.db))

    def _execute(self, sql: str, params: Any) -> Any:
        entity = self.entity
        backend = backends.for_alias(self.queryset.db)
        cache = entity._database_._get_cache()
        connection = cache.prepare_connection_for_query_execution()  # flushes Pony's writes
        cursor = connection.cursor()
        try:
            cursor.execute(sql, params)
        except (DataError, ValueError, OverflowError) as exc:
            # Invalid input the database refused (bad regex, NUL byte, out of range).
            raise BadRequest(f"Invalid filter value: {_first_line(exc)}") from None
        except entity._database_.provider.dbapi_module.DataError as exc:
            raise BadRequest(f"Invalid filter value: {_first_line(exc)}") from None
        except entity._database_.provider.dbapi_module.OperationalError as exc:
            if not backend.refused_pattern(exc):
                raise
            raise BadRequest(f"Invalid regular expression: {_first_line(exc)}") from None
        except entity._database_.provider.dbapi_module.ProgrammingError as exc:
            if not backend.refused_value_type(exc):
                raise
            # e.g. ?name__iexact=true: Tastypie made the value a boolean.
            raise BadRequest("Invalid filter value: its type does not fit the field.") from None
        return cursor

    def values_rows(self, fields: list[str]) -> list[tuple]:
        """Rows of ``fields`` (Django names, ``pk`` allowed), as Django converts them."""
        return DjonyObjectList(self.queryset.values_list(*fields)).rows()

    def rows(self) -> list[tuple]:
        """The rows of a ``values_list()`` queryset, converted as Django converts them."""
        compiler = self.queryset.query.get_compiler(self.queryset.db)
        try:
            sql, params = _as_sql(compiler)
        except EmptyResultSet:
            return []
        rows = self._execute(sql, params).fetchall()
        converters = compiler.get_converters([s[0] for s in compiler.select[: compiler.col_count]])
        if converters:
            rows = [tuple(row) for row in compiler.apply_converters(rows, converters)]
        return rows

    def _fetch(self) -> list[Any]:
        if self._result is None:
            self._result = self._load()
            for loader in self.loaders:
                loader(self._result)
        return self._result

    def _load(self) -> list[Any]:
        if self.queryset.query.is_empty():
            return []
        entity = self.entity
        attnames, offsets = _row_layout(entity)
        try:
            sql, params = self._compile(self.queryset.values_list(*attnames))
        except EmptyResultSet:
            return []
        cursor = self._execute(sql, params)
        if pony_local.db_session is None:
            raise RuntimeError("DjonyObjectList must be evaluated inside a Pony db_session.")
        return entity._fetch_objects(cursor, offsets, max_fetch_count=None)


@contextmanager
def _lookup_errors_as_bad_request() -> Iterator[None]:
    """A lookup Django rejects for the client's value or path is a 400.

    ``ValueError`` is left alone: Tastypie turns it into its own 400 (lists)
    or 404 (details), and ``ValidationError`` into a 400 with the messages.
    """
    try:
        yield
    except FieldError as exc:
        raise BadRequest(f"Invalid filter: {_first_line(exc)}") from None
    except (TypeError, OverflowError) as exc:
        raise BadRequest(f"Invalid filter value: {_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    """The database's reason without the SQL it quotes (no table names in answers)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _as_sql(compiler: Any) -> tuple[str, tuple]:
    """Django's SQL for a query; what the client's filters broke is a 400."""
    try:
        return compiler.as_sql()
    except FieldError as exc:
        raise BadRequest(str(exc)) from None
    except COMPILE_ERRORS as exc:
        # A lookup that only checks its value when compiled (isnull=maybe,
        # a one-value range, a duration given as text) or that this database
        # lacks (JSON contains on SQLite): the request, not the code, is wrong.
        raise BadRequest(f"Invalid filter: {_first_line(exc)}") from None


@functools.cache
def _row_layout(entity: Any) -> tuple[list[str], dict[Any, list[int]]]:
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
