"""Objects of a proxy model's rows: the concrete entity's objects, as the proxy's instances.

A proxy model has no entity of its own (its rows are its concrete model's);
:func:`flavoured` gives the objects a proxy's queryset loaded the proxy's
``_meta`` and methods.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from djony.objects.instances import ENTITY_DUNDERS, behaviour_base, entity_methods

_FLAVOURS: dict[tuple[Any, type], type] = {}


def flavoured(objects: list[Any], model: type[models.Model]) -> list[Any]:
    """``objects`` of a proxy model's rows, as that proxy's instances.

    The objects are the concrete entity's (one per row in the session);
    their class becomes a subclass of the entity, unknown to Pony, whose
    ``_meta`` is the proxy's and which has the proxy's own methods, so
    ``obj.__class__._meta`` (Tastypie's ``DjangoAuthorization``) names the
    proxy's permissions, as for a Django instance of the proxy.
    """
    if not objects or not model._meta.proxy:
        return objects
    entity = type(objects[0])
    concrete = getattr(entity, "_djony_concrete_entity_", entity)
    flavour = _FLAVOURS.get((concrete, model))
    if flavour is None:
        mirror = behaviour_base(model, set(vars(concrete)))
        body = {
            "__slots__": (),
            "_meta": model._meta,
            "_djony_model_": model,
            "_djony_concrete_entity_": concrete,
        }
        body.update({k: v for k, v in entity_methods(model, mirror).items() if k in ENTITY_DUNDERS})
        # type.__new__, not the metaclass: Pony must not take it for a new entity.
        flavour = type.__new__(type(concrete), model.__name__, (mirror, concrete), body)
        _FLAVOURS[(concrete, model)] = flavour
    for obj in objects:
        if type(obj) is not flavour:
            obj.__class__ = flavour
    return objects
