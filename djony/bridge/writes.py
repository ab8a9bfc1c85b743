"""Whether a connection ran anything but a read since a moment: rows read before it still hold.

What a read request keeps of the rows it read (a page's related rows that answer
``get()`` without a query, :mod:`djony.objects.page_gets`) holds only while nothing
could have changed them: :func:`watching` installs, for the length of a ``with`` block,
a Django ``execute_wrapper`` on each connection asked for (:func:`writes_on`) that
counts the statements that are not a ``SELECT`` (an ``INSERT``, an ``UPDATE``, a
savepoint, raw SQL of any kind: Django's and Pony's statements alike run through
Django's cursor); a kept read compares the count with the one it was read at.
Outside such a block nothing is watched and :func:`writes_on` answers ``None``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import connections


class WriteCount:
    """An ``execute_wrapper`` counting the statements on one connection that may write."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: dict) -> Any:
        if many or sql.lstrip()[:6].upper() != "SELECT":
            self.count += 1
        return execute(sql, params, many, context)


#: The watched connections of the current ``with watching()`` block: alias -> its count.
_watched: ContextVar[dict[str, WriteCount] | None] = ContextVar("djony_watched", default=None)


@contextmanager
def watching() -> Iterator[None]:
    """Inside: :func:`writes_on` counts the writes of each connection it is asked about."""
    counts: dict[str, WriteCount] = {}
    token = _watched.set(counts)
    try:
        yield
    finally:
        _watched.reset(token)
        for alias, count in counts.items():
            wrappers = connections[alias].execute_wrappers
            if count in wrappers:
                wrappers.remove(count)


def writes_on(alias: str) -> WriteCount | None:
    """The write count of ``alias``'s connection in this ``with watching()`` block
    (installed on first asking), or ``None`` outside one."""
    counts = _watched.get()
    if counts is None:
        return None
    count = counts.get(alias)
    if count is None:
        count = counts[alias] = WriteCount()
        connections[alias].execute_wrappers.append(count)
    return count


def written(read_alias: str, write_alias: str) -> int | None:
    """The writes seen so far on ``read_alias`` and, when it is another database (a
    router's primary), on ``write_alias``; ``None`` outside a :func:`watching` block.

    Rows read from ``read_alias`` at one such count still hold at the same count."""
    read = writes_on(read_alias)
    if read is None:
        return None
    if write_alias == read_alias:
        return read.count
    return read.count + writes_on(write_alias).count


class Since:
    """Whether a watched connection ran a write since a moment (:func:`since`)."""

    __slots__ = ("_at",)

    def __init__(self, counts: list[WriteCount]) -> None:
        self._at = [(count, count.count) for count in counts]

    def wrote(self) -> bool:
        """Whether any of the connections ran a write since the moment."""
        for count, at in self._at:
            if count.count != at:
                return True
        return False


def since() -> Since | None:
    """From now on, whether the connection of any database in ``DATABASES`` ran a write;
    ``None`` outside a :func:`watching` block.

    Every database, not only the one rows were read from: a router that reads from a
    replica sends a hook's ``save()`` to the primary, which the replica then shows."""
    counts = _watched.get()
    if counts is None:
        return None
    if len(counts) != len(connections.settings):
        for alias in connections:
            if alias not in counts:
                writes_on(alias)
    return Since(list(counts.values()))
