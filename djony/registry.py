"""One Pony ``Database`` per Django database alias, built once per process: state and lookups.

The mapping is built on first use (not at import or ``ready()`` time), under
a lock, and then shared by every thread: a Pony ``Database`` is thread-safe,
only a ``db_session`` belongs to one thread.  :func:`db` returns the database
for an alias; :func:`entity_for` the entity of one model, in the database
Django's routers pick for reads.  What builds a database is handed in by
``DjonyConfig.ready()`` (:func:`use_builder`, :func:`djony.build.build`), so
this module imports nothing of djony's: everything else may use it.

Routers: reads follow ``db_for_read`` and writes go to ``db_for_write``.
Inside :func:`writing` (a write request of ``DjonyResource``) reads of the
models written there come from the write database too, in the request's
transaction, so a request reads its own writes even where the read
database is a replica that has not seen them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, models, router

if TYPE_CHECKING:
    from pony.orm import Database

#: Builds the database of an alias: its Pony ``Database`` and model -> entity table.
Builder = Callable[[str], "tuple[Database, dict[type[models.Model], Any]]"]

_builder: Builder | None = None
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


def use_builder(builder: Builder) -> None:
    """Build each alias's database with ``builder`` from now on (called by ``ready()``).

    ``DjonyConfig.ready()`` gives :func:`djony.build.build`; a test that maps the
    models differently may give its own (and :func:`reset` what was built).
    """
    global _builder
    _builder = builder


def _build(alias: str) -> Database:
    if _builder is None:
        raise ImproperlyConfigured(
            'djony builds its mapping once its app is ready: add "djony" to INSTALLED_APPS.'
        )
    database, entities = _builder(alias)
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


def has_entity_subclasses(model: type[models.Model]) -> bool:
    """Whether ``model``'s entity has subclasses (multi-table children, whose objects it holds)."""
    return bool(entity_for(model)._subclasses_)


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


def reset() -> None:
    """Forget every mapping (for tests that change settings the mapping reads)."""
    with _lock:
        _databases.clear()
        _entities.clear()
