"""What a block's pages set on querysets and loaded into instances, let go at its end.

A page's readers are methods set on a related queryset instance (``get()``, ``count()``,
an evaluation that loads for the page: :mod:`djony.objects.page_gets`), each holding
the queryset it answers for, and a relation a page loads leaves a queryset in each
owner's relation cache, which holds its owner as Django's related querysets do.  Both
are reference cycles: left alone, the page's objects outlive the request until the
garbage collector finds them, and a page of a few hundred instances makes the collector
run often, and its full collections long (a seventh of a nested list page's time).

Inside :func:`letting_go` (a ``DjonyResource`` request), the querysets armed and the
pages that loaded are noted; at its end each armed queryset gets Django's own methods
back and each page's loads leave their owners' caches, so the request's objects are freed
as soon as nothing refers to them.  An object that outlives the request (a hook that
kept it) answers from then on as Django answers: its relations are read again on use.
Outside such a block nothing is noted and the cycles stay for the collector, as before.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

#: Inside :func:`letting_go`: the querysets armed (a weak reference and the attribute names
#: set on it) and the pages that loaded a relation; ``None`` outside.
_noted: ContextVar[tuple[list, list] | None] = ContextVar("djony_let_go", default=None)


def note_armed(queryset: Any, names: tuple[str, ...]) -> None:
    """Note that ``names`` were set on ``queryset``'s own ``__dict__`` (djony's methods)."""
    noted = _noted.get()
    if noted is not None:
        noted[0].append((weakref.ref(queryset), names))


def note_loaded(page: Any) -> None:
    """Note that ``page`` (``djony.objects.peers``' page, with ``unload_all()``) loaded a
    relation into its owners' caches."""
    noted = _noted.get()
    if noted is not None:
        noted[1].append(page)


@contextmanager
def letting_go() -> Iterator[None]:
    """Inside: what pages arm and load is noted, and let go at the end (see the module)."""
    armed: list[tuple[weakref.ref, tuple[str, ...]]] = []
    pages: list[Any] = []
    token = _noted.set((armed, pages))
    try:
        yield
    finally:
        _noted.reset(token)
        for page in pages:
            page.unload_all()
        for ref, names in armed:
            queryset = ref()
            if queryset is not None:
                own = queryset.__dict__
                for name in names:
                    own.pop(name, None)
