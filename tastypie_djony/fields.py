"""``SetField`` and the page-aware to-one: related fields whose URIs need no related object.

Stock ``ToManyField`` calls ``getattr(obj, attribute).all()`` and builds each related
object's URI with its resource's ``get_resource_uri``: one query per object and one
``reverse()`` per related object.  When the related field shows URIs only (no
``full``, Tastypie's own ``dehydrate_related``) and the related resource's URIs are a
function of the key (:func:`~tastypie_djony.uris.uris_of`), :class:`SetField` builds
them from the related keys the page loader read for the whole page, in the related
manager's order, and :class:`DjonyToOneField` from the foreign key the object's row
holds: both ask the field's key source (:func:`tastypie_djony.sources.object_source`), the
one the row-built plans use.  Anything else is Tastypie's own code on the Django
instance, whose relation caches the page loaders filled (``prefetch_related``).

``DjonyResource`` turns every ``ToManyField`` and ``ToOneField`` it declares into these
(a subclass of yours keeps its own methods first, :func:`with_mixin`), so both spellings
behave the same.
"""

from __future__ import annotations

from typing import Any

from tastypie.bundle import Bundle
from tastypie.fields import ToManyField, ToOneField

from tastypie_djony.afterwrites import forget_after_writes
from tastypie_djony.mode import is_write
from tastypie_djony.sources import OWN_CODE, object_source


class SetField(ToManyField):
    """Many related resources; their URIs from the page's related keys."""

    djony_kind = "to_many"

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        forget_after_writes()  # (a hook of this bundle's wrote: the relation is read again)
        if not is_write(bundle.request):
            value = object_source(self).from_object(bundle, for_list)
            if value is not OWN_CODE:
                return value
        return super().dehydrate(bundle, for_list=for_list)


class DjonyToOneField(ToOneField):
    """A ``ToOneField`` whose URI comes from the foreign key its object's row holds."""

    djony_kind = "to_one"

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        forget_after_writes()  # (a hook of this bundle's wrote: the relation is read again)
        if not is_write(bundle.request):
            value = object_source(self).from_object(bundle)
            if value is not OWN_CODE:
                return value
        return super().dehydrate(bundle, for_list=for_list)


def as_to_one_field(field: ToOneField) -> ToOneField:
    """Give a declared ``ToOneField`` the page-aware behaviour, keeping overrides."""
    return with_mixin(field, DjonyToOneField, ToOneField)


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
        attrs = {"__module__": cls.__module__, "djony_mixed": True}
        mixed = type(cls.__name__, (cls, behaviour), attrs)
        _MIXED_CLASSES[(cls, behaviour)] = mixed
    field.__class__ = mixed
    return field
