"""Queries compiled once for every value of one filter: one store, one invalidation rule.

A detail (the URI's value), a nested page's one related row (its key) and a detail's
related keys (the owner's key) each run a query that is the same in every request
but for one value.  Compiling it costs more than running it, so each place that runs
one keeps a :class:`KeptForValue`: what was compiled for it
(:class:`~djony.serving.OneValueQuery`, whose SQL keeps the value a parameter, or a
filtered queryset to copy), per key (database, lookup, columns ...), at most
``DJONY_CACHE_SIZE`` entries.  Each entry remembers the queryset it was compiled from:
when the place's queryset is another object (``Meta.queryset`` replaced), the entry is
compiled again.  A compile that answers ``None`` (the query may change between requests,
:func:`djony.objects.independent.request_independent`) is kept too: that query is
compiled for every request, as Django does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import models

from djony.serving import KeptQueries, NotKeptForValue, OneValueQuery

#: What :meth:`KeptForValue.rows_source` answers: the kept query and this value's parameters.
Compiled = tuple[OneValueQuery, tuple]


class NotServedByKept(Exception):
    """Raised by a place's kept-SQL source when the kept SQL does not serve this request's
    value (before any SQL ran): the caller reads its filtered list instead."""


class KeptForValue:
    """What one place compiled once, per key, each entry tied to the queryset it came from."""

    def __init__(self) -> None:
        self._store = KeptQueries()

    def get(self, key: Any, origin: Any, build: Callable[[], Any]) -> Any:
        """The entry of ``key`` compiled from ``origin``; built (and kept) when there is none.

        ``build`` may raise :class:`~djony.serving.NotKeptForValue` (this request's value
        decides nothing: the next one compiles); nothing is kept then.
        """
        entry = self._store.get(key)
        if entry is None or entry[0] is not origin:
            value = build()
            self._store[key] = (origin, value)
            return value
        return entry[1]

    def query_for(
        self,
        key: Any,
        origin: Any,
        base: Callable[[], models.QuerySet],
        name: str,
        value: Any,
        finish: Callable[[models.QuerySet], models.QuerySet],
        alias: str,
    ) -> Compiled | None:
        """``finish(base().filter(<name>=value))`` compiled once: the query and ``value``'s
        parameters, or ``None`` (before any SQL ran) when the kept SQL does not serve it."""
        try:
            compiled = self.get(
                key, origin, lambda: OneValueQuery.compile(base, name, value, finish)
            )
        except NotKeptForValue:
            return None
        if compiled is None or compiled.alias != alias:
            return None
        params = compiled.params_for(value)
        return None if params is None else (compiled, params)

    def entries(self) -> list[tuple[Any, Any, Any]]:
        """``(key, origin, compiled)`` of what is kept, least recently used first."""
        return [(key, origin, value) for key, (origin, value) in list(self._store.items())]

    def __deepcopy__(self, memo: dict) -> KeptForValue:
        return type(self)()  # what a query holds is not for copying: a copy compiles its own
