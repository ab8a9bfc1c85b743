"""Pickling entity objects (a cache of ``bundle.obj``), as Django instances pickle.

:func:`reduce` is an entity's ``__reduce__``: an object pickles as its model's
label, its database alias and its column values, and :func:`restore` gives it
back: the object of that row in the Pony session being unpickled into, or a
Django instance of the row outside any session.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import models
from pony.orm.core import Entity as PonyEntity
from pony.orm.core import local as pony_local
from pony.orm.core import unpickle_entity

from djony.bridge.connection import alias_of
from djony.registry import entity_for


def reduce(self: Any) -> tuple:
    """Pickle as (model label, database alias, column values): see :func:`restore`."""
    if self._status_ in ("created", "modified", "inserted", "updated") or self.pk is None:
        # Pony's own refusal: a changed object has to be stored first.
        return PonyEntity.__reduce__(self)
    values = {}
    for attr, value in self._vals_.items():
        if attr.is_collection:
            continue
        if isinstance(value, PonyEntity):
            value = ("pk", value._get_raw_pkval_())
        values[attr.name] = value
    return restore, (self._meta.concrete_model._meta.label, alias_of(self._database_), values)


def restore(label: str, alias: str, values: dict[str, Any]) -> Any:
    """The object :func:`reduce` pickled: in a Pony session, that session's object.

    Outside any session (a cache read in a plain Django view) it is a Django
    instance of the same row and values (columns the object did not carry are
    deferred, loaded by Django when read).
    """
    model = apps.get_model(label)
    if pony_local.db_session is None:
        return _django_instance(model, alias, values)
    entity = entity_for(model, alias)
    state: dict[str, Any] = {"__class__": entity}
    for name, value in values.items():
        if type(value) is tuple and len(value) == 2 and value[0] == "pk":
            target = entity._adict_[name].py_type
            value = target._get_by_raw_pkval_(value[1])
        state[name] = value
    return unpickle_entity(state)


def _django_instance(model: type[models.Model], alias: str, values: dict[str, Any]) -> Any:
    """A Django instance of ``model`` from an entity object's pickled ``values``."""
    attnames, row = [], []
    for field in model._meta.concrete_fields:
        if field.name not in values:
            continue
        value = values[field.name]
        if type(value) is tuple and len(value) == 2 and value[0] == "pk":
            value = value[1][0] if len(value[1]) == 1 else value[1]
        attnames.append(field.attname)
        row.append(value)
    return model.from_db(alias, attnames, row)
