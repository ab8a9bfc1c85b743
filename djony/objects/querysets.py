"""``PonyQuerySet``: a recorded Django ``QuerySet`` whose objects Pony builds.

A :class:`~djony.objects.recorded.RecordedQuerySet` whose SQL selects the entity's
columns and whose objects are the Pony session's (or, for ``values()``/``values_list()``,
rows shaped by Django's converters).  So lookups, ordering and default managers mean
exactly what they mean to Django, and the objects are the ones in the Pony session.

Related managers (``obj.tags.all()``, see :mod:`djony.objects.managers`) are built on
it.  Evaluated outside a ``db_session``, a query opens one for its own rows; the loaded
values stay readable afterwards, and so do the objects their foreign keys name
(:func:`~djony.objects.rows.load_to_one`), as ``note.author.username`` reads on a Django
instance at any time.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db.models.query import ModelIterable

from djony.objects.pages import Page
from djony.objects.proxies import flavoured
from djony.objects.reader import Kept
from djony.objects.recorded import RecordedQuerySet
from djony.objects.rows import Rows, load_to_one, objects_from_rows, row_layout, shaped


class PonyQuerySet(RecordedQuerySet):
    """A lazy, chainable list of Pony objects (or value rows) described by a QuerySet."""

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
                entity._database_._get_cache()  # the session's cache the objects are made in
                found = [(obj, {}) for obj in entity._fetch_objects(Rows(raw), offsets)]
            else:
                found = objects_from_rows(entity, offsets, compiler, extras, raw)
            return self._loaded(found)

        return rows, self._adopt_objects(objects)

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
            entity._database_._get_cache()  # the session's cache the objects are made in
            return [
                (obj, {}) for obj in entity._fetch_objects(cursor, offsets, max_fetch_count=None)
            ]
        return objects_from_rows(entity, offsets, compiler, extras, cursor.fetchall())
