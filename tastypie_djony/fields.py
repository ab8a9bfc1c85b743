"""``SetField``: a ``ToManyField`` that reads related lists through Pony.

Stock ``ToManyField`` calls ``getattr(obj, attribute).all()``, one query per
object and Django's ordering.  ``SetField`` reads the list that the page
loader stored for the object (see :mod:`tastypie_djony.related`), in the
related model's ``Meta.ordering``, and falls back to one ordered query when
the object was not loaded as part of a page.

``DjonyResource`` turns every ``ToManyField`` it declares into a ``SetField``
(a subclass of yours, when you subclassed ``ToManyField``), so both
spellings behave the same.  Attributes that are callables or ``a__b`` paths
keep Tastypie's own behaviour.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db.models.fields.files import FieldFile
from tastypie.bundle import Bundle
from tastypie.exceptions import ApiFieldError
from tastypie.fields import FileField, RelatedField, ToManyField, ToOneField

from tastypie_djony.related import (
    Relation,
    ToOneRelation,
    related_keys,
    related_objects,
    stored_to_one,
)


def _relation_of(field: Any, kind: type) -> Any:
    """``kind.find`` for the field's model and attribute, looked up once per field."""
    cache = field.__dict__.setdefault("_djony_relations", {})
    if kind not in cache:
        cache[kind] = kind.find(field._resource._meta.object_class, field.attribute)
    return cache[kind]


class SetField(ToManyField):
    """Many related resources, loaded for a whole page at once."""

    def relation(self) -> Relation | None:
        """The to-many relation behind ``attribute``, if it is a plain relation name."""
        return _relation_of(self, Relation)

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        relation = self.relation()
        if relation is None:
            return super().dehydrate(bundle, for_list=for_list)
        if not bundle.obj or not bundle.obj.pk:
            if not self.null:
                raise ApiFieldError(
                    f"The model '{bundle.obj!r}' does not have a primary key and can not be "
                    "used in a ToMany context."
                )
            return []
        uris = self._uris_without_objects(bundle, for_list, relation)
        if uris is not None:
            return uris
        return [
            self.dehydrate_related(
                Bundle(obj=related, request=bundle.request),
                self.get_related_resource(related),
                for_list=for_list,
            )
            for related in related_objects(relation, bundle.obj)
        ]

    def _uris_without_objects(
        self, bundle: Bundle, for_list: bool, relation: Relation
    ) -> list | None:
        """The related URIs straight from the keys, when nothing else is asked for."""
        if self.should_full_dehydrate(bundle, for_list):
            return None
        if type(self).dehydrate_related is not RelatedField.dehydrate_related:
            return None
        builder = getattr(self.get_related_resource(None), "detail_uri_builder", None)
        build = builder() if builder is not None else None
        if build is None:
            return None
        keys = related_keys(relation, bundle.obj)
        if not all(type(key) is int for key in keys):
            return None
        return [build(key) for key in keys]


class DjonyToOneField(ToOneField):
    """A ``ToOneField`` that reads the related object the page loader stored.

    Without a stored value (an object not loaded as part of a page) it is
    Tastypie's own ``ToOneField``.
    """

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        relation = _relation_of(self, ToOneRelation)
        stored, related = stored_to_one(relation, bundle.obj) if relation else (False, None)
        if not stored:
            return super().dehydrate(bundle, for_list=for_list)
        if related is None:
            if not self.null:
                raise ApiFieldError(
                    f"The model '{bundle.obj!r}' has an empty attribute '{self.attribute}' and "
                    "doesn't allow a null value."
                )
            return None
        return self.dehydrate_related(
            Bundle(obj=related, request=bundle.request),
            self.get_related_resource(related),
            for_list=for_list,
        )


def as_to_one_field(field: ToOneField) -> ToOneField:
    """Give a declared ``ToOneField`` the stored-relation behaviour, keeping overrides."""
    return _with_mixin(field, DjonyToOneField, ToOneField)


class DjonyFileField(FileField):
    """Tastypie's ``FileField`` for Pony objects, which hold the file's name.

    Wraps the name in Django's ``FieldFile`` so ``url`` (and the ``None`` for
    an empty file) come out as they do for a Django instance.
    """

    model_field: Any = None

    def convert(self, value: Any) -> Any:
        if isinstance(value, str) and self.model_field is not None:
            value = FieldFile(None, self.model_field, value)
        return super().convert(value)


def as_file_field(field: FileField, model: type) -> FileField:
    """Give a stock ``FileField`` over a model file field the Pony-aware ``convert``."""
    if type(field) is not FileField or not isinstance(field.attribute, str):
        return field
    try:
        model_field = model._meta.get_field(field.attribute)
    except FieldDoesNotExist:
        return field
    field.__class__ = DjonyFileField
    field.model_field = model_field
    return field


def as_set_field(field: ToManyField) -> ToManyField:
    """Give a declared ``ToManyField`` the ``SetField`` behaviour, keeping overrides."""
    return _with_mixin(field, SetField, ToManyField)


_MIXED_CLASSES: dict[tuple[type, type], type] = {}


def _with_mixin(field: Any, behaviour: type, stock: type) -> Any:
    """Switch ``field`` to ``behaviour``; a subclass of ``stock`` keeps its own methods first."""
    cls = type(field)
    if issubclass(cls, behaviour):
        return field
    if cls is stock:
        field.__class__ = behaviour
        return field
    mixed = _MIXED_CLASSES.get((cls, behaviour))
    if mixed is None:
        mixed = type(cls.__name__, (cls, behaviour), {"__module__": cls.__module__})
        _MIXED_CLASSES[(cls, behaviour)] = mixed
    field.__class__ = mixed
    return field
