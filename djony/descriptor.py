"""``Model.p``: the Pony entity of a Django model, resolved on first access."""

from __future__ import annotations

from typing import Any


class EntityDescriptor:
    """Class attribute that returns the model's entity in its read database.

    Attached to every model by :class:`djony.apps.DjonyConfig`; the mapping
    itself is only built the first time any ``Model.p`` is read.
    """

    def __get__(self, instance: Any, owner: type) -> Any:
        from djony.registry import entity_for

        return entity_for(owner)
