"""Tastypie's ``tastypie.contrib.contenttypes`` on Pony objects.

``GenericForeignKeyField`` picks the related resource by the related
object's model (``to={Note: NoteResource, Quote: QuoteResource}``).  It asks
``type(obj)``, which for an entity object is the entity; here it asks the
object's ``_meta.model`` (a proxy's own for objects of a proxy).
``DjonyResource`` switches every ``GenericForeignKeyField`` it declares to
:class:`DjonyGenericForeignKeyField` (a subclass of yours keeps its own
methods first).
"""

from __future__ import annotations

from typing import Any

from tastypie.contrib.contenttypes.fields import GenericForeignKeyField

from djony.serving import model_of


class DjonyGenericForeignKeyField(GenericForeignKeyField):
    """A ``GenericForeignKeyField`` that finds the resource of an entity object's model."""

    def get_related_resource(self, related_instance: Any) -> Any:
        model = model_of(related_instance)
        self._to_class = self.to.get(model)
        if self._to_class is None and model is not None:
            # A resource declared for the concrete model serves its proxies' rows too.
            self._to_class = self.to.get(model._meta.concrete_model)
        if self._to_class is None:
            name = model._meta.label if model is not None else type(related_instance).__name__
            raise TypeError(f"no resource for model {name}")
        return super(GenericForeignKeyField, self).get_related_resource(related_instance)
