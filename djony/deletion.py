"""Django's save and delete rules, as hooks on the Pony entities.

Django applies ``on_delete`` and ``auto_now`` in Python (its ``Collector``
and ``pre_save``), not in the database, so an entity has to do the same for
deletes and updates made through Pony:

* CASCADE deletes the related rows (Pony's ``cascade_delete``, set by the
  mapping); SET_NULL clears the column (Pony's own behaviour for nullable
  relations); SET_DEFAULT sets the field's default; PROTECT and RESTRICT
  raise Django's ``ProtectedError`` / ``RestrictedError`` before anything is
  deleted.  Deleting a multi-table child deletes its parent rows, as Django
  does.
* ``auto_now`` fields get the current time on every update.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from django.db import models
from django.utils import timezone
from pony.orm.core import Entity as PonyEntity


def now_for(field: models.Field) -> Callable[[], Any]:
    """The value Django's ``pre_save`` gives an ``auto_now``/``auto_now_add`` field."""
    if isinstance(field, models.DateTimeField):
        return timezone.now
    if isinstance(field, models.DateField):
        return datetime.date.today
    return lambda: datetime.datetime.now().time()


def _guarded_relations(model: type[models.Model]) -> list[tuple[Any, str]]:
    from djony.mapping import reverse_name

    rules = []
    for related in model._meta.related_objects:
        if related.many_to_many:
            continue
        on_delete = getattr(related, "on_delete", None)
        if on_delete in (models.PROTECT, models.RESTRICT, models.SET_DEFAULT):
            rules.append((related, reverse_name(related.field)))
    return rules


def _related_objects(obj: Any, attr_name: str) -> list[Any]:
    value = getattr(obj, attr_name)
    if value is None:
        return []
    if hasattr(value, "is_empty"):
        return list(value)
    return [value]


def entity_hooks(model: type[models.Model]) -> dict[str, Any]:
    """The methods an entity needs to follow Django's rules for ``model``."""
    guarded = _guarded_relations(model)
    auto_now = [f for f in model._meta.local_concrete_fields if getattr(f, "auto_now", False)]
    parent_links = [
        link.name for parent, link in model._meta.parents.items() if link is not None
    ]
    hooks: dict[str, Any] = {}

    if guarded or parent_links:

        def _delete_(self: Any, undo_funcs: Any = None) -> None:
            for related, attr_name in guarded:
                objects = _related_objects(self, attr_name)
                if not objects:
                    continue
                rule = related.on_delete
                if rule is models.SET_DEFAULT:
                    default = related.field.get_default()
                    target = type(self)
                    value = target[default] if default is not None else None
                    for obj in objects:
                        setattr(obj, related.field.name, value)
                    continue
                error = models.ProtectedError if rule is models.PROTECT else models.RestrictedError
                label = related.related_model._meta.label
                raise error(
                    f"Cannot delete {model._meta.object_name} {self.get_pk()!r}: "
                    f"{len(objects)} {label} row(s) refer to it through "
                    f"{label}.{related.field.name} (on_delete={rule.__name__}).",
                    set(objects),
                )
            parents = [getattr(self, name) for name in parent_links]
            PonyEntity._delete_(self, undo_funcs)
            for parent in parents:
                if parent is not None:
                    parent._delete_(undo_funcs)

        hooks["_delete_"] = _delete_

    if auto_now:

        def before_update(self: Any) -> None:
            for field in auto_now:
                setattr(self, field.name, now_for(field)())

        hooks["before_update"] = before_update

    return hooks
