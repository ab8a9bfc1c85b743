"""A Django ``QuerySet`` look-alike whose rows Pony loads: :class:`PonyQuerySet`.

Every chained call (``filter``, ``exclude``, ``order_by``, ``distinct``,
slicing, ``values``/``values_list``) is recorded on a Django ``QuerySet``
that Django never evaluates: it only compiles the lookups to SQL for the
current backend, with every value a query parameter.  The SQL selects the
entity's columns and runs on Pony's session; Pony builds the objects (or,
for ``values()``/``values_list()``, Django's converters shape the rows).
So lookups, ordering and default managers mean exactly what they mean to
Django, and the objects are the ones in the Pony session.

Related managers (``obj.tags.all()``, see :mod:`djony.objects.managers`) and
Tastypie's object lists (``tastypie_djony.objectlist``) are built on it.
Evaluated outside a ``db_session``, a query opens one for its own rows;
the loaded values stay readable afterwards, and so do the objects their
foreign keys name (:func:`~djony.objects.rows.load_to_one`), as
``note.author.username`` reads on a Django instance at any time.

Subclass :class:`PonyQuerySet` and override ``_sql``/``_execute`` to turn the
errors of compiling or running a query into your own (as ``tastypie_djony``'s
object list turns a client's bad filter value into a 400).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import models
from django.db.models.query import (
    ModelIterable,
)
from pony.orm import db_session
from pony.orm.core import local as pony_local

from djony.objects.pages import Page
from djony.objects.proxies import flavoured
from djony.objects.rows import Rows, load_to_one, objects_from_rows, row_layout, shaped
from djony.registry import entity_for

#: Selected column names -> ``(OneValueQuery, params)``: a list's ``values_list(*names)``
#: compiled before (see :mod:`djony.objects.compiled`), or ``None`` to compile it now.
Kept = Callable[[list[str]], "tuple[Any, tuple] | None"]


class PonyQuerySet:
    """A lazy, chainable list of Pony objects (or value rows) described by a QuerySet.

    ``loaders`` are called with the list of loaded objects once the query
    is evaluated; resources use them to fetch related data for a whole page
    in a constant number of queries.
    """

    def __init__(
        self,
        queryset: models.QuerySet,
        loaders: tuple = (),
        prefetched: Callable[[], list[Any]] | None = None,
    ) -> None:
        self.queryset = queryset
        self.loaders = loaders
        #: Where the rows come from if they were (or will be) loaded with others' (a page's).
        self.prefetched = prefetched
        self._result: list[Any] | None = None

    # -- what the query is about ------------------------------------------
    @property
    def model(self) -> type[models.Model]:
        return self.queryset.model

    @property
    def db(self) -> str:
        return self.queryset.db

    @property
    def query(self) -> Any:
        return self.queryset.query

    @property
    def ordered(self) -> bool:
        return self.queryset.ordered

    @property
    def totally_ordered(self) -> bool:
        return self.queryset.totally_ordered

    #: Nothing is prefetched by lookups (Django's serializers read it).
    _prefetch_related_lookups = ()

    @property
    def entity(self) -> Any:
        return entity_for(self.queryset.model, self.queryset.db)

    def _chain(self, queryset: models.QuerySet) -> PonyQuerySet:
        return type(self)(queryset, self.loaders)

    def with_loaders(self, loaders: tuple) -> PonyQuerySet:
        return type(self)(self.queryset, loaders)

    # -- the QuerySet API -------------------------------------------------
    def all(self) -> PonyQuerySet:
        return self._chain(self.queryset.all())

    _clone = all

    def none(self) -> PonyQuerySet:
        return self._chain(self.queryset.none())

    def filter(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        return self._chain(self.queryset.filter(*args, **kwargs))

    def exclude(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        return self._chain(self.queryset.exclude(*args, **kwargs))

    def distinct(self, *fields: str) -> PonyQuerySet:
        return self._chain(self.queryset.distinct(*fields))

    def order_by(self, *fields: str) -> PonyQuerySet:
        return self._chain(self.queryset.order_by(*fields))

    def reverse(self) -> PonyQuerySet:
        return self._chain(self.queryset.reverse())

    def using(self, alias: str) -> PonyQuerySet:
        return self._chain(self.queryset.using(alias))

    def values(self, *fields: str, **expressions: Any) -> PonyQuerySet:
        return self._chain(self.queryset.values(*fields, **expressions))

    def values_list(self, *fields: str, flat: bool = False, named: bool = False) -> PonyQuerySet:
        return self._chain(self.queryset.values_list(*fields, flat=flat, named=named))

    def annotate(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        """Annotations become attributes of the objects, as on Django instances."""
        return self._chain(self.queryset.annotate(*args, **kwargs))

    def alias(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        return self._chain(self.queryset.alias(*args, **kwargs))

    def extra(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        """Extra ``select`` values become attributes of the objects, as on Django instances."""
        return self._chain(self.queryset.extra(*args, **kwargs))

    def select_for_update(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        return self._chain(self.queryset.select_for_update(*args, **kwargs))

    def defer(self, *fields: Any) -> PonyQuerySet:
        return self  # Pony loads whole rows; the values read are the same.

    def only(self, *fields: Any) -> PonyQuerySet:
        return self  # Pony loads whole rows; the values read are the same.

    def complex_filter(self, filter_obj: Any) -> PonyQuerySet:
        return self._chain(self.queryset.complex_filter(filter_obj))

    # -- combining lists, as Django combines QuerySets ----------------------
    def __or__(self, other: Any) -> PonyQuerySet:
        return self._chain(self.queryset | _queryset_of(other))

    def __and__(self, other: Any) -> PonyQuerySet:
        return self._chain(self.queryset & _queryset_of(other))

    def __xor__(self, other: Any) -> PonyQuerySet:
        return self._chain(self.queryset ^ _queryset_of(other))

    def union(self, *others: Any, all: bool = False) -> PonyQuerySet:  # noqa: A002 - Django's name
        return self._chain(self.queryset.union(*map(_queryset_of, others), all=all))

    def intersection(self, *others: Any) -> PonyQuerySet:
        return self._chain(self.queryset.intersection(*map(_queryset_of, others)))

    def difference(self, *others: Any) -> PonyQuerySet:
        return self._chain(self.queryset.difference(*map(_queryset_of, others)))

    def resolve_expression(self, *args: Any, **kwargs: Any) -> Any:
        """As a value in a lookup (``Other.objects.filter(owner__in=object_list)``): a subquery."""
        return self.queryset.resolve_expression(*args, **kwargs)

    def contains(self, obj: Any) -> bool:
        if self._result is not None:
            return obj in self._result
        return self.filter(pk=obj.pk).exists()

    def earliest(self, *fields: str) -> Any:
        return self._chain(self.queryset.order_by(*self._latest_fields(fields)))._first_or_raise()

    def latest(self, *fields: str) -> Any:
        ordering = [f[1:] if f.startswith("-") else f"-{f}" for f in self._latest_fields(fields)]
        return self._chain(self.queryset.order_by(*ordering))._first_or_raise()

    def _latest_fields(self, fields: tuple[str, ...]) -> tuple[str, ...]:
        if fields:
            return fields
        latest_by = self.model._meta.get_latest_by
        if not latest_by:
            raise ValueError(
                "earliest() and latest() require either fields as positional arguments "
                "or 'get_latest_by' in the model's Meta."
            )
        return tuple(latest_by) if isinstance(latest_by, (list, tuple)) else (latest_by,)

    def _first_or_raise(self) -> Any:
        found = list(self[:1])
        if not found:
            name = self.model._meta.object_name
            raise self.model.DoesNotExist(f"{name} matching query does not exist.")
        return found[0]

    def dates(self, *args: Any, **kwargs: Any) -> models.QuerySet:
        """Django's ``dates()`` (a list of values, not of objects), after Pony's pending writes."""
        self._flush()
        return self.queryset.dates(*args, **kwargs)

    def datetimes(self, *args: Any, **kwargs: Any) -> models.QuerySet:
        """Django's ``datetimes()`` (values, not objects), after Pony's pending writes."""
        self._flush()
        return self.queryset.datetimes(*args, **kwargs)

    def explain(self, *args: Any, **kwargs: Any) -> str:
        return self.queryset.explain(*args, **kwargs)

    def _flush(self) -> None:
        if pony_local.db_session is not None:
            self.entity._database_._get_cache().flush()

    def __aiter__(self) -> Any:
        raise NotImplementedError(
            f"async for over a {type(self).__name__} is not supported: " + _ASYNC.format("__iter__")
        )

    def __deepcopy__(self, memo: dict) -> PonyQuerySet:
        """As Django's: a copy of the query, not of the loaded objects."""
        return type(self)(self.queryset._chain(), self.loaders)

    def __class_getitem__(cls, *args: Any) -> type:
        return cls

    def __getattr__(self, name: str) -> Any:
        if name in REFUSED:
            raise NotImplementedError(
                f"{type(self).__name__}.{name}() is not supported on a list of "
                f"{self.model._meta.label} served by Pony: {REFUSED[name]}"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def aggregate(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Django's ``aggregate()``, after Pony's pending writes reached the database."""
        self._flush()
        return self.queryset.aggregate(*args, **kwargs)

    def select_related(self, *fields: Any) -> PonyQuerySet:
        return self  # Pony loads relations by key: nothing to join up front.

    def prefetch_related(self, *lookups: Any) -> PonyQuerySet:
        return self  # Related data is loaded per page by loaders or on first access.

    def iterator(self, chunk_size: int | None = None) -> Iterator[Any]:
        return iter(self._fetch())

    def __getitem__(self, key: int | slice) -> Any:
        if self._result is not None or self.prefetched is not None:
            return self._fetch()[key]
        if isinstance(key, slice):
            return self._chain(self.queryset[key])
        if key < 0:
            return self._fetch()[key]
        rows = list(self._chain(self.queryset[key : key + 1]))
        if not rows:
            raise IndexError("list index out of range")
        return rows[0]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._fetch())

    def __len__(self) -> int:
        return len(self._fetch())

    def __bool__(self) -> bool:
        return bool(self._fetch())

    def __repr__(self) -> str:
        shown = list(self[:21]) if self._result is None else self._result[:21]
        tail = ["...(remaining elements truncated)..."] if len(shown) > 20 else []
        return f"<{type(self).__name__} {[*shown[:20], *tail]!r}>"

    def count(self) -> int:
        if self._result is not None or self.prefetched is not None:
            return len(self._fetch())
        try:
            sql, params = self._compile(self.queryset.order_by().values("pk"))
        except EmptyResultSet:
            return 0
        query = f"SELECT COUNT(*) FROM ({sql}) djony_count"
        return self._in_session(lambda: self._execute(query, params).fetchone()[0])

    def exists(self) -> bool:
        if self._result is not None or self.prefetched is not None:
            return bool(self._fetch())
        return bool(type(self)(self.queryset.order_by().values_list("pk")[:1]).rows())

    def get(self, *args: Any, **kwargs: Any) -> Any:
        chained = self.filter(*args, **kwargs) if args or kwargs else self
        objects = list(chained[:21])
        if not objects:
            name = self.model._meta.object_name
            raise self.model.DoesNotExist(f"{name} matching query does not exist.")
        if len(objects) > 1:
            raise self.model.MultipleObjectsReturned(
                f"get() returned more than one {self.model._meta.object_name} -- "
                f"it returned {'more than 20' if len(objects) > 20 else len(objects)}!"
            )
        return objects[0]

    def first(self) -> Any:
        ordered = self if self.queryset.ordered else self.order_by("pk")
        found = list(ordered[:1])
        return found[0] if found else None

    def last(self) -> Any:
        queryset = self.queryset
        queryset = queryset.reverse() if queryset.ordered else queryset.order_by("-pk")
        found = list(self._chain(queryset)[:1])
        return found[0] if found else None

    def in_bulk(self, id_list: Any = None, *, field_name: str = "pk") -> dict[Any, Any]:
        chained = self if id_list is None else self.filter(**{f"{field_name}__in": list(id_list)})
        return {getattr(obj, field_name): obj for obj in chained}

    def delete(self) -> int:
        objects = self._fetch()
        for obj in objects:
            obj.delete()
        return len(objects)

    # -- evaluation -------------------------------------------------------
    def _compile(self, queryset: models.QuerySet) -> tuple[str, tuple]:
        return self._sql(queryset.query.get_compiler(queryset.db))

    def _sql(self, compiler: Any) -> tuple[str, tuple]:
        """Django's SQL and parameters from ``compiler``; override to translate errors."""
        return compiler.as_sql()

    def _execute(self, sql: str, params: Any) -> Any:
        """Run ``sql`` on Pony's session connection; override to translate errors."""
        cache = self.entity._database_._get_cache()
        connection = cache.prepare_connection_for_query_execution()  # flushes Pony's writes
        cursor = connection.cursor()
        cursor.execute(sql, params)
        return cursor

    def rows(self) -> list[tuple]:
        """The rows of a ``values_list()`` queryset, converted as Django converts them."""
        compiler = self.queryset.query.get_compiler(self.queryset.db)
        try:
            sql, params = self._sql(compiler)
        except EmptyResultSet:
            return []
        rows = self._in_session(lambda: self._execute(sql, params).fetchall())
        converters = compiler.get_converters([s[0] for s in compiler.select[: compiler.col_count]])
        if converters:
            rows = [tuple(row) for row in compiler.apply_converters(rows, converters)]
        return rows

    def compiled_rows(self, sql: str, params: tuple, compiled: Any) -> list[tuple]:
        """:meth:`rows` of SQL compiled before (a :class:`djony.objects.compiled.OneValueQuery`).

        Run on this list's session and database, converted by a compiler of the kept
        query on this thread's connection.
        """
        rows = self._in_session(lambda: self._execute(sql, params).fetchall())
        compiler = compiled.compiler()
        converters = compiler.get_converters(compiled.expressions)
        if converters:
            rows = [tuple(row) for row in compiler.apply_converters(rows, converters)]
        return rows

    def values_rows(self, fields: list[str], kept: Kept | None = None) -> list[tuple]:
        """Rows of ``fields`` (Django names, ``pk`` allowed), as Django converts them.

        ``kept``: this list's ``values_list(*fields)`` compiled before, if it has one.
        """
        order = self._django_columns()
        if order is not None:
            names = [self.queryset.model._meta.pk.attname if f == "pk" else f for f in fields]
            if set(names) <= set(order) and names != order:
                positions = [order.index(name) for name in names]
                return [tuple(row[i] for i in positions) for row in self.values_rows(order, kept)]
        compiled = kept(list(fields)) if kept is not None else None
        if compiled is not None:
            query, params = compiled
            return self.compiled_rows(query.sql, params, query)
        return type(self)(self.queryset.values_list(*fields)).rows()

    def _django_columns(self) -> list[str] | None:
        """The columns Django's own query of this list selects, for an unordered ``distinct()``.

        Without an ``ORDER BY`` the database returns a ``SELECT DISTINCT``'s rows in
        an order of its choosing, which follows the selected columns (PostgreSQL
        sorts or hashes them): selecting what Django selects, in Django's order
        (the model's concrete fields), gives the order ModelResource's page has.
        ``None`` for any other list (its order is its ``ORDER BY``'s).
        """
        query = self.queryset.query
        model = self.queryset.model
        if not query.distinct or query.distinct_fields or query.extra_select:
            return None
        if query.order_by or query.extra_order_by:
            return None
        if self.queryset._iterable_class is not ModelIterable:
            return None
        if query.default_ordering and model._meta.ordering:
            return None
        return [field.attname for field in model._meta.concrete_fields]

    def _in_django_order(self, attnames: list[str], offsets: dict) -> tuple[list[str], dict]:
        """``attnames`` and their ``offsets`` in :meth:`_django_columns`' order, if it applies."""
        order = self._django_columns()
        if order is None or not set(attnames) <= set(order):
            return attnames, offsets
        moved = [order.index(name) for name in attnames]
        return order, {attr: [moved[i] for i in where] for attr, where in offsets.items()}

    def rows_and_objects(
        self, fields: list[str], kept: Kept | None = None
    ) -> tuple[list[tuple], Callable[[], list[Any]]]:
        """Rows of ``fields`` now, and this list's objects later, from one query.

        The rows are what :meth:`values_rows` gives; calling the second value
        builds, from the same query's rows, the objects iterating this list
        would give (annotations, page marks and loaders included) and makes
        them this list's result.  So a page can be served from its values and
        still hand out its objects, once, only if some code asks for them.
        Only for an unevaluated list of objects (no ``values()``, no result).
        """
        if self._result is not None or self.prefetched is not None:
            raise ValueError("rows_and_objects() needs an unevaluated object list")
        if not issubclass(self.queryset._iterable_class, ModelIterable):
            raise ValueError("rows_and_objects() needs a list of objects")
        if self.queryset.query.is_empty():
            return [], self._adopt_objects(list)
        entity = self.entity
        query = self.queryset.query
        extras = [*query.extra_select, *query.annotation_select]
        # The entity's columns, then the other columns asked for, then the
        # annotations (last, where the objects' builder reads them).
        for attnames, offsets in (self._in_django_order(*row_layout(entity)), row_layout(entity)):  # noqa: B007 (read after the loop)
            columns = list(attnames)
            wanted = [self._column_name(name, columns, extras) for name in fields]
            if len(columns) == len(attnames):
                break  # else: a column Django's distinct query has not; the entity's order
        selected = [*columns, *extras]
        compiled = kept(selected) if kept is not None and not extras else None
        if compiled is not None:
            kept_query, params = compiled
            sql, compiler = kept_query.sql, kept_query.compiler()
            expressions = kept_query.expressions
        else:
            queryset = self.queryset.values_list(*selected)
            compiler = queryset.query.get_compiler(queryset.db)
            try:
                sql, params = self._sql(compiler)
            except EmptyResultSet:
                return [], self._adopt_objects(list)
            expressions = [column[0] for column in compiler.select[: compiler.col_count]]
        raw = self._execute(sql, params).fetchall()
        positions = [selected.index(name) for name in wanted]
        converters = {
            index: converter
            for index, converter in compiler.get_converters(expressions).items()
            if index in positions
        }
        converted = compiler.apply_converters(raw, converters) if converters else raw
        pick = operator.itemgetter(*positions) if positions else (lambda row: ())
        if len(positions) == 1:
            rows = [(pick(row),) for row in converted]
        else:
            rows = [pick(row) for row in converted]

        def objects() -> list[Any]:
            if not extras:
                found = [(obj, {}) for obj in entity._fetch_objects(Rows(raw), offsets)]
            else:
                found = objects_from_rows(entity, offsets, compiler, extras, raw)
            return self._loaded(found)

        return rows, self._adopt_objects(objects)

    def _column_name(self, name: str, columns: list[str], extras: list[str]) -> str:
        """``name`` as a selected column (``pk`` is the key's attname), added if missing."""
        if name == "pk":
            name = self.queryset.model._meta.pk.attname
        if name not in columns and name not in extras:
            columns.append(name)
        return name

    def _adopt_objects(self, build: Callable[[], list[Any]]) -> Callable[[], list[Any]]:
        def objects() -> list[Any]:
            if self._result is None:
                self._result = self._in_session(build, then=load_to_one)
                self._after_load()
            return self._result

        return objects

    def _fetch(self) -> list[Any]:
        if self._result is None and self.prefetched is not None:
            self._result = self.prefetched()
        if self._result is None:
            iterable = self.queryset._iterable_class
            if issubclass(iterable, ModelIterable):  # model-utils, polymorphic: subclasses
                self._result = self._in_session(self._load, then=load_to_one)
                self._after_load()
            else:
                self._result = shaped(self.queryset, iterable, self.rows())
        return self._result

    def _after_load(self) -> None:
        Page.mark(self._result)
        for loader in self.loaders:
            loader(self._result)

    def _in_session(self, work: Any, then: Callable[[Any], None] | None = None) -> Any:
        """Run ``work`` in the current Pony session, or in one of its own.

        ``then`` is called with the result before a session of its own ends
        (what must be loaded while it lasts).
        """
        if pony_local.db_session is not None:
            return work()
        with db_session(strict=False):
            result = work()
            if then is not None:
                then(result)
            return result

    def _load(self) -> list[Any]:
        return self._loaded(self.objects_with_values())

    def _loaded(self, found: list[tuple[Any, dict[str, Any]]]) -> list[Any]:
        """The objects of :meth:`objects_with_values`, annotated and flavoured."""
        objects = []
        for obj, values in found:
            for name, value in values.items():
                setattr(obj, name, value)
            objects.append(obj)
        return flavoured(objects, self.queryset.model)

    def objects_with_values(self) -> list[tuple[Any, dict[str, Any]]]:
        """Each row's object with the row's ``annotate()``/``extra()`` values, in row order.

        The values are per row: one object can come in several rows (a
        related object shared by several owners) with different values.
        """
        if self.queryset.query.is_empty():
            return []
        entity = self.entity
        attnames, offsets = self._in_django_order(*row_layout(entity))
        query = self.queryset.query
        extras = [*query.extra_select, *query.annotation_select]
        queryset = self.queryset.values_list(*attnames, *extras)
        compiler = queryset.query.get_compiler(queryset.db)
        try:
            sql, params = self._sql(compiler)
        except EmptyResultSet:
            return []
        cursor = self._execute(sql, params)
        if not extras:
            return [
                (obj, {}) for obj in entity._fetch_objects(cursor, offsets, max_fetch_count=None)
            ]
        return objects_from_rows(entity, offsets, compiler, extras, cursor.fetchall())


def _queryset_of(other: Any) -> models.QuerySet:
    """The Django ``QuerySet`` behind ``other`` (a :class:`PonyQuerySet` or a QuerySet)."""
    return other.queryset if isinstance(other, PonyQuerySet) else other


_WRITE = "write through the model's manager (Model.objects.{0}(...)), as Django's QuerySet does."
_ASYNC = "a Pony session belongs to one thread: call the synchronous {0}() instead."

_WRITES = "update create get_or_create update_or_create bulk_create bulk_update"
_ASYNCS = (
    "aggregate bulk_create bulk_update contains count create delete earliest exists explain "
    "first get get_or_create in_bulk iterator last latest update update_or_create"
)
#: QuerySet methods a list of Pony objects does not offer, and what to write instead.
REFUSED: dict[str, str] = {
    **{name: _WRITE.format(name) for name in _WRITES.split()},
    "raw": "run raw SQL through the model's manager (Model.objects.raw(...)).",
    "as_manager": "build managers from a Django QuerySet class.",
    "fetch_mode": "related objects are loaded per page; call it on the Django QuerySet.",
    **{f"a{name}": _ASYNC.format(name) for name in _ASYNCS.split()},
}
