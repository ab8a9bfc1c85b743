"""A Django ``QuerySet``'s rows, read on Pony's session and converted as Django converts them.

:class:`RowReader` runs the SQL Django compiles for a recorded queryset on the Pony
session's connection (Django's own, through Django's cursor: logged and counted as
Django's queries) and applies Django's converters (``from_db_value``) to the rows:
``rows()`` for a ``values_list()`` queryset, ``values_rows()`` for any columns of a list,
``compiled_rows()`` for SQL compiled before (:mod:`djony.objects.compiled`).  Evaluated
outside a ``db_session``, a query opens one for its own rows.

Override ``_sql``/``_execute`` to turn the errors of compiling or running a query into
your own (as ``tastypie_djony``'s object list turns a client's bad filter value into a
400).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections, models
from django.db.models.query import ModelIterable
from pony.orm import db_session
from pony.orm.core import local as pony_local

from djony.objects import shapes
from djony.objects.sessions import session_cache
from djony.registry import entity_for

#: Selected column names -> ``(OneValueQuery, params)``: a list's ``values_list(*names)``
#: compiled before (see :mod:`djony.objects.compiled`), or ``None`` to compile it now.
Kept = Callable[[list[str]], "tuple[Any, tuple] | None"]


class RowReader:
    """The rows of ``self.queryset`` (a Django ``QuerySet``) on Pony's session."""

    queryset: models.QuerySet
    #: How the list was made, when its SQL may be kept per shape (:mod:`djony.objects.shapes`).
    recipe: shapes.Recipe | None = None

    @property
    def entity(self) -> Any:
        return entity_for(self.queryset.model, self.queryset.db)

    def _flush(self) -> None:
        if pony_local.db_session is not None:
            cache = session_cache(self.entity._database_)
            if cache is not None:
                cache.flush()

    def _sql(self, compiler: Any) -> tuple[str, tuple]:
        """Django's SQL and parameters from ``compiler``; override to translate errors."""
        return compiler.as_sql()

    def _execute(self, sql: str, params: Any) -> Any:
        """Run ``sql`` on Django's connection of the list's database; override to translate
        errors.

        Pony's session shares that connection; when it holds changes not yet written
        (objects assigned or created through ``Model.p`` in this session), they are
        written first, through Pony, so the query sees them.
        """
        if pony_local.db_session is not None:
            cache = session_cache(self.entity._database_)
            if cache is not None and cache.modified:
                cursor = cache.prepare_connection_for_query_execution().cursor()  # flushes
                cursor.execute(sql, params)
                return cursor
        cursor = connections[self.queryset.db].cursor()
        cursor.execute(sql, params)
        return cursor

    def rows(self, finish: Any = None) -> list[tuple]:
        """The rows of a ``values_list()`` queryset, converted as Django converts them.

        ``finish``: the step that made this queryset of a recorded list's (its key among
        the SQL kept per shape, :func:`djony.objects.shapes.keep_sql`), if it is one.
        """
        compiler = self.queryset.query.get_compiler(self.queryset.db)
        try:
            sql, params = self._sql(compiler)
        except EmptyResultSet:
            return []
        if finish is not None:
            shapes.keep_sql(self.recipe, finish, self.queryset, compiler, (sql, params))
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
        compiler, converters = compiled.converters()
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
        return self.values_list_rows(fields)

    def values_list_rows(self, fields: list[str]) -> list[tuple]:
        """The rows of ``values_list(*fields)`` of this list (names or lookup paths), its
        SQL kept per recipe when it has one (:mod:`djony.objects.shapes`)."""
        finish = ("values_list", tuple(fields))
        compiled = shapes.kept_sql(self.recipe, finish, self.queryset.query, self.queryset.db)
        if compiled is not None:
            query, params = compiled
            return self.compiled_rows(query.sql, params, query)
        values = type(self)(self.queryset.values_list(*fields))
        values.recipe = self.recipe
        return values.rows(finish)

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

    def _column_name(self, name: str, columns: list[str], extras: list[str]) -> str:
        """``name`` as a selected column (``pk`` is the key's attname), added if missing."""
        if name == "pk":
            name = self.queryset.model._meta.pk.attname
        if name not in columns and name not in extras:
            columns.append(name)
        return name
