"""Django's save rules on entity objects: ``auto_now``, ``db_default``, unsaved assignments.

Django applies ``auto_now`` in Python (``pre_save``), not in the database, so an
entity does the same for the updates Pony makes (:func:`save_hooks`): every
``auto_now`` field gets the current time, as ``Model.save()`` gives it; columns
left to a ``db_default`` are read back from the database after a Pony insert.

:func:`assignments_not_saved`: inside it (every ``DjonyResource`` request), an
assignment to a loaded object changes the object, not its row, as on a Django
instance until ``save()``; :func:`save_updated` is the entity's
``_save_updated_`` that keeps it so.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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


def save_hooks(model: type[models.Model]) -> dict[str, Any]:
    """The class attributes an entity needs to save ``model`` rows as Django does."""
    hooks: dict[str, Any] = {"_save_updated_": save_updated}
    auto_now = [f for f in model._meta.local_concrete_fields if getattr(f, "auto_now", False)]
    if auto_now:

        def before_update(self: Any) -> None:
            for field in auto_now:
                setattr(self, field.name, now_for(field)())

        hooks["before_update"] = before_update
    db_defaults = [
        f.name
        for f in model._meta.local_concrete_fields
        if f.has_db_default() and not f.has_default()
    ]
    if db_defaults:

        def after_insert(self: Any) -> None:
            # The database filled these columns; forget the None Pony holds so
            # that reading them loads the stored value.
            for name in db_defaults:
                attr = self._adict_[name]
                if self._vals_.get(attr) is None:
                    self._vals_.pop(attr, None)
                    self._dbvals_.pop(attr, None)

        hooks["after_insert"] = after_insert
    return hooks


_assignments_only: ContextVar[bool] = ContextVar("djony_assignments_only", default=False)


@contextmanager
def assignments_not_saved() -> Iterator[None]:
    """Inside: a changed attribute of a loaded object is never written by Pony.

    As on a Django instance, ``obj.title = "x"`` changes the object, not its row,
    until something saves it: ``DjonyResource`` runs every request in here (its
    writes save Django instances), so a hook that edits ``bundle.obj`` to show it
    differently writes nothing.  Objects created (``Model.p(...)``) or deleted
    through Pony still are.
    """
    token = _assignments_only.set(True)
    try:
        yield
    finally:
        _assignments_only.reset(token)


def save_updated(self: Any) -> None:
    """Pony's UPDATE of a changed object, unless assignments are not saved (see above)."""
    if not _assignments_only.get():
        PonyEntity._save_updated_(self)
        return
    # Saved as far as the session is concerned; the row keeps its values, and so do
    # Pony's copies of them (a later read of the row is not a conflict).
    self._status_ = "updated"
    self._wbits_ = 0
