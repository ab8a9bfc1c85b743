"""The Pony session of the current request, as the serving layer sees it.

What a serving layer (``tastypie_djony``) needs to know about Pony's
``db_session`` without touching Pony's internals: whether one is open, an
object by its key in it, an object of an ended session brought into the
current one, and the one store a session keeps about the pages it loaded
(:func:`pages_of`, :func:`pages_of_model`), which a write drops.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from pony.orm.core import local as pony_local

from djony.instances import is_entity_object

#: The attribute of a Pony session cache that holds what djony keeps for it.
_PAGES = "djony_pages"


def session_active() -> bool:
    """Whether the current thread is inside a Pony ``db_session``."""
    return pony_local.db_session is not None


def object_by_key(entity: Any, key: Any) -> Any:
    """The object of ``entity`` with primary key ``key``, not loaded until read."""
    return entity._get_by_raw_pkval_((key,))


def adopt(obj: Any) -> Any:
    """``obj`` in the current session: an object of an ended session is loaded again."""
    if obj is None or not is_entity_object(obj):
        return obj
    cache = obj._session_cache_
    if cache is not None and cache.is_alive:
        return obj
    return type(obj)._get_by_raw_pkval_(obj._get_raw_pkval_())


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
    from djony.registry import entity_for

    return _store(entity_for(model)._database_._get_cache())


def forget_pages(obj: Any) -> None:
    """Drop what ``obj``'s session keeps about its pages (after a write changed relations)."""
    cache = obj._session_cache_
    pages = getattr(cache, _PAGES, None) if cache is not None else None
    if pages:
        pages.clear()


def unflushed_changes(model: type[models.Model], alias: str | None = None) -> bool:
    """Whether the current session of ``model``'s database (``alias``) holds unflushed changes."""
    from djony.registry import entity_for

    return bool(entity_for(model, alias)._database_._get_cache().modified)
