"""What a Tastypie resource treats as its object list: a Django ``QuerySet``, served lazily.

:class:`DjonyObjectList` offers the part of the ``QuerySet`` API Tastypie and
authorization classes use (``filter``, ``exclude``, ``order_by``, slicing,
``count``, ``len``, iteration, ``.model``, ``none``, ``delete`` ...).  Every
chained call is recorded on a Django ``QuerySet``, which compiles Django lookups
(``author__name__istartswith``, ``published__week_day``, ``tags__name__in`` ...) to
SQL for the current backend, with every user value as a query parameter, so
filters mean exactly what they mean to ``ModelResource`` on every backend.

The objects it hands out are the model's Django instances, built as Django's own
iterable builds them (``Model.from_db``: ``type(obj) is Model``, ``save()``,
``_state``, every method as written); its page loaders fill their relation caches
for the whole page, as ``prefetch_related`` does (:mod:`tastypie_djony.related`).
The row-built plans read the same query's rows without objects
(:meth:`DjonyObjectList.values_rows`, :meth:`DjonyObjectList.rows_and_objects`,
which builds the objects from those rows only when code reads them).

Nothing a client sends is ever formatted into SQL or into a Pony query
string; Pony's query caches are not involved at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet, FieldDoesNotExist, FieldError
from django.db import connections, models
from django.db.models.constants import LOOKUP_SEP
from django.db.models.query import ModelIterable
from tastypie.exceptions import BadRequest, InvalidSortError

from djony.serving import (
    RecordedQuerySet,
    backends,
    evaluate_compiled,
    filtered_recipe,
    instance_builder,
    keep_filter,
    keep_sql,
    kept_filter,
    kept_sql,
    none_as_json_null,
    pin_reads,
    prefetch_page,
    recipe_then,
    shaped,
    track_peers,
    unflushed_changes,
)
from tastypie_djony.afterwrites import page_read
from tastypie_djony.declines import Fallback
from tastypie_djony.filtererrors import as_sql, lookup_errors_as_bad_request, read_refused


class DjonyObjectList(RecordedQuerySet):
    """A resource's object list: Django instances of a recorded ``QuerySet``, its errors 400s.

    What a client's filters, ordering or offsets break (an unknown lookup, a
    value the database refuses, an offset past what the database accepts)
    becomes Tastypie's ``BadRequest``/``InvalidSortError``, never a 500.
    ``loaders`` are called with the page's objects once it is evaluated (they fill
    the objects' relation caches, :func:`tastypie_djony.related.prefetch_loader`).
    """

    def __init__(self, queryset: models.QuerySet, *args: Any, **kwargs: Any) -> None:
        super().__init__(pin_reads(queryset), *args, **kwargs)  # a write request reads its writes
        #: The relations its objects keep after a hook wrote, besides their queryset's own
        #: (:mod:`tastypie_djony.afterwrites`).
        self.keep: dict = {}

    @property
    def _result_cache(self) -> list[Any] | None:
        """The objects once evaluated, else ``None``: a QuerySet's attribute of that name.

        Project code written for QuerySets reads it (an ``authorized_read_list`` that
        checks whether the list was evaluated; Tastypie's own tests do).
        """
        return self._result

    @property
    def _prefetch_related_lookups(self) -> tuple:
        """What the recorded queryset prefetches (Django's serializers read it)."""
        return self.queryset._prefetch_related_lookups

    def filter(self, *args: Any, **kwargs: Any) -> DjonyObjectList:
        self._check_filterable(args, kwargs)
        with lookup_errors_as_bad_request():
            kwargs = none_as_json_null(self.queryset.query, kwargs)
            recipe = filtered_recipe(self.recipe, args, kwargs)
            if not kwargs and recipe is not None and not self.queryset._defer_next_filter:
                # Django's own QuerySet and Query (a recipe is kept for nothing else):
                # filter() with nothing adds an empty Q, a copy (Tastypie's apply_filters
                # on every page without filters).
                return self._chain(self.queryset._chain(), recipe)
            queryset = kept_filter(self.recipe, recipe, self.queryset)
            if queryset is None:
                queryset = self.queryset.filter(*args, **kwargs)
                keep_filter(self.recipe, recipe, self.queryset, queryset)
            return self._chain(queryset, recipe)

    def exclude(self, *args: Any, **kwargs: Any) -> DjonyObjectList:
        self._check_filterable(args, kwargs)
        with lookup_errors_as_bad_request():
            kwargs = none_as_json_null(self.queryset.query, kwargs)
            return self._chain(self.queryset.exclude(*args, **kwargs))

    def _check_filterable(self, args: tuple, kwargs: dict) -> None:
        """A list the resource sliced cannot be filtered: the resource's bug, not the client's.

        Django's own ``TypeError`` ("Cannot filter a query once a slice has been taken."),
        a 500 as with ``ModelResource``: a ``get_object_list()`` returning
        ``Model.objects.all()[:100]`` fails every detail and filtered list.
        """
        if (args or kwargs) and self.queryset.query.is_sliced:
            self.queryset.filter(*args, **kwargs)  # raises Django's TypeError

    def order_by(self, *fields: str) -> DjonyObjectList:
        chained = self._chain(
            self.queryset.order_by(*fields), recipe_then(self.recipe, "order_by", fields)
        )
        probe = chained.queryset.all()  # compiling adds joins to the query: use a copy
        try:
            probe.query.get_compiler(self.queryset.db).get_order_by()
        except FieldError:
            # Django's message lists the model's columns: not for clients.
            names = ", ".join(repr(str(field).lstrip("-")) for field in fields)
            raise InvalidSortError(f"Cannot order by {names}: no such field.") from None
        return chained

    # The objects are Django's: what shapes them is recorded, as on a QuerySet.
    def select_related(self, *fields: Any) -> DjonyObjectList:
        return self._chain(self.queryset.select_related(*fields))

    def prefetch_related(self, *lookups: Any) -> DjonyObjectList:
        return self._chain(self.queryset.prefetch_related(*lookups))

    def defer(self, *fields: Any) -> DjonyObjectList:
        return self._chain(self.queryset.defer(*fields))

    def only(self, *fields: Any) -> DjonyObjectList:
        return self._chain(self.queryset.only(*fields))

    def __getitem__(self, key: int | slice) -> Any:
        if self._result is None and isinstance(key, slice):
            start, stop = key.start or 0, key.stop
            most = backends.for_alias(self.queryset.db).max_rows
            if start > most:
                raise BadRequest(f"Invalid offset '{start}' provided: it must be at most {most}.")
            if stop is not None and stop > most:
                stop = None
            recipe = recipe_then(self.recipe, "slice", start, stop, key.step)
            return self._chain(self.queryset[start:stop], recipe)
        return super().__getitem__(key)

    # -- evaluation: Django instances ------------------------------------------
    def _fetch(self) -> list[Any]:
        if self._result is None and self.prefetched is not None:
            self._result = self.prefetched()
        if self._result is None:
            if issubclass(self.queryset._iterable_class, ModelIterable):
                self._result = self._instances()
                self._after_load()
            else:  # values()/values_list(): their dicts and tuples, as Django shapes them
                self._result = shaped(self.queryset, self.queryset._iterable_class, self.rows())
        return self._result

    def _after_load(self) -> None:
        for loader in self.loaders:
            loader(self._result)
        page_read(self._result, self.queryset, self.keep)

    def _instances(self, kept: Any = None) -> list[Any]:
        """The recorded queryset's objects, as Django's own iterable builds them.

        Polymorphic and other ``ModelIterable`` subclasses, ``select_related``,
        ``defer``/``only``, ``prefetch_related`` and known related objects all work as
        they do for ``ModelResource``.  What the client's filters broke is a 400 (the
        SQL is compiled here first, once), and so is a value the database refuses.
        ``kept``: this query compiled before (``(OneValueQuery, params)``, a detail's).
        Its ``prefetch_related`` lookups are read after the objects, as Django's would be,
        by kept SQL where they can (``djony.serving.prefetch_page``).
        """
        queryset = self.queryset._chain()
        lookups = queryset._prefetch_related_lookups
        if not lookups:
            return self._evaluated(queryset, kept)
        queryset._prefetch_related_lookups = ()
        found = self._evaluated(queryset, kept)
        with connections[queryset.db].execute_wrapper(self._refusals_as_bad_request):
            prefetch_page(found, lookups)
        return found

    def _evaluated(self, queryset: models.QuerySet, kept: Any) -> list[Any]:
        """:meth:`_instances` of ``queryset`` (a copy of the list's), prefetching aside."""
        if kept is not None:
            kept_query, params = kept
            self._flush()
            with connections[queryset.db].execute_wrapper(self._refusals_as_bad_request):
                return kept_query.objects(queryset, params)
        if kept is None:
            kept = kept_sql(self.recipe, "objects", queryset.query, queryset.db)
        if kept is not None:
            return self._evaluated(queryset, kept)
        compiler = queryset.query.get_compiler(queryset.db)
        try:
            compiled = self._sql(compiler)
        except EmptyResultSet:
            return []
        keep_sql(self.recipe, "objects", queryset, compiler, compiled)
        self._flush()
        with connections[queryset.db].execute_wrapper(self._refusals_as_bad_request):
            return evaluate_compiled(queryset, compiler, compiled)

    def _refusals_as_bad_request(
        self, execute: Callable, sql: str, params: Any, many: bool, context: dict
    ) -> Any:
        try:
            return execute(sql, params, many, context)
        except Exception as exc:
            refused = self._refusal(exc)
            if refused is None:
                raise
            raise refused from None

    def _builds_from_rows(self) -> bool:
        """Whether the objects Django would build come from the model's columns alone.

        Then :meth:`rows_and_objects` builds them from its own rows; a queryset that
        joins related rows in (``select_related``), defers columns, knows related
        objects (a related manager's), builds other classes (polymorphic) or prefetches
        a relation through a queryset of its own (:func:`own_prefetches`) gets its objects
        from Django's own iterable instead.
        """
        queryset = self.queryset
        query = queryset.query
        return (
            queryset._iterable_class is ModelIterable
            and not query.select_related
            and query.deferred_loading == (frozenset(), True)
            and not queryset._known_related_objects
            and not own_prefetches(queryset)
        )

    def _row_attributes(self, fields: list[str]) -> list[str] | None:
        """The attribute of Django's objects that holds each of ``fields``, or ``None``.

        For a list whose objects Django's own iterable builds (:meth:`_builds_from_rows`
        is false: ``select_related``, known related objects): each of the model's
        columns, by name or attname, and each annotation is an attribute its objects
        hold once built, so their one query gives the rows too.  ``None`` when one is
        not loaded with them (a deferred column, a related row's column).
        """
        query = self.queryset.query
        if query.deferred_loading != (frozenset(), True):
            return None
        meta = self.queryset.model._meta
        selected = {*query.extra_select, *query.annotation_select}
        attributes = []
        for name in fields:
            if name == "pk":
                attributes.append(meta.pk.attname)
                continue
            if name in selected:
                attributes.append(name)
                continue
            try:
                field = meta.get_field(name)
            except FieldDoesNotExist:
                return None
            if not field.concrete:
                return None
            attributes.append(field.attname)
        return attributes

    def values_rows(self, fields: list[str], kept: Any = None) -> list[tuple]:
        """The row-built paths' rows; a ``values()`` list is served as ModelResource serves
        it (its dicts or tuples reach Tastypie), so those paths decline it.

        An unordered list selects the columns Django's own query selects (then the
        others asked for): the database returns rows in an order of its choosing, which
        follows the query (PostgreSQL's plan, MariaDB's covering index), so the same
        query gives the order ModelResource's page has.
        """
        self._check_objects()
        if own_prefetches(self.queryset):
            raise Fallback  # the objects' Prefetch decides what their relations hold
        if not self.queryset.ordered:
            return self.rows_and_objects(fields, kept, from_objects=False)[0]
        return super().values_rows(fields, kept)

    def rows_and_objects(
        self, fields: list[str], kept: Any = None, from_objects: bool = True
    ) -> tuple[list[tuple], Callable[[], list[Any]]]:
        """Rows of ``fields`` now, and this list's objects later, from one query.

        The rows are what :meth:`values_rows` gives.  The query selects the model's
        columns as Django's own query does (so an unordered list comes in the order
        Django's query gives it), then ``fields`` not among them, then annotations;
        calling the second value builds the Django instances iterating this list would
        give, from those rows, runs the loaders and makes them this list's result.  So a
        page can be served from its values and still hand out its objects, once, only
        if some code asks for them.  Only for an unevaluated list of objects.

        Where Django's own iterable builds the objects (``select_related``, known related
        objects: :meth:`_builds_from_rows`), its one query gives them now and the rows are
        their attributes; so do objects loaded with others' (``prefetched``: a page's
        joined related objects), when they hold every one of ``fields``.
        ``from_objects=False`` (rows wanted, objects never): always the rows' own query.
        """
        self._check_objects()
        if self._result is not None:
            raise ValueError("rows_and_objects() needs an unevaluated object list")
        from_rows = self._builds_from_rows()
        attributes = None
        if from_objects and (self.prefetched is not None or not from_rows):
            attributes = self._row_attributes(fields)  # not for a plain page's rows
        if self.prefetched is not None and attributes is not None:
            found = self.prefetched()  # loaded with others' (joined into a page's rows)
            if loaded(found, attributes):
                return self._rows_of(found, attributes)
        queryset = self.queryset
        if queryset.query.is_empty():
            return [], self._adopt_objects(list)
        if not from_rows and attributes is not None:
            kept_objects = getattr(kept, "objects", None)
            found = self._instances(None if kept_objects is None else kept_objects())
            return self._rows_of(found, attributes)  # Django's one query: both
        if own_prefetches(queryset):
            raise Fallback  # the rows' sources would read what its Prefetch narrows
        model = queryset.model
        init_list = [field.attname for field in model._meta.concrete_fields]
        query = queryset.query
        extras = [*query.extra_select, *query.annotation_select]
        columns = list(init_list)
        wanted = [self._column_name(name, columns, extras) for name in fields]
        selected = [*columns, *extras]
        compiled = kept(selected) if kept is not None and not extras else None
        finish = ("values_list", tuple(selected))
        if compiled is None:
            compiled = kept_sql(self.recipe, finish, query, queryset.db)
        if compiled is not None:
            kept_query, params = compiled
            sql = kept_query.sql
            compiler, every = kept_query.converters()
        else:
            values = queryset.values_list(*selected)
            compiler = values.query.get_compiler(values.db)
            try:
                sql, params = self._sql(compiler)
            except EmptyResultSet:
                return [], self._adopt_objects(list)
            keep_sql(self.recipe, finish, values, compiler, (sql, params))
            expressions = [column[0] for column in compiler.select[: compiler.col_count]]
            every = compiler.get_converters(expressions)
        raw = self._in_session(lambda: self._execute(sql, params).fetchall())
        positions = [selected.index(name) for name in wanted]
        if from_rows:  # every column converted once, for the rows and the objects alike
            converters = every
        else:
            converters = {index: found for index, found in every.items() if index in positions}
        converted = list(compiler.apply_converters(raw, converters)) if converters else raw
        rows = [tuple(row[i] for i in positions) for row in converted]

        if not from_rows:
            return rows, self._adopt_objects(self._instances)
        db = queryset.db
        build = instance_builder(queryset)
        width = len(init_list)
        extras_at = len(columns)

        def objects() -> list[Any]:
            found = []
            for row in converted:
                obj = build(db, init_list, row[:width])
                for name, value in zip(extras, row[extras_at:], strict=True):
                    setattr(obj, name, value)
                found.append(obj)
            track_peers(queryset, found)
            if queryset._prefetch_related_lookups:
                prefetch_page(found, queryset._prefetch_related_lookups)
            return found

        return rows, self._adopt_objects(objects)

    def _rows_of(
        self, found: list[Any], attributes: list[str]
    ) -> tuple[list[tuple], Callable[[], list[Any]]]:
        """:meth:`rows_and_objects` of objects already built: their ``attributes``."""
        rows = [tuple(getattr(obj, name) for name in attributes) for obj in found]
        return rows, self._adopt_objects(lambda: found, found)

    def _adopt_objects(
        self, build: Callable[[], list[Any]], built: list[Any] | None = None
    ) -> Callable[[], list[Any]]:
        """A callable giving this list's objects (built, and its loaders run, on first call).

        Its ``built`` is the objects when they exist already (one query gave the rows and
        them), else ``None``: what a nested field may take its related objects from; its
        ``queryset`` the one they are read by and ``keep`` what else a write leaves in their
        relation caches (:func:`djony.serving.kept_by`, :mod:`tastypie_djony.afterwrites`).
        """

        def objects() -> list[Any]:
            if self._result is None:
                self._result = build()
                self._after_load()
            return self._result

        objects.built = built
        objects.queryset = self.queryset
        objects.keep = self.keep
        return objects

    def _check_objects(self) -> None:
        if self.queryset._iterable_class is not ModelIterable:
            raise Fallback

    def _sql(self, compiler: Any) -> tuple[str, tuple]:
        return as_sql(compiler)

    def _execute(self, sql: str, params: Any) -> Any:
        try:
            return super()._execute(sql, params)
        except Exception as exc:
            refused = self._refusal(exc)
            if refused is None:
                raise
            raise refused from None

    def _refusal(self, exc: BaseException) -> BadRequest | None:
        """The 400 for what the database refused of the client's input, or ``None``."""
        return read_refused(self.queryset.db, exc)


def own_prefetches(queryset: Any) -> bool:
    """Whether ``queryset`` prefetches a relation of its objects through a queryset of its
    own (``Prefetch("tags", queryset=...)``): then a field over that relation shows what
    the prefetch holds, which the page's key queries would not give."""
    return any(
        isinstance(lookup, models.Prefetch)
        and lookup.queryset is not None
        and lookup.to_attr is None
        and LOOKUP_SEP not in lookup.prefetch_through
        for lookup in queryset._prefetch_related_lookups
    )


def loaded(objects: list[Any], attributes: list[str]) -> bool:
    """Whether each of ``objects`` holds each of ``attributes`` (none is deferred)."""
    return all(name in vars(obj) for obj in objects for name in attributes)


def check_rows_serve(object_list: Any) -> None:
    """Raise :class:`~tastypie_djony.declines.Fallback` unless a plan may read ``object_list``'s
    rows: an unevaluated :class:`DjonyObjectList` in a session with no unflushed changes
    (objects deleted in it would be left out of the rows)."""
    if not isinstance(object_list, DjonyObjectList) or object_list._result is not None:
        raise Fallback
    if unflushed_changes(object_list.model, object_list.db):
        raise Fallback
