"""The builder: one Pony ``Database`` per Django alias, declared, bound and generated.

:func:`build` makes the database of one alias: every installed model declared
as an entity (:mod:`djony.mapping`), the database bound to Django's connection
of the alias (:mod:`djony.bridge.connection`), Pony's mapping generated
without creating or checking tables, and rows read again as Django reads them
(:mod:`djony.objects.rereads`).  The registry calls it, once per alias and
process, under its lock: ``DjonyConfig.ready()`` hands it over with
:func:`djony.registry.use_builder`, so the registry imports nothing above it.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import models
from pony.orm import Database

from djony.bridge import connection
from djony.mapping.entities import declare_entities
from djony.objects.rereads import read_as_django


def build(alias: str) -> tuple[Database, dict[type[models.Model], Any]]:
    """The Pony ``Database`` over Django's ``alias``, and its model -> entity table."""
    database = Database()
    entities = declare_entities(database, list(apps.get_models(include_auto_created=False)))
    connection.bind(database, alias)
    database.generate_mapping(check_tables=False, create_tables=False)
    read_as_django(database)
    return database, entities
