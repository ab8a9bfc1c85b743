"""Pages: the objects one query loaded together, and the one store a session keeps of them.

A :class:`Page` marks the objects a list loaded at once, so that a relation or
a column read on one of them is loaded for all of them in one query.  What is
loaded that way is kept in one store per Pony session (:func:`pages_of`,
:func:`pages_of_model`), for djony's managers and attributes and for the
serving layer's page loaders alike; a write through a related manager drops it
(:func:`forget_pages`), and it ends with the session.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from djony.registry import entity_for

#: The attribute of a Pony session cache that holds what djony keeps for it.
_PAGES = "djony_pages"


class Page:
    """The objects one query loaded together, so a relation read on one loads for all.

    ``obj.tags.all()`` on an object of a page of 100 runs one query for the
    tags of the 100 (see :func:`djony.objects.managers.page_related`), as a
    ``prefetch_related`` would, but only once some code reads it.
    """

    __slots__ = ("objects", "__weakref__")

    def __init__(self, objects: list[Any]) -> None:
        self.objects = objects

    @classmethod
    def mark(cls, objects: list[Any]) -> None:
        if len(objects) > 1:
            page = cls(objects)
            for obj in objects:
                obj._djony_page = page


def _store(cache: Any) -> dict | None:
    if cache is None or not cache.is_alive:
        return None
    pages = getattr(cache, _PAGES, None)
    if pages is None:
        pages = {}
        setattr(cache, _PAGES, pages)
    return pages


def pages_of(obj: Any) -> dict | None:
    """What the session ``obj`` belongs to keeps about its pages, if that session is alive."""
    return _store(obj._session_cache_)


def pages_of_model(model: type[models.Model]) -> dict:
    """What the current session of ``model``'s database keeps about its pages."""
    return _store(entity_for(model)._database_._get_cache())


def forget_pages(obj: Any) -> None:
    """Drop what ``obj``'s session keeps about its pages (after a write changed relations)."""
    cache = obj._session_cache_
    pages = getattr(cache, _PAGES, None) if cache is not None else None
    if pages:
        pages.clear()
