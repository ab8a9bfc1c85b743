"""The Python-side attributes djony adds to entities, beyond Pony's columns.

Properties for what Pony cannot declare itself (a relation to a
``to_field``, a many-to-many ``through`` model, a parent's field on a
multi-table child, a field djony cannot map), ``obj.pk`` as on a Django
instance, and a constructor accepting what ``Model.objects.create()`` does.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from pony.orm import Optional, Required, Set, select
from pony.orm.core import Entity as PonyEntity

from djony import inheritance, managers
from djony.bridge.connection import alias_of
from djony.codegen import attribute_path, compile_lambda
from djony.sessions import pages_of


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
    """A field djony cannot map: read through Django (a column), never written through Pony.

    Reading a column (``ArrayField``, a custom field of an unknown type) gives what
    Django reads, ``from_db_value`` applied, for every object of the page in one query
    (:func:`django_column`); a relation to a model without an entity, and any
    assignment, raise ``NotImplementedError`` with the reason.
    """

    def fail(self: Any, *args: Any) -> Any:
        raise NotImplementedError(
            f"{model._meta.label}.{field.name} is not mapped by djony: {reason}."
        )

    if field.is_relation or not field.concrete:
        return property(fail, fail)
    return property(lambda self: django_column(self, field), fail)


def django_column(obj: Any, field: models.Field) -> Any:
    """``field``'s value of ``obj``'s row as Django reads it, loaded for the object's page."""
    if obj.pk is None or obj._status_ in ("created", "cancelled"):
        return field.get_default()
    page = obj._djony_page
    cache = pages_of(obj) if page is not None else None
    values = cache.get((page, field.attname)) if cache is not None else None
    if values is None:
        objects = page.objects if cache is not None else [obj]
        rows = (
            field.model._base_manager.db_manager(registry_alias(obj))
            .filter(pk__in=[item.pk for item in objects])
            .values_list("pk", field.attname)
        )
        values = dict(rows)
        if cache is not None:
            cache[(page, field.attname)] = values
    return values.get(obj.pk)


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


class _AcceptsDjangoInstances:
    """A relation attribute that also takes a Django instance (by its key).

    ``bundle.obj.owner = bundle.request.user`` works as on a Django instance.
    """

    __slots__ = ()

    def validate(self, val: Any, obj: Any = None, entity: Any = None, from_db: bool = False) -> Any:
        val = managers.as_entity(val, self.py_type)
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
            val = managers.as_entity(val, self.py_type)  # an entity object stays as it is
        elif isinstance(val, (list, tuple, set, frozenset)):
            val = [managers.as_entity(item, self.py_type) for item in val]
        return super().validate(val, obj, entity, from_db)


def serve_descriptors(entity: Any, model: type[models.Model]) -> None:
    """``obj.<name>`` as the model's own descriptor gives it, for fields of third-party classes.

    django-countries' ``CountryField`` reads as a ``Country``, django-money's
    ``MoneyField`` as ``Money`` (its amount and currency columns together): the Pony
    attribute keeps the column (queries, rows), and the object's attribute is the
    model's descriptor run on a Django instance of the object's columns.
    """
    for field in model._meta.local_concrete_fields:
        value = model.__dict__.get(field.name)
        if field.is_relation or value is None or field.name not in entity._adict_:
            continue
        if type(value).__module__.startswith("django.") or not hasattr(value, "__get__"):
            continue
        setattr(entity, field.name, django_descriptor_property(entity, model, field.name))


def django_descriptor_property(entity: Any, model: type[models.Model], name: str) -> property:
    columns = [
        (field.attname, entity._adict_[field.attname])
        for field in model._meta.local_concrete_fields
        if not field.is_relation and field.attname in entity._adict_
    ]
    pk = model._meta.pk

    others = [(attname, attr) for attname, attr in columns if attname != pk.attname]
    attnames = [pk.attname] + [attname for attname, _ in others]

    def instance(self: Any) -> models.Model:
        values = [self.pk] + [attr.__get__(self) for _, attr in others]
        return model.from_db(registry_alias(self), attnames, values)

    def get(self: Any) -> Any:
        return getattr(instance(self), name)

    def set_(self: Any, value: Any) -> None:
        django = instance(self)
        setattr(django, name, value)
        for attname, attr in others:
            new = django.__dict__.get(attname)
            if new != attr.__get__(self):
                attr.__set__(self, new)

    return property(get, set_, doc=f"{name} as the model's descriptor gives it")


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

        from djony.registry import entity_for

        ct_id, object_id = getattr(self, ct_attname), getattr(self, field.fk_field)
        if ct_id is None or object_id is None:
            return None
        model = ContentType.objects.db_manager(registry_alias(self)).get_for_id(ct_id).model_class()
        if model is None:
            return None
        target = entity_for(model, registry_alias(self))
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
        content_type = ContentType.objects.db_manager(registry_alias(self)).get_for_model(
            model, for_concrete_model=field.for_concrete_model
        )
        setattr(self, ct_attname, content_type.pk)
        setattr(self, field.fk_field, value.pk)

    return property(get, set_, doc=f"The object {field.name} refers to (generic relation).")


def registry_alias(obj: Any) -> str:
    return alias_of(obj._database_)
