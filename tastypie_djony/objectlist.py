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

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import FieldError
from django.db import NotSupportedError, models
from django.db.models.query import ModelIterable
from tastypie.exceptions import BadRequest, InvalidSortError

from djony.serving import PonyQuerySet, backends, none_as_json_null, pin_reads, unflushed_changes
from tastypie_djony.declines import Fallback

#: Errors Django raises while compiling SQL for a client's filter value.
COMPILE_ERRORS = (
    ValueError,
    TypeError,
    IndexError,
    AttributeError,
    OverflowError,
    NotSupportedError,
)


class DjonyObjectList(PonyQuerySet):
    """A resource's object list: a :class:`~djony.objects.querysets.PonyQuerySet`, its errors 400s.

    What a client's filters, ordering or offsets break (an unknown lookup, a
    value the database refuses, an offset past what the database accepts)
    becomes Tastypie's ``BadRequest``/``InvalidSortError``, never a 500.
    """

    def __init__(self, queryset: models.QuerySet, *args: Any, **kwargs: Any) -> None:
        super().__init__(pin_reads(queryset), *args, **kwargs)  # a write request reads its writes

    @property
    def _result_cache(self) -> list[Any] | None:
        """The objects once evaluated, else ``None``: a QuerySet's attribute of that name.

        Project code written for QuerySets reads it (an ``authorized_read_list`` that
        checks whether the list was evaluated; Tastypie's own tests do).
        """
        return self._result

    def filter(self, *args: Any, **kwargs: Any) -> DjonyObjectList:
        with _lookup_errors_as_bad_request():
            kwargs = none_as_json_null(self.queryset.query, kwargs)
            return self._chain(self.queryset.filter(*args, **kwargs))

    def exclude(self, *args: Any, **kwargs: Any) -> DjonyObjectList:
        with _lookup_errors_as_bad_request():
            kwargs = none_as_json_null(self.queryset.query, kwargs)
            return self._chain(self.queryset.exclude(*args, **kwargs))

    def order_by(self, *fields: str) -> DjonyObjectList:
        chained = self._chain(self.queryset.order_by(*fields))
        probe = chained.queryset.all()  # compiling adds joins to the query: use a copy
        try:
            probe.query.get_compiler(self.queryset.db).get_order_by()
        except FieldError:
            # Django's message lists the model's columns: not for clients.
            names = ", ".join(repr(str(field).lstrip("-")) for field in fields)
            raise InvalidSortError(f"Cannot order by {names}: no such field.") from None
        return chained

    def __getitem__(self, key: int | slice) -> Any:
        if self._result is None and isinstance(key, slice):
            start, stop = key.start or 0, key.stop
            most = backends.for_alias(self.queryset.db).max_rows
            if start > most:
                raise BadRequest(f"Invalid offset '{start}' provided: it must be at most {most}.")
            if stop is not None and stop > most:
                stop = None
            return self._chain(self.queryset[start:stop])
        return super().__getitem__(key)

    def values_rows(self, fields: list[str], kept: Any = None) -> list[tuple]:
        """The row-built paths' rows; a ``values()`` list is served as ModelResource serves
        it (its dicts or tuples reach Tastypie), so those paths decline it."""
        self._check_objects()
        return super().values_rows(fields, kept)

    def rows_and_objects(self, fields: list[str], kept: Any = None) -> Any:
        self._check_objects()
        return super().rows_and_objects(fields, kept)

    def _check_objects(self) -> None:
        if self.queryset._iterable_class is not ModelIterable:
            raise Fallback

    def _sql(self, compiler: Any) -> tuple[str, tuple]:
        return _as_sql(compiler)

    def _execute(self, sql: str, params: Any) -> Any:
        try:
            return super()._execute(sql, params)
        except Exception as exc:
            # What the database refused of the client's input is a 400; the rest is raised.
            refusal = backends.read_refusal(self.queryset.db, exc)
            if refusal is None:
                raise
            if refusal is backends.ReadRefusal.PATTERN:
                raise BadRequest(f"Invalid regular expression: {_first_line(exc)}") from None
            if refusal is backends.ReadRefusal.VALUE_TYPE:
                # e.g. ?name__iexact=true: Tastypie made the value a boolean.
                raise BadRequest("Invalid filter value: its type does not fit the field.") from None
            # Invalid input the database refused (NUL byte, out of range, bad data).
            raise BadRequest(f"Invalid filter value: {_first_line(exc)}") from None


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
    except ValueError as exc:
        # A lookup that only checks its value when compiled (isnull=maybe, a one-value
        # range, a duration given as text): the request, not the code, is wrong.
        raise InvalidFilterValue(f"Invalid filter: {_first_line(exc)}") from None
    except COMPILE_ERRORS as exc:
        # The same, or a lookup this database lacks (JSON contains on SQLite).
        raise BadRequest(f"Invalid filter: {_first_line(exc)}") from None


class InvalidFilterValue(BadRequest, ValueError):
    """A filter value Django refused when compiling: a 400 with Django's reason.

    Also a ``ValueError``, as Django raised it: where Tastypie turns a ``ValueError``
    into its own answer (evaluated inside ``apply_filters()`` or ``authorized_read_list()``
    through ``exists()``, ``count()`` ..., in ``obj_get_list``/``obj_get``), the answer
    is ModelResource's.
    """


def check_rows_serve(object_list: Any) -> None:
    """Raise :class:`~tastypie_djony.declines.Fallback` unless a plan may read ``object_list``'s
    rows: an unevaluated :class:`DjonyObjectList` in a session with no unflushed changes
    (objects deleted in it would be left out of the rows)."""
    if not isinstance(object_list, DjonyObjectList) or object_list._result is not None:
        raise Fallback
    if unflushed_changes(object_list.model, object_list.db):
        raise Fallback
