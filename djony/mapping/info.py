"""What the mapping records about each mapped model, read by objects, checks and commands.

Every entity carries its :class:`EntityInfo` as ``_djony_info_``: the model,
how to reach each Django field from the entity in a query (:attr:`EntityInfo.paths`,
a parent's field goes through the parent link), and the fields left out with
the reason (:attr:`EntityInfo.unmapped`, reported by the system checks and by
``manage.py djony_mapping``).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field

from django.db import models

#: The start of an :attr:`EntityInfo.unmapped` reason for a field Django serves.
DJANGO_SERVED = "served by Django: "


@dataclass
class EntityInfo:
    """What djony knows about one mapped model."""

    model: type[models.Model]
    name: str
    #: Django field name -> attribute names to follow from this entity.
    paths: dict[str, tuple[str, ...]] = dataclass_field(default_factory=dict)
    #: Fields left out, with the reason (reported by the system checks).
    unmapped: dict[str, str] = dataclass_field(default_factory=dict)
