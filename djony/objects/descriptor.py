"""``Model.p``: the Pony entity of a Django model, resolved on first access."""

from __future__ import annotations

from typing import Any

from djony.registry import entity_for


class EntityDescriptor:
    """Class attribute that returns the model's entity in its read database.

    Attached to every model by :class:`djony.apps.DjonyConfig`; the mapping
    itself is only built the first time any ``Model.p`` is read.
    """

    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is not None:
            # Only the class has an entity: ``hasattr(obj, "p")`` stays False on
            # instances, as code written before djony (Tastypie's PATCH) expects.
            raise AttributeError(
                f"'p' is the Pony entity of the {owner.__name__} class; "
                f"use {owner.__name__}.p or type(obj).p"
            )
        return entity_for(owner)
