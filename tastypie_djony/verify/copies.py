"""Copies of existing rows for ``--writes`` to update and delete.

An update or a delete is sent to a copy of a row, made inside the
request's transaction just before the request (so it is rolled back with
it, on both sides alike): the copy has a key no row has (:func:`free_key`,
the same for both sides), its unique text values changed, and the row's
many-to-many links.  It is written with ``bulk_create`` (no ``save()``, no
signal: only the request's own effects are recorded).
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import Max

#: How far above the largest key a copy's key is (clear of any key the write creates).
GAP = 100_000
SUFFIX = "-verify-copy"


def copyable(model: type[models.Model]) -> bool:
    """Whether rows of ``model`` can be copied: an integer key, no parent table, and every
    unique column one that :func:`make` can change (text, not a relation)."""
    meta = model._meta
    if meta.parents or not isinstance(meta.pk, (models.AutoField, models.IntegerField)):
        return False
    if meta.unique_together or any(
        isinstance(c, models.UniqueConstraint) for c in meta.constraints
    ):
        return False
    for f in meta.concrete_fields:
        if (
            f.unique
            and not f.primary_key
            and not isinstance(f, (models.CharField, models.TextField))
        ):
            return False
    return True


def free_key(model: type[models.Model], using: str) -> int:
    """A key above every row's, the same for both sides of a run."""
    top = model._base_manager.using(using).aggregate(top=Max("pk"))["top"] or 0
    return top + GAP


def make(model: type[models.Model], source: Any, key: Any, using: str) -> None:
    """Copy row ``source`` of ``model`` as row ``key`` (see the module's docstring)."""
    manager = model._base_manager.using(using)
    obj = manager.get(pk=source)
    links = {
        f.name: list(getattr(obj, f.name).values_list("pk", flat=True))
        for f in model._meta.many_to_many
        if f.remote_field.through._meta.auto_created
    }
    obj.pk = key
    for f in model._meta.concrete_fields:
        if f.unique and not f.primary_key:
            value = str(getattr(obj, f.attname) or "")
            limit = f.max_length or len(value) + len(SUFFIX) + 8
            setattr(obj, f.attname, (value[: limit - len(SUFFIX) - 8] + SUFFIX + str(key))[:limit])
    obj._state.adding = True
    manager.bulk_create([obj])
    for name, keys in links.items():
        field = model._meta.get_field(name)
        through = field.remote_field.through
        source_name, target_name = field.m2m_field_name(), field.m2m_reverse_field_name()
        through._base_manager.using(using).bulk_create(
            [through(**{f"{source_name}_id": key, f"{target_name}_id": k}) for k in keys]
        )
