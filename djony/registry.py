"""One Pony ``Database`` per Django database alias, built once per process.

The mapping is built on first use (not at import or ``ready()`` time), under
a lock, and then shared by every thread: a Pony ``Database`` is thread-safe,
only a ``db_session`` belongs to one thread.  :func:`db` returns the database
for an alias; :func:`entity_for` the entity of one model, in the database
Django's routers pick for reads.

Routers: reads follow ``db_for_read`` and writes go to ``db_for_write``.
Inside :func:`writing` (a write request of ``DjonyResource``) reads of the
models written there come from the write database too, in the request's
transaction, so a request reads its own writes even where the read
database is a replica that has not seen them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.db import DEFAULT_DB_ALIAS, models, router
from pony.orm import Database

from djony.bridge import connection

if TYPE_CHECKING:
    from djony.mapping import EntityInfo

_lock = threading.Lock()
_databases: dict[str, Database] = {}
_entities: dict[str, dict[type[models.Model], Any]] = {}
_writing: ContextVar[str | None] = ContextVar("djony_writing", default=None)


def db(alias: str = DEFAULT_DB_ALIAS) -> Database:
    """The Pony ``Database`` whose entities read and write Django's ``alias``."""
    database = _databases.get(alias)
    if database is None:
        with _lock:
            database = _databases.get(alias)
            if database is None:
                database = _build(alias)
    return database


def _build(alias: str) -> Database:
    from djony.mapping import declare_entities
    from djony.objects.rereads import read_as_django

    database = Database()
    entities = declare_entities(database, list(apps.get_models(include_auto_created=False)))
    connection.bind(database, alias)
    database.generate_mapping(check_tables=False, create_tables=False)
    read_as_django(database)
    _entities[alias] = entities
    _databases[alias] = database
    return database


def entities(alias: str = DEFAULT_DB_ALIAS) -> dict[type[models.Model], Any]:
    """Model -> entity for every mapped model of ``alias``."""
    db(alias)
    return _entities[alias]


def entity_for(model: type[models.Model], alias: str | None = None) -> Any:
    """The entity over ``model``'s table (a proxy's is its concrete model's)."""
    concrete = model._meta.concrete_model
    if alias is None:
        alias = read_alias(model)
    try:
        return entities(alias)[concrete]
    except KeyError:
        raise LookupError(
            f"{model._meta.label} has no Pony entity: djony maps concrete models of "
            "installed apps only (abstract and swapped-out models have none)."
        ) from None


def read_alias(model: type[models.Model]) -> str:
    """The database djony reads ``model`` from: the router's, or the write in progress."""
    # Asked about the model itself (a proxy too), as Django's querysets ask.
    pinned = _writing.get()
    if pinned is not None and write_alias(model) == pinned:
        return pinned
    return router.db_for_read(model) or DEFAULT_DB_ALIAS


def write_alias(model: type[models.Model]) -> str:
    """The database Django's routers send writes of ``model`` to."""
    return router.db_for_write(model) or DEFAULT_DB_ALIAS


@contextmanager
def writing(alias: str) -> Iterator[None]:
    """Read models whose writes go to ``alias`` from ``alias`` (a write request)."""
    token = _writing.set(alias)
    try:
        yield
    finally:
        _writing.reset(token)


def pin_reads(queryset: models.QuerySet) -> models.QuerySet:
    """``queryset`` reading from the write in progress (see :func:`writing`), if it applies.

    A queryset given a database with ``using()`` keeps it.
    """
    pinned = _writing.get()
    if pinned is None or queryset._db is not None or write_alias(queryset.model) != pinned:
        return queryset
    return queryset.using(pinned)


def info_for(model: type[models.Model], alias: str | None = None) -> EntityInfo:
    """What djony knows about the mapping of ``model`` (paths, unmapped fields)."""
    return entity_for(model, alias)._djony_info_


def reset() -> None:
    """Forget every mapping (for tests that change settings the mapping reads)."""
    with _lock:
        _databases.clear()
        _entities.clear()
