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

from tastypie.bundle import Bundle
from tastypie.exceptions import ApiFieldError
from tastypie.fields import RelatedField, ToManyField

from tastypie_djony.related import Relation, related_keys, related_objects


class SetField(ToManyField):
    """Many related resources, loaded for a whole page at once."""

    def relation(self) -> Relation | None:
        """The to-many relation behind ``attribute``, if it is a plain relation name."""
        model = self._resource._meta.object_class
        return Relation.find(model, self.attribute)

    def dehydrate(self, bundle: Bundle, for_list: bool = True) -> Any:
        relation = self.relation()
        if relation is None:
            return super().dehydrate(bundle, for_list=for_list)
        if not bundle.obj or not bundle.obj.pk:
            if not self.null:
                raise ApiFieldError(
                    "The model '%r' does not have a primary key and can not be used in a "
                    "ToMany context." % bundle.obj
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


    def _uris_without_objects(self, bundle: Bundle, for_list: bool, relation: Relation) -> list | None:
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


def as_set_field(field: ToManyField) -> ToManyField:
    """Give a declared ``ToManyField`` the ``SetField`` behaviour, keeping overrides."""
    cls = type(field)
    if issubclass(cls, SetField):
        return field
    if cls is ToManyField:
        field.__class__ = SetField
    else:
        field.__class__ = type(cls.__name__, (cls, SetField), {"__module__": cls.__module__})
    return field
