"""The QuerySet API recorded on a Django ``QuerySet``, evaluated by a subclass.

:class:`RecordedQuerySet` offers the part of Django's ``QuerySet`` API that code reads
(``filter``, ``exclude``, ``order_by``, slicing, ``count``, ``get``, ``first``, ``union``
...): every chained call is recorded on a Django ``QuerySet`` that Django never
evaluates itself; it only compiles the lookups to SQL for the current backend, with
every value a query parameter.  What evaluating gives (Pony's objects, Django
instances, rows) is a subclass's: :meth:`RecordedQuerySet._fetch`.  The SQL runs on
Pony's session (:class:`~djony.objects.reader.RowReader`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import models

from djony.objects import shapes
from djony.objects.reader import RowReader


class RecordedQuerySet(RowReader):
    """A lazy, chainable list described by a Django ``QuerySet`` (see the module).

    ``loaders`` are called with the list of loaded objects once the query is evaluated
    (a subclass's ``_fetch`` calls them); ``prefetched``, when given, is where the
    objects come from if they were (or will be) loaded with others' (a page's).
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
        #: How this list was made from its origin, when its SQL may be kept per shape
        #: (:mod:`djony.objects.shapes`); ``None`` once a call the recipes do not record
        #: was made (that list compiles as Django does).
        self.recipe: shapes.Recipe | None = None

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

    def _chain(
        self, queryset: models.QuerySet, recipe: shapes.Recipe | None = None
    ) -> RecordedQuerySet:
        chained = type(self)(queryset, self.loaders)
        chained.recipe = recipe
        return chained

    def with_loaders(self, loaders: tuple) -> RecordedQuerySet:
        chained = type(self)(self.queryset, loaders, self.prefetched)
        chained.recipe = self.recipe
        return chained

    @classmethod
    def made_from(cls, origin: models.QuerySet, loaders: tuple = ()) -> RecordedQuerySet:
        """A copy of ``origin`` (a queryset kept between requests, ``Meta.queryset``), its
        SQL kept per recipe of the calls made next (:mod:`djony.objects.shapes`)."""
        made = cls(origin._clone(), loaders)
        made.recipe = shapes.start(origin)
        return made

    # -- the QuerySet API -------------------------------------------------
    def all(self) -> RecordedQuerySet:
        return self._chain(self.queryset.all(), self.recipe)

    _clone = all

    def none(self) -> RecordedQuerySet:
        return self._chain(self.queryset.none())

    def filter(self, *args: Any, **kwargs: Any) -> RecordedQuerySet:
        recipe = shapes.filtered(self.recipe, args, kwargs)
        return self._chain(self.queryset.filter(*args, **kwargs), recipe)

    def exclude(self, *args: Any, **kwargs: Any) -> RecordedQuerySet:
        return self._chain(self.queryset.exclude(*args, **kwargs))

    def distinct(self, *fields: str) -> RecordedQuerySet:
        return self._chain(self.queryset.distinct(*fields))

    def order_by(self, *fields: str) -> RecordedQuerySet:
        recipe = shapes.then(self.recipe, "order_by", fields)
        return self._chain(self.queryset.order_by(*fields), recipe)

    def reverse(self) -> RecordedQuerySet:
        return self._chain(self.queryset.reverse())

    def using(self, alias: str) -> RecordedQuerySet:
        return self._chain(self.queryset.using(alias))

    def values(self, *fields: str, **expressions: Any) -> RecordedQuerySet:
        return self._chain(self.queryset.values(*fields, **expressions))

    def values_list(
        self, *fields: str, flat: bool = False, named: bool = False
    ) -> RecordedQuerySet:
        return self._chain(self.queryset.values_list(*fields, flat=flat, named=named))

    def annotate(self, *args: Any, **kwargs: Any) -> RecordedQuerySet:
        """Annotations become attributes of the objects, as on Django instances."""
        return self._chain(self.queryset.annotate(*args, **kwargs))

    def alias(self, *args: Any, **kwargs: Any) -> RecordedQuerySet:
        return self._chain(self.queryset.alias(*args, **kwargs))

    def extra(self, *args: Any, **kwargs: Any) -> RecordedQuerySet:
        """Extra ``select`` values become attributes of the objects, as on Django instances."""
        return self._chain(self.queryset.extra(*args, **kwargs))

    def select_for_update(self, *args: Any, **kwargs: Any) -> RecordedQuerySet:
        return self._chain(self.queryset.select_for_update(*args, **kwargs))

    def defer(self, *fields: Any) -> RecordedQuerySet:
        return self  # Pony loads whole rows; the values read are the same.

    def only(self, *fields: Any) -> RecordedQuerySet:
        return self  # Pony loads whole rows; the values read are the same.

    def complex_filter(self, filter_obj: Any) -> RecordedQuerySet:
        return self._chain(self.queryset.complex_filter(filter_obj))

    # -- combining lists, as Django combines QuerySets ----------------------
    def __or__(self, other: Any) -> RecordedQuerySet:
        return self._chain(self.queryset | _queryset_of(other))

    def __and__(self, other: Any) -> RecordedQuerySet:
        return self._chain(self.queryset & _queryset_of(other))

    def __xor__(self, other: Any) -> RecordedQuerySet:
        return self._chain(self.queryset ^ _queryset_of(other))

    def union(self, *others: Any, all: bool = False) -> RecordedQuerySet:  # noqa: A002 - Django's name
        return self._chain(self.queryset.union(*map(_queryset_of, others), all=all))

    def intersection(self, *others: Any) -> RecordedQuerySet:
        return self._chain(self.queryset.intersection(*map(_queryset_of, others)))

    def difference(self, *others: Any) -> RecordedQuerySet:
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

    def __aiter__(self) -> Any:
        raise NotImplementedError(
            f"async for over a {type(self).__name__} is not supported: " + _ASYNC.format("__iter__")
        )

    def __deepcopy__(self, memo: dict) -> RecordedQuerySet:
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

    def select_related(self, *fields: Any) -> RecordedQuerySet:
        return self  # Pony loads relations by key: nothing to join up front.

    def prefetch_related(self, *lookups: Any) -> RecordedQuerySet:
        return self  # Related data is loaded per page by loaders or on first access.

    def iterator(self, chunk_size: int | None = None) -> Iterator[Any]:
        return iter(self._fetch())

    def __getitem__(self, key: int | slice) -> Any:
        if self._result is not None or self.prefetched is not None:
            return self._fetch()[key]
        if isinstance(key, slice):
            recipe = shapes.then(self.recipe, "slice", key.start, key.stop, key.step)
            return self._chain(self.queryset[key], recipe)
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
        kept = shapes.kept_sql(self.recipe, "count", self.queryset.query, self.db)
        if kept is not None:
            sql, params = kept[0].sql, kept[1]
        else:
            queryset = self.queryset
            # A slice counts the rows its ordering puts in it (Django's count() of a slice).
            counted = (queryset if queryset.query.is_sliced else queryset.order_by()).values("pk")
            compiler = counted.query.get_compiler(counted.db)
            try:
                sql, params = self._sql(compiler)
            except EmptyResultSet:
                return 0
            shapes.keep_sql(self.recipe, "count", counted, compiler, (sql, params))
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

    def _fetch(self) -> list[Any]:
        """The evaluated list (kept in ``self._result``); a subclass builds it."""
        raise NotImplementedError(f"{type(self).__name__} does not say what evaluating gives")


def _queryset_of(other: Any) -> models.QuerySet:
    """The Django ``QuerySet`` behind ``other`` (a :class:`RecordedQuerySet` or a QuerySet)."""
    return other.queryset if isinstance(other, RecordedQuerySet) else other


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
