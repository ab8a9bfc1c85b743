"""Which values are djony's objects, and when two objects are the same row.

``isinstance(obj, TheModel)`` and ``isinstance(obj, models.Model)`` are true
for an object of a djony entity (:func:`install_instance_check`: Django's model
metaclass learns that an entity object is an instance of its model, of the
model's parents and of ``models.Model``), so Django's ORM takes the objects as
values of lookups and assignments (``filter(user=obj)``, ``Model(user=obj)``),
as do forms, ``model_to_dict``, serializers and
``ContentType.objects.get_for_model``.  Code that must tell the two kinds apart
asks :func:`is_entity_object` or :func:`is_django_instance`.

:func:`django_eq` and :func:`django_hash` are Django's ``Model.__eq__`` and
``__hash__`` for entity objects: equal to a Django instance of the same
concrete model and key, both ways.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models.base import ModelBase
from pony.orm.core import Entity as PonyEntity

_type_instancecheck = type.__instancecheck__


def _model_instancecheck(cls: type, instance: Any) -> bool:
    """``isinstance(instance, cls)`` for a model class ``cls``: Django's, or an entity object of it.

    An entity class names its model in ``_djony_model_`` (a proxy's flavour names the
    proxy), so the object is an instance of that model's classes, as a Django instance is.
    """
    kind = type(instance)
    if cls in kind.__mro__:
        return True
    model = kind.__dict__.get("_djony_model_")  # set on each entity class and flavour
    if model is not None:
        return cls in model.__mro__
    declared = getattr(instance, "__class__", kind)  # a proxy (SimpleLazyObject) names another
    if declared is kind or not isinstance(declared, type):
        return False
    if cls in declared.__mro__:
        return True
    model = declared.__dict__.get("_djony_model_")
    return model is not None and cls in model.__mro__


def install_instance_check() -> None:
    """Make Django's model metaclass take entity objects for instances of their model.

    Installed once, when djony declares its first entities; a model class of any
    app then answers ``isinstance`` for djony's objects as for its own instances.
    CPython asks ``__instancecheck__`` only when ``type(obj)`` is not the class
    itself, so the exact-class check Django does most stays free.
    """
    if ModelBase.__dict__.get("__instancecheck__") is not _model_instancecheck:
        ModelBase.__instancecheck__ = _model_instancecheck


def is_entity_object(value: Any) -> bool:
    """Whether ``value`` is an object of a djony entity (not a Django instance)."""
    return isinstance(value, PonyEntity)


def is_django_instance(value: Any) -> bool:
    """Whether ``value`` is an instance Django built (``isinstance`` without entity objects)."""
    return _type_instancecheck(models.Model, value)


def django_eq(self: Any, other: Any) -> Any:
    """Django's ``Model.__eq__``: same concrete model and same key (also with Django instances)."""
    if self is other:
        return True
    if not isinstance(other, (models.Model, PonyEntity)):
        return NotImplemented
    if self._meta.concrete_model is not other._meta.concrete_model:
        return False
    pk = self.pk
    if pk is None:
        return False
    return pk == other.pk


def django_hash(self: Any) -> int:
    """``hash(pk)`` as Django's, for objects whose key is known when Pony first sees them.

    Pony keeps objects in sets, some before their key is known (a new
    object); such an object keeps the identity hash it had then, for good.
    """
    fixed = self._djony_hash
    if fixed is not None:
        return fixed
    try:
        pkval = self._pkval_
    except AttributeError:  # Pony is registering the object: only its set of all objects
        return object.__hash__(self)
    if pkval is None or self._newid_ is not None:
        fixed = self._djony_hash = object.__hash__(self)
        return fixed
    return hash(pkval)
