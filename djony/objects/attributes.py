"""The Python-side attributes djony adds to entities, beyond Pony's columns and relations.

``obj.pk`` as on a Django instance, a constructor accepting what
``Model.objects.create()`` does, a field djony cannot map (read through
Django, never written), and a third-party field's own descriptor
(django-countries, django-money).  Relations are :mod:`djony.objects.relations`',
a parent's fields on a multi-table child :mod:`djony.objects.inheritance`'.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from pony.orm.core import Entity as PonyEntity

from djony.bridge.connection import alias_of
from djony.objects import inheritance
from djony.objects.pages import pages_of


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
            field.model._base_manager.db_manager(alias_of(obj._database_))
            .filter(pk__in=[item.pk for item in objects])
            .values_list("pk", field.attname)
        )
        values = dict(rows)
        if cache is not None:
            cache[(page, field.attname)] = values
    return values.get(obj.pk)


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
        return model.from_db(alias_of(self._database_), attnames, values)

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
