"""The Python-side attributes djony adds to entities, beyond Pony's columns.

Properties for what Pony cannot declare itself (a relation to a
``to_field``, a many-to-many ``through`` model, a parent's field on a
multi-table child, a field djony cannot map), ``obj.pk`` as on a Django
instance, and a constructor accepting what ``Model.objects.create()`` does.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from pony.orm import select
from pony.orm.core import Entity as PonyEntity

from djony import inheritance
from djony.codegen import attribute_path, compile_lambda


def inherited_property(link: str, path: tuple[str, ...]) -> property:
    """A property reading and writing ``self.<link>.<path...>``.

    The getter is compiled (see :mod:`djony.codegen`) so that Pony, which
    decompiles a property's bytecode, can translate it inside queries.
    """
    getter = compile_lambda("self", "self." + attribute_path(link, *path))

    def setter(self: Any, value: Any) -> None:
        owner = getattr(self, link)
        for name in path[:-1]:
            owner = getattr(owner, name)
        setattr(owner, path[-1], value)

    return property(getter, setter)


def _get_pk(self: Any) -> Any:
    pk = self.get_pk()
    # A relation primary key (multi-table child) is the parent's key, as in Django.
    return pk.get_pk() if hasattr(pk, "get_pk") else pk


#: ``obj.pk`` as on a Django instance (Tastypie and most hooks read it).
pk_property = property(_get_pk)


def constructor(
    label: str,
    links: list[tuple[str, str]],
    to_fields: dict[str, tuple[str, str]],
    unmapped: dict[str, str],
) -> Any:
    """An entity ``__init__`` accepting what ``Model.objects.create()`` accepts.

    Parent fields of a multi-table child create the parent rows; a
    ``to_field`` relation takes the related object; a field djony cannot
    map is refused with the reason.
    """

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        for name in unmapped.keys() & kwargs.keys():
            raise NotImplementedError(f"{label}.{name} is not mapped by djony: {unmapped[name]}.")
        for name, (attname, target_field) in to_fields.items():
            if name in kwargs:
                value = kwargs.pop(name)
                kwargs[attname] = None if value is None else getattr(value, target_field)
        inheritance.create_parents(type(self), kwargs, links)
        PonyEntity.__init__(self, *args, **kwargs)

    return __init__


def unmapped_property(model: type[models.Model], field: models.Field, reason: str) -> property:
    def fail(self: Any, *args: Any) -> Any:
        raise NotImplementedError(
            f"{model._meta.label}.{field.name} is not mapped by djony: {reason}."
        )

    return property(fail, fail)


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
