"""``SetField`` and the page-aware to-one: related fields whose URIs need no related object.

Stock ``ToManyField`` calls ``getattr(obj, attribute).all()`` and builds each related
object's URI with its resource's ``get_resource_uri``: one query per object and one
``reverse()`` per related object.  When the related field shows URIs only (no
``full``, Tastypie's own ``dehydrate_related``) and the related resource's URIs are a
function of the key (:func:`~tastypie_djony.uris.uris_of`), :class:`SetField` builds
them from the related keys the page loader read for the whole page
(:func:`~tastypie_djony.related.related_keys`), in the related manager's order, and
:class:`DjonyToOneField` from the foreign key the object's row holds; anything else is
Tastypie's own code on the Django instance, whose relation caches the page loaders
filled (``prefetch_related``).

``DjonyResource`` turns every ``ToManyField`` and ``ToOneField`` it declares into these
(a subclass of yours keeps its own methods first), so both spellings behave the same.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db.models.fields.files import FieldFile
from tastypie import fields as tastypie_fields
from tastypie.bundle import Bundle
from tastypie.fields import FileField, RelatedField, ToManyField, ToOneField

from tastypie_djony.mode import is_write
from tastypie_djony.nulls import empty_attribute, related_may_be_absent
from tastypie_djony.related import Relation, ToOneRelation, related_keys
from tastypie_djony.uris import uris_of


def _relation_of(field: Any, kind: type) -> Any:
    """``kind.find`` for the field's model and attribute, looked up once per field."""
    cache = field.__dict__.setdefault("_djony_relations", {})
    if kind not in cache:
        cache[kind] = kind.find(field._resource._meta.object_class, field.attribute)
    return cache[kind]


def uris_without_objects(field: Any, bundle: Bundle, for_list: bool, target: type) -> Any:
    """``(build, key_field)`` when ``field``'s related URIs come from keys alone, else ``None``.

    Not for a ``full`` field on this page nor an overridden ``dehydrate_related``: they
    need the related objects.
    """
    if field.should_full_dehydrate(bundle, for_list):
        return None
    if type(field).dehydrate_related is not RelatedField.dehydrate_related:
        return None
    uris = uris_of(field.get_related_resource(None))
    key_field = uris.key_field(target)
    if not uris.from_key or key_field is None:
        return None
    return uris.builder(), key_field


class SetField(ToManyField):
    """Many related resources; their URIs from the page's related keys."""

    def relation(self) -> Relation | None:
        """The to-many relation behind ``attribute``, if it is a plain relation name."""
        return _relation_of(self, Relation)

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        relation = self.relation()
        owner = bundle.obj
        if is_write(bundle.request) or relation is None or not owner or not owner.pk:
            return super().dehydrate(bundle, for_list=for_list)
        plain = uris_without_objects(self, bundle, for_list, relation.target)
        if plain is None:
            return super().dehydrate(bundle, for_list=for_list)
        build, key_field = plain
        return [build(key) for key in related_keys(relation, owner, key_field)]


class DjonyToOneField(ToOneField):
    """A ``ToOneField`` whose URI comes from the foreign key its object's row holds."""

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        relation = _relation_of(self, ToOneRelation)
        obj = bundle.obj
        if is_write(bundle.request) or relation is None or not relation.plain_forward:
            return super().dehydrate(bundle, for_list=for_list)
        plain = uris_without_objects(self, bundle, for_list, relation.target)
        if plain is None:
            return super().dehydrate(bundle, for_list=for_list)
        build, key_field = plain
        field = relation.model_field
        held = getattr(obj, "__dict__", {})
        if key_field != field.target_field.name or field.attname not in held:
            return super().dehydrate(bundle, for_list=for_list)
        key = held[field.attname]
        if key is None:
            if not related_may_be_absent(self):
                raise empty_attribute(obj, self.attribute)
            return None
        return build(key)


def as_to_one_field(field: ToOneField) -> ToOneField:
    """Give a declared ``ToOneField`` the page-aware behaviour, keeping overrides."""
    return with_mixin(field, DjonyToOneField, ToOneField)


class DjonyFileField(FileField):
    """Tastypie's ``FileField``, also for a value that is the file's name.

    Wraps a name in Django's ``FieldFile`` so ``url`` (and the ``None`` for an
    empty file) come out as they do for a Django instance's value.
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
