"""The Pony session of the current request, as the serving layer sees it.

What a serving layer (``tastypie_djony``) needs to know about Pony's
``db_session`` without touching Pony's internals: whether one is open, an
object by its key in it, and an object of an ended session brought into the
current one.  What a session keeps about the pages it loaded is
:mod:`djony.objects.pages`'.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from pony.orm.core import local as pony_local

from djony.objects.identity import is_entity_object
from djony.registry import entity_for


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


def session_cache(database: Any) -> Any:
    """The current Pony session's cache of ``database``, or ``None`` where the session has
    not used that database yet (asking Pony's ``_get_cache()`` would make one, which the
    session then commits when it ends: a read that never touches Pony needs none)."""
    return pony_local.db2cache.get(database)


def unflushed_changes(model: type[models.Model], alias: str | None = None) -> bool:
    """Whether the current session of ``model``'s database (``alias``) holds unflushed changes."""
    cache = session_cache(entity_for(model, alias)._database_)
    return cache is not None and bool(cache.modified)
