"""The names djony gives entities and their reverse attributes, from ``_meta``.

One place, so that the mapping (which declares the attributes) and the delete
rules (which follow them) agree.  Override nothing here: a project that needs
other names gives its relations a ``related_name``.
"""

from __future__ import annotations

from django.db import models


def entity_names(model_list: list[type[models.Model]]) -> dict[type[models.Model], str]:
    """``ModelName``, or ``App_label_ModelName`` where two apps share a model name.

    (Pony wants entity names to start with a capital letter.)
    """
    counts: dict[str, int] = {}
    for model in model_list:
        counts[model._meta.object_name] = counts.get(model._meta.object_name, 0) + 1
    return {
        model: model._meta.object_name
        if counts[model._meta.object_name] == 1
        else f"{model._meta.app_label.capitalize()}_{model._meta.object_name}"
        for model in model_list
    }


def hidden_name(field: models.Field) -> str:
    """A reverse attribute name for ``related_name='+'`` that cannot clash."""
    meta = field.model._meta
    return f"_djony_{meta.app_label}_{meta.model_name}_{field.name}_rev"


def reverse_name(field: models.Field) -> str:
    """The attribute name of the reverse side of a relation field."""
    if field.remote_field.hidden:
        return hidden_name(field)
    return field.remote_field.get_accessor_name()
