"""Relations on entity objects as on Django instances: what they accept and what they give.

Pony's relation attributes take entity objects; code written for Django
instances assigns Django instances (``bundle.obj.owner = request.user``), so
djony's relation classes (:class:`RelatedRequired`, :class:`RelatedOptional`,
:class:`RelatedSet`) take both (:func:`as_entity`).  What Pony cannot declare
as a relation is a property: a relation to a non-primary-key ``to_field``, a
many-to-many ``through`` model seen from a hidden side, ``obj.owner_id``
(Django's attname), a ``GenericForeignKey``.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from pony.orm import Optional, Required, Set, select

from djony.bridge.connection import alias_of
from djony.objects.codegen import attribute_path, compile_lambda
from djony.objects.identity import is_django_instance
from djony.registry import entity_for


def as_entity(value: Any, entity: Any) -> Any:
    """``value`` as an object of ``entity``: entity objects as they are, Django instances by key."""
    if is_django_instance(value):
        return entity._get_by_raw_pkval_((value.pk,), from_db=False)
    return value


class _AcceptsDjangoInstances:
    """A relation attribute that also takes a Django instance (by its key).

    ``bundle.obj.owner = bundle.request.user`` works as on a Django instance.
    """

    __slots__ = ()

    def validate(self, val: Any, obj: Any = None, entity: Any = None, from_db: bool = False) -> Any:
        val = as_entity(val, self.py_type)
        return super().validate(val, obj, entity, from_db)


class RelatedRequired(_AcceptsDjangoInstances, Required):
    __slots__ = ()


class RelatedOptional(_AcceptsDjangoInstances, Optional):
    __slots__ = ()


class RelatedSet(Set):
    """A to-many relation that also takes Django instances among its items."""

    __slots__ = ()

    def validate(self, val: Any, obj: Any = None, entity: Any = None, from_db: bool = False) -> Any:
        if isinstance(val, models.Model):
            val = as_entity(val, self.py_type)  # an entity object stays as it is
        elif isinstance(val, (list, tuple, set, frozenset)):
            val = [as_entity(item, self.py_type) for item in val]
        return super().validate(val, obj, entity, from_db)


def to_field_property(attname: str, target: str, target_field: str) -> property:
    """``obj.rel`` for a relation to a non-primary-key ``to_field``: read and write."""

    def get(self: Any) -> Any:
        value = getattr(self, attname)
        if value is None:
            return None
        entity = self._database_.entities[target]
        return entity.get(**{target_field: value})

    def set_(self: Any, value: Any) -> None:
        setattr(self, attname, None if value is None else getattr(value, target_field))

    return property(get, set_)


def through_property(through: str, source_link: str, target_link: str) -> property:
    """The related objects of a many-to-many relation with an explicit ``through`` model.

    A Pony query over the ``through`` entity: the rows whose ``source_link``
    is this object, projected on their ``target_link``.
    """
    query = compile_lambda(
        "rows, obj",
        f"select(row.{attribute_path(target_link)} for row in rows "
        f"if row.{attribute_path(source_link)} == obj)",
        {"select": select},
    )

    def get(self: Any) -> Any:
        return query(self._database_.entities[through], self)

    return property(get)


def attname_property(name: str) -> property:
    """``obj.owner_id`` for the relation ``owner``: the related key, read without a query."""

    def get(self: Any) -> Any:
        related = getattr(self, name)
        return None if related is None else related.pk

    def set_(self: Any, value: Any) -> None:
        if value is None:
            setattr(self, name, None)
            return
        target = type(self)._adict_[name].py_type
        setattr(self, name, target._get_by_raw_pkval_((value,), from_db=False))

    return property(get, set_, doc=f"The key of {name}, as Django's attname.")


def generic_foreign_key_property(field: Any) -> property:
    """``obj.content_object`` of a ``GenericForeignKey``: read and write, as Django's."""
    ct_attname = field.model._meta.get_field(field.ct_field).attname

    def get(self: Any) -> Any:
        from django.contrib.contenttypes.models import ContentType

        ct_id, object_id = getattr(self, ct_attname), getattr(self, field.fk_field)
        if ct_id is None or object_id is None:
            return None
        alias = alias_of(self._database_)
        model = ContentType.objects.db_manager(alias).get_for_id(ct_id).model_class()
        if model is None:
            return None
        target = entity_for(model, alias)
        # As Django's: a key of the wrong type raises, a missing row is None.
        key = model._meta.pk.to_python(object_id)
        return target.get(**{target._pk_attrs_[0].name: key})

    def set_(self: Any, value: Any) -> None:
        from django.contrib.contenttypes.models import ContentType

        if value is None:
            setattr(self, ct_attname, None)
            setattr(self, field.fk_field, None)
            return
        model = value._meta.model
        content_type = ContentType.objects.db_manager(alias_of(self._database_)).get_for_model(
            model, for_concrete_model=field.for_concrete_model
        )
        setattr(self, ct_attname, content_type.pk)
        setattr(self, field.fk_field, value.pk)

    return property(get, set_, doc=f"The object {field.name} refers to (generic relation).")
