"""One Pony ``Database`` per Django database alias, built once per process.

The mapping is built on first use (not at import or ``ready()`` time), under
a lock, and then shared by every thread: a Pony ``Database`` is thread-safe,
only a ``db_session`` belongs to one thread.  :func:`db` returns the database
for an alias; :func:`entity_for` the entity of one model, in the database
Django's routers pick for reads.
"""

from __future__ import annotations

import threading
from typing import Any

from django.apps import apps
from django.db import DEFAULT_DB_ALIAS, models, router
from pony.orm import Database

from djony import connection
from djony.mapping import EntityInfo, declare_entities

_lock = threading.Lock()
_databases: dict[str, Database] = {}
_entities: dict[str, dict[type[models.Model], Any]] = {}


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
    database = Database()
    database.djony_alias = alias
    entities = declare_entities(database, list(apps.get_models(include_auto_created=False)))
    connection.bind(database, alias)
    database.generate_mapping(check_tables=False, create_tables=False)
    _entities[alias] = entities
    _databases[alias] = database
    return database


def alias_of(database: Database) -> str:
    """The Django alias a Pony ``Database`` of djony's serves."""
    return database.djony_alias


def entities(alias: str = DEFAULT_DB_ALIAS) -> dict[type[models.Model], Any]:
    """Model -> entity for every mapped model of ``alias``."""
    db(alias)
    return _entities[alias]


def entity_for(model: type[models.Model], alias: str | None = None) -> Any:
    """The entity over ``model``'s table (a proxy's is its concrete model's)."""
    concrete = model._meta.concrete_model
    if alias is None:
        # Asked about the model itself (a proxy too), as Django's querysets ask.
        alias = router.db_for_read(model) or DEFAULT_DB_ALIAS
    try:
        return entities(alias)[concrete]
    except KeyError:
        raise LookupError(
            f"{model._meta.label} has no Pony entity: djony maps concrete models of "
            "installed apps only (abstract and swapped-out models have none)."
        ) from None


def info_for(model: type[models.Model], alias: str | None = None) -> EntityInfo:
    """What djony knows about the mapping of ``model`` (paths, unmapped fields)."""
    return entity_for(model, alias)._djony_info_


def reset() -> None:
    """Forget every mapping (for tests that change settings the mapping reads)."""
    with _lock:
        _databases.clear()
        _entities.clear()
