"""Which models djony maps, what it keeps about each, and the model of an object.

:func:`describe` gives one :class:`Description` per model, computed from its
``_meta`` the first time it is asked for and kept on that ``_meta`` (it only
reads fields, which do not change once the app registry is ready).
:func:`model_of` answers "which model is this a row of" for a Django instance
and for an object of a djony entity alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models.options import Options

#: The attribute of a model's ``_meta`` that holds its :class:`Description`.
_DESCRIPTION = "_djony_description"


def has_composite_key(model: type[models.Model]) -> bool:
    """Whether the primary key is a ``CompositePrimaryKey``, which djony leaves out."""
    return isinstance(model._meta.pk, models.CompositePrimaryKey)


def is_mapped(model: type[models.Model]) -> bool:
    """Whether ``model`` gets an entity: concrete, not a proxy, not swapped out, one-column key."""
    meta = model._meta
    concrete = not meta.abstract and not meta.proxy and not meta.swapped
    return concrete and not has_composite_key(model)


def mapped_models(all_models: list[type[models.Model]]) -> list[type[models.Model]]:
    """The models of ``all_models`` that get an entity (see :func:`is_mapped`), in order."""
    return [model for model in all_models if is_mapped(model)]


def model_of(obj: Any) -> type[models.Model] | None:
    """The model ``obj`` is a row of, as ``obj.__class__`` says for a Django instance.

    For an object of a djony entity, the model whose ``_meta`` it carries (a
    proxy's own for an object of a proxy's queryset); ``None`` for anything else.
    """
    cls = obj.__class__
    if isinstance(cls, type) and issubclass(cls, models.Model):
        return cls
    meta = getattr(cls, "_meta", None)
    return meta.model if isinstance(meta, Options) else None


def is_generic_foreign_key(field: Any) -> bool:
    """Whether ``field`` is a ``GenericForeignKey`` (or a field built like one)."""
    return hasattr(field, "ct_field") and hasattr(field, "fk_field") and not field.concrete


def instance_names(model: type[models.Model]) -> set[str]:
    """The names Django gives instances of ``model`` for its fields and relations."""
    names = set()
    for field in model._meta.get_fields(include_hidden=True):
        names.add(field.name)
        names.add(getattr(field, "attname", field.name))
        accessor = getattr(field, "get_accessor_name", None)
        if accessor is not None and accessor():
            names.add(accessor())
    return names


@dataclass(frozen=True)
class Description:
    """What djony reads from one model's ``_meta`` while serving objects, read once."""

    model: type[models.Model]
    #: The primary key, then the model's own unique columns that are not relations: what a
    #: stand-in instance of a row carries for Django's related managers (a ``to_field``
    #: may point at any of them).
    key_fields: tuple[models.Field, ...]


def describe(model: type[models.Model]) -> Description:
    """The :class:`Description` of ``model``, kept on its ``_meta``."""
    meta = model._meta
    description = meta.__dict__.get(_DESCRIPTION)
    if description is None:
        unique = [
            field
            for field in meta.local_concrete_fields
            if field.unique and not field.primary_key and not field.is_relation
        ]
        description = Description(model, (meta.pk, *unique))
        meta.__dict__[_DESCRIPTION] = description
    return description
