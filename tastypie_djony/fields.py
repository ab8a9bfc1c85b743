"""``SetField``: a ``ToManyField`` that reads related lists through Pony.

Stock ``ToManyField`` calls ``getattr(obj, attribute).all()``, one query per
object and Django's ordering.  ``SetField`` reads the list that the page
loader stored for the object (see :mod:`tastypie_djony.related`), in the
related model's ``Meta.ordering``, and falls back to one ordered query when
the object was not loaded as part of a page.

``DjonyResource`` turns every ``ToManyField`` it declares into a ``SetField``
(a subclass of yours, when you subclassed ``ToManyField``), so both
spellings behave the same.  An ``a__b`` path is walked as Tastypie walks it, and
the last relation read in manager order; callables keep Tastypie's behaviour.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import FieldDoesNotExist, ObjectDoesNotExist
from django.db.models.fields.files import FieldFile
from tastypie import fields as tastypie_fields
from tastypie.bundle import Bundle
from tastypie.fields import FileField, RelatedField, ToManyField, ToOneField

from djony.serving import model_of
from tastypie_djony.mode import is_write
from tastypie_djony.nulls import empty_attribute, no_primary_key, related_may_be_absent
from tastypie_djony.related import (
    Relation,
    ToOneRelation,
    related_keys,
    related_objects,
    related_objects_of,
    stored_to_one,
)
from tastypie_djony.uris import uris_of


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
        if is_write(bundle.request):  # Django instances, as ModelResource reads them
            return super().dehydrate(bundle, for_list=for_list)
        relation = self.relation()
        owner = bundle.obj
        if relation is None and isinstance(self.attribute, str) and "__" in self.attribute:
            return self._dehydrate_path(bundle, for_list)
        if relation is None:
            return super().dehydrate(bundle, for_list=for_list)
        if not owner or not owner.pk:
            if not related_may_be_absent(self):
                raise no_primary_key(owner)
            return []
        return self._dehydrate_relation(bundle, for_list, relation, owner, stored=True)

    def _dehydrate_path(self, bundle: Bundle, for_list: bool) -> Any:
        """``a__b``: Tastypie's walk to the last object, then its relation in manager order."""
        if not bundle.obj or not bundle.obj.pk:
            return super().dehydrate(bundle, for_list=for_list)
        *path, last = self._attrs
        owner, previous, attr = bundle.obj, bundle.obj, None
        for attr in path:
            previous = owner
            try:
                owner = getattr(owner, attr, None)
            except ObjectDoesNotExist:
                owner = None
            if owner is None:
                if not related_may_be_absent(self):
                    raise empty_attribute(previous, attr)
                return []
        model = model_of(owner)
        relation = Relation.find(model, last) if model is not None else None
        if relation is None:
            return super().dehydrate(bundle, for_list=for_list)
        return self._dehydrate_relation(bundle, for_list, relation, owner, stored=False)

    def _dehydrate_relation(
        self, bundle: Bundle, for_list: bool, relation: Relation, owner: Any, stored: bool
    ) -> list:
        uris = self._uris_without_objects(bundle, for_list, relation, owner, stored)
        if uris is not None:
            return uris
        related = (
            related_objects(relation, owner) if stored else related_objects_of(relation, owner.pk)
        )
        return [
            self.dehydrate_related(
                Bundle(obj=obj, request=bundle.request),
                self.get_related_resource(obj),
                for_list=for_list,
            )
            for obj in related
        ]

    def _uris_without_objects(
        self, bundle: Bundle, for_list: bool, relation: Relation, owner: Any, stored: bool
    ) -> list | None:
        """The related URIs straight from the keys, when nothing else is asked for."""
        if self.should_full_dehydrate(bundle, for_list):
            return None
        if type(self).dehydrate_related is not RelatedField.dehydrate_related:
            return None
        uris = uris_of(self.get_related_resource(None))
        key_field = uris.key_field(relation.target)
        if not uris.from_key or key_field is None:
            return None
        if stored and key_field == relation.target._meta.pk.name:
            keys = related_keys(relation, owner)
        else:
            keys = relation.related_keys([owner.pk], key_field)[owner.pk]
        build = uris.builder()
        return [build(key) for key in keys]


class DjonyToOneField(ToOneField):
    """A ``ToOneField`` that reads the related object the page loader stored.

    Without a stored value (an object not loaded as part of a page) it is
    Tastypie's own ``ToOneField``.
    """

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        if is_write(bundle.request):
            return super().dehydrate(bundle, for_list=for_list)
        relation = _relation_of(self, ToOneRelation)
        stored, related = stored_to_one(relation, bundle.obj) if relation else (False, None)
        if not stored:
            return super().dehydrate(bundle, for_list=for_list)
        if related is None:
            if not related_may_be_absent(self):
                raise empty_attribute(bundle.obj, self.attribute)
            return None
        return self.dehydrate_related(
            Bundle(obj=related, request=bundle.request),
            self.get_related_resource(related),
            for_list=for_list,
        )


def as_to_one_field(field: ToOneField) -> ToOneField:
    """Give a declared ``ToOneField`` the stored-relation behaviour, keeping overrides."""
    return with_mixin(field, DjonyToOneField, ToOneField)


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
    return with_mixin(field, SetField, ToManyField)


_MIXED_CLASSES: dict[tuple[type, type], type] = {}


def with_mixin(field: Any, behaviour: type, stock: type) -> Any:
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


#: Tastypie's other spellings of the stock related fields, which add nothing to them.
ALIASES = {
    "to_one": (tastypie_fields.ForeignKey, tastypie_fields.OneToOneField),
    "to_many": (tastypie_fields.ManyToManyField, tastypie_fields.OneToManyField),
}


def stock_related_class(field: Any) -> type | None:
    """``SetField`` or ``DjonyToOneField`` when ``field`` behaves exactly as that class.

    True of the class itself and of what :func:`with_mixin` made of Tastypie's aliases
    (``fields.ForeignKey(...)``, ``fields.ManyToManyField(...)`` ...), which define
    nothing of their own; ``None`` for any other class (a subclass of the user's).
    """
    kind = type(field)
    if kind is SetField or kind is DjonyToOneField:
        return kind
    for behaviour, name in ((DjonyToOneField, "to_one"), (SetField, "to_many")):
        aliases = ALIASES[name]
        if any(_MIXED_CLASSES.get((alias, behaviour)) is kind for alias in aliases):
            return behaviour
    return None
