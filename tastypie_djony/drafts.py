"""A new object that Tastypie hydrates before Pony inserts it.

Pony inserts an entity as soon as it is constructed, and wants its required
attributes up front; Tastypie instead makes an empty object and sets
attributes one at a time (``full_hydrate``), reading back model defaults for
fields the client did not send.  :class:`Draft` bridges the two: scalar
values live on an unsaved Django instance (so defaults and ``pre_save``
behave exactly as for ``ModelResource``), relation values are kept as Pony
objects, and :meth:`Draft.save` creates the entity (parents first for
multi-table inheritance).  After saving, the draft forwards every attribute
to the new entity.
"""

from __future__ import annotations

import functools
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models

try:  # Django 5.0+
    from django.db.models.expressions import DatabaseDefault
except ImportError:  # Django 4.2 has no db_default

    class DatabaseDefault:  # type: ignore[no-redef]
        """Stands in for Django 5's marker of a value left to the database."""


from djony.registry import entity_for, write_alias


class Draft:
    """An unsaved object of ``model``, hydrated by Tastypie, inserted by Pony."""

    def __init__(self, model: type[models.Model]) -> None:
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_instance", None)
        object.__setattr__(self, "_relations", {})
        object.__setattr__(self, "_extra", {})
        object.__setattr__(self, "_entity", None)

    # -- attribute access -------------------------------------------------
    _meta: Any = None  # set on the per-model subclass made by new_draft()

    @property
    def instance(self) -> models.Model:
        """The unsaved Django instance holding scalar values and defaults."""
        if self._instance is None:
            object.__setattr__(self, "_instance", self._model())
        return self._instance

    def _relation_field(self, name: str) -> models.Field | None:
        try:
            field = self._model._meta.get_field(name)
        except FieldDoesNotExist:
            return None
        return field if field.is_relation else None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if self._entity is not None:
            return getattr(self._entity, name)
        if name in self._relations:
            return self._relations[name]
        if name in self._extra:
            return self._extra[name]
        field = self._relation_field(name)
        if field is not None:
            value = self._relation_default(field)
            if value is None and _required_relation(field):
                # What Django's descriptor raises for an unset relation of a new instance.
                raise getattr(self._model, name).RelatedObjectDoesNotExist(
                    f"{self._model._meta.object_name} has no {name}."
                )
            return value
        if name == "pk" or _is_field(self._model, name):
            return getattr(self.instance, name)
        raise AttributeError(f"{self._model._meta.object_name} draft has no attribute {name!r}")

    def _relation_default(self, field: models.Field) -> Any:
        if field.many_to_one or (field.one_to_one and field.concrete):
            raw = getattr(self.instance, field.attname)
            if raw is None:
                return None
            entity = entity_for(field.related_model, write_alias(self._model))
            if field.target_field != field.related_model._meta.pk:
                return entity.get(**{field.target_field.name: raw})
            return entity._get_by_raw_pkval_((raw,))
        return None

    def __setattr__(self, name: str, value: Any) -> None:
        if self._entity is not None:
            setattr(self._entity, name, unwrap(value))
        elif self._relation_field(name) is not None:
            self._relations[name] = value
        elif name == "pk" or _is_field(self._model, name):
            setattr(self.instance, name, value)
        else:
            self._extra[name] = value

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<Draft {self._model._meta.label}>"

    @property
    def is_saved(self) -> bool:
        return self._entity is not None

    # -- saving -----------------------------------------------------------
    def save(self) -> Any:
        """Insert the object through Pony (once) and return the entity."""
        if self._entity is None:
            object.__setattr__(self, "_entity", self._insert(self._model))
        return self._entity

    def _insert(self, model: type[models.Model]) -> Any:
        entity = entity_for(model, write_alias(model))
        values: dict[str, Any] = {}
        for parent, link in model._meta.parents.items():
            if link is not None:
                values[link.name] = self._insert(parent)
        instance = self.instance
        for field in model._meta.local_concrete_fields:
            if field.name in values:
                continue
            if field.is_relation and field.target_field != field.related_model._meta.pk:
                # A ForeignKey(to_field=...): djony maps the raw column (attname).
                related = self._relations.get(field.name)
                raw = getattr(instance, field.attname)
                if related is not None:
                    raw = getattr(related, field.target_field.attname)
                values[field.attname] = raw
                continue
            if field.is_relation:
                value = unwrap(self._relations.get(field.name, self._relation_default(field)))
                if value is not None and not hasattr(value, "_pkval_"):
                    value = entity_for(field.related_model, write_alias(model))[value.pk]
            else:
                value = field.pre_save(instance, add=True)
                if isinstance(value, DatabaseDefault):
                    continue  # left to the database; djony's entity reads it back on use
                if value is None:
                    if field.primary_key:
                        continue
                else:
                    # Django's own conversion on save: the same values, the same
                    # ValidationError messages for bad input ("2023-02-30").
                    value = prepare(field, value)
            values[field.name] = value
        obj = entity(**values)
        obj.flush()
        return obj


@functools.cache
def _with_meta(base: type, model: type[models.Model]) -> type:
    """A subclass of ``base`` whose ``_meta`` is the model's, as a Django instance's class.

    Code written for Django instances reads ``obj.__class__._meta`` (Tastypie's
    ``DjangoAuthorization``).
    """
    return type(f"{model.__name__}{base.__name__}", (base,), {"_meta": model._meta})


def new_draft(model: type[models.Model]) -> Draft:
    """An empty unsaved object of ``model``."""
    return _with_meta(Draft, model)(model)


def _required_relation(field: Any) -> bool:
    """A non-null ForeignKey/OneToOne, or a reverse one-to-one: Django raises when unset."""
    if field.concrete:
        return (field.many_to_one or field.one_to_one) and not field.null
    return field.one_to_one


def _is_field(model: type[models.Model], name: str) -> bool:
    try:
        model._meta.get_field(name)
    except FieldDoesNotExist:
        return any(f.attname == name for f in model._meta.concrete_fields)
    return True


class DjangoValues:
    """An existing entity being updated: values converted and held as Django would.

    Tastypie sets raw request values (``"1 day, 0:00:00"`` for a duration);
    a Django instance converts them on save with the field's
    ``get_prep_value``.  This wrapper does that conversion before Pony sees
    the value, keeps a new related object that is not saved yet (Tastypie's
    ``save_related`` saves it and sets it again) and forwards everything else
    to the entity.  Made per model by :func:`editing` (``_meta`` on the class).
    """

    _meta: Any = None

    def __init__(self, entity: Any) -> None:
        object.__setattr__(self, "entity", entity)
        object.__setattr__(self, "pending", {})

    def __getattr__(self, name: str) -> Any:
        if name in self.pending:
            return self.pending[name]
        return getattr(self.entity, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Draft) and not value.is_saved:
            self.pending[name] = value  # a nested new object, saved by save_related
            return
        self.pending.pop(name, None)
        value = unwrap(value)
        field = _concrete_scalar(type(self.entity)._meta.model, name)
        if field is not None and value is not None:
            value = prepare(field, value)
        setattr(self.entity, name, value)

    def __bool__(self) -> bool:
        return True


def prepare(field: models.Field, value: Any) -> Any:
    """A request value as the Django field saves it (parsed, made aware, named)."""
    if isinstance(value, str) and not isinstance(field, (models.CharField, models.TextField)):
        value = field.to_python(value)
    return field.get_prep_value(value)


def editing(entity: Any) -> DjangoValues:
    """``entity`` wrapped for ``full_hydrate``."""
    return _with_meta(DjangoValues, type(entity)._meta.model)(entity)


def _concrete_scalar(model: type[models.Model], name: str) -> models.Field | None:
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    return field if field.concrete and not field.is_relation else None


def unwrap(obj: Any) -> Any:
    """The Pony entity behind a saved draft (or ``obj`` itself)."""
    if isinstance(obj, Draft) and obj.is_saved:
        return obj._entity
    if isinstance(obj, DjangoValues):
        return obj.entity
    return obj
