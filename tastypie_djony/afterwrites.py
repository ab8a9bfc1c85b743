"""Pages of objects read before a hook wrote: what they read of their relations is forgotten.

``ModelResource`` reads each object's relations when Tastypie dehydrates its bundle, so a
hook that writes (a ``dehydrate()`` that updates, a ``save()``, a ``get_or_create()``
that creates) changes what the page's later objects and fields show.  A
``DjonyResource`` page's loaders read those relations for the whole page when its
objects are built.  Inside a read request (:func:`watching_pages`), each page of objects
built is noted with the moment it was read (:func:`page_read`); before Tastypie
dehydrates a bundle, and before one of djony's related fields reads its object's
relation, :func:`forget_after_writes` makes every page that saw a write since forget
what its objects hold of their relations (``djony.serving.forget_loads``: but what their
queryset's own ``select_related``/``prefetch_related`` filled, as Django keeps those):
their next read of a relation runs after the write.  The bundle plan watches its own
rows the same way (``tastypie_djony.sources.nested.Prepared.wrote``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from djony.serving import forget_loads, kept_by, writes_since


class _ReadPage:
    """A page of objects and the moment it was read."""

    __slots__ = ("objects", "queryset", "keep", "read")

    def __init__(self, objects: list[Any], queryset: Any, keep: dict, read: Any) -> None:
        self.objects = objects
        self.queryset = queryset
        #: What else they keep (a nested page's owner: ``tastypie_djony.sources.nested``).
        self.keep = keep
        self.read = read


#: The pages of objects read in this read request (``None`` outside one).
_pages: ContextVar[list[_ReadPage] | None] = ContextVar("tastypie_djony_pages", default=None)


@contextmanager
def watching_pages() -> Iterator[None]:
    """Inside (a read request, in a ``djony.serving.watching_writes`` block): the pages of
    objects built are noted, to forget what they read after a write."""
    token = _pages.set([])
    try:
        yield
    finally:
        _pages.reset(token)


def forget(objects: list[Any], queryset: Any, keep: dict) -> None:
    """Make ``objects`` (read by ``queryset``) forget what they hold of their relations, but
    what ``queryset`` fills and ``keep`` names (``djony.serving.forget_loads``)."""
    forget_loads(objects, {**kept_by(queryset), **keep})


def page_read(objects: list[Any], queryset: Any, keep: dict) -> None:
    """Note ``objects``, just built by ``queryset`` with their page loaders; ``keep``: what
    they keep after a write besides what ``queryset`` fills (:func:`forget`)."""
    pages = _pages.get()
    if pages is None or not objects:
        return
    read = writes_since()
    if read is not None:
        pages.append(_ReadPage(objects, queryset, keep, read))


def forget_after_writes() -> None:
    """Make each page that saw a write since it was read forget what its objects hold of
    their relations (once per write: it is read again from now)."""
    pages = _pages.get()
    if not pages:
        return
    for page in pages:
        if page.read.wrote():
            forget(page.objects, page.queryset, page.keep)
            page.read = writes_since()
