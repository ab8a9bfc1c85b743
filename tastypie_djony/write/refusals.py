"""What a client reads when the database (or Pony, or Django) refuses a write.

The drivers' own texts name tables, columns and constraints
(``UNIQUE constraint failed: testapp_tag.name``, ``duplicate key value
violates unique constraint "testapp_tag_name_key"``), and Pony's name its
objects (``Tag[new:4]``).  None of that reaches a client: a refusal is told
in model terms, the way Django's own validation would tell it::

    Could not save Tag: Tag with this name already exists.
    Cannot delete Author 'Author object (2)': book 'Dune' refers to it (PROTECT).

Only the kind of refusal and the model's own field names (matched against
the driver's text, never copied from it) are used.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import models
from django.utils.text import capfirst
from pony.orm import core as pony_core

from djony.serving import REFUSAL_KINDS, model_of

#: How many rows in the way a refused delete names, per model (then "and N more").
NAMED_ROWS = 5

PONY_ATTRIBUTE = re.compile(r"\b\w+\.(\w+)\b")


def refusal_message(model: type[models.Model], exc: BaseException, action: str = "save") -> str:
    """``exc`` (a refusal) as a sentence about ``model`` that leaks nothing internal."""
    if isinstance(exc, pony_core.UnexpectedError):
        exc = exc.original_exc
    if isinstance(exc, (models.ProtectedError, models.RestrictedError)):
        return blocked_delete_message(exc)
    name = model._meta.object_name
    return f"Could not {action} {name}: {_reason(model, exc)}"


def blocked_delete_message(exc: models.ProtectedError | models.RestrictedError) -> str:
    """Django's ProtectedError/RestrictedError, naming the rows in the way."""
    protect = isinstance(exc, models.ProtectedError)
    rows = exc.protected_objects if protect else exc.restricted_objects
    deleted = getattr(exc, "deleted", None)
    by_model: dict[type[models.Model], list[Any]] = {}
    for row in rows:
        by_model.setdefault(model_of(row), []).append(row)
    parts = []
    for related, found in sorted(by_model.items(), key=lambda item: item[0]._meta.label):
        count = len(found)
        noun = related._meta.verbose_name if count == 1 else related._meta.verbose_name_plural
        named = ", ".join(f"'{display(row)}'" for row in _by_key(found)[:NAMED_ROWS])
        more = f" and {count - NAMED_ROWS} more" if count > NAMED_ROWS else ""
        parts.append(f"{noun} {named}{more} {'refers' if count == 1 else 'refer'} to it")
    what = f"{model_of(deleted)._meta.object_name} '{display(deleted)}'" if deleted else "it"
    rule = "PROTECT" if protect else "RESTRICT"
    return f"Cannot delete {what}: {', '.join(parts) or 'other rows refer to it'} ({rule})."


def _by_key(rows: list[Any]) -> list[Any]:
    """``rows`` in key order (the order a client sees them listed)."""
    try:
        return sorted(rows, key=lambda row: row.pk)
    except TypeError:  # keys that do not compare (None among them)
        return sorted(rows, key=lambda row: str(row.pk))


def display(obj: Any) -> str:
    """``str()`` of ``obj`` as Django shows the instance (``Author object (2)`` by default)."""
    model = model_of(obj)
    if model.__str__ is not models.Model.__str__ and type(obj).__str__ is not object.__str__:
        return str(obj)
    return f"{model.__name__} object ({obj.pk})"


def _reason(model: type[models.Model], exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, pony_core.CacheIndexError):
        field = _pony_field(model, text)
        return _unique(model, field)
    if isinstance(exc, pony_core.ConstraintError) and "Cannot unlink" in text:
        field = _pony_field(model, text.rsplit("because", 1)[-1])
        label = field.verbose_name if field is not None else "related object"
        return f"the {label} it names already has one (a one-to-one relation)."
    if isinstance(exc, pony_core.ObjectNotFound):
        return "a related object it names does not exist."
    kind = _kind(text.lower())
    field = _field_in(model, text)
    if kind == "unique":
        return _unique(model, field)
    if kind == "reference":
        return "a related object it names does not exist."
    if kind == "required":
        return f"{_label(field, 'a required value')} may not be empty."
    if kind == "range":
        return f"the value of {_label(field, 'a field')} is out of range."
    if kind == "length":
        return f"the value of {_label(field, 'a field')} is too long."
    return "the database refused the data."


def _kind(text: str) -> str | None:
    for kind, words in REFUSAL_KINDS:  # the drivers' words, from djony's backends
        if any(word in text for word in words):
            return kind
    return None


def _unique(model: type[models.Model], field: models.Field | None) -> str:
    if field is None:
        return f"{capfirst(model._meta.verbose_name)} with these values already exists."
    return f"{capfirst(model._meta.verbose_name)} with this {field.verbose_name} already exists."


def _label(field: models.Field | None, default: str) -> str:
    return field.verbose_name if field is not None else default


def _field_in(model: type[models.Model], text: str) -> models.Field | None:
    """The model's field whose column the driver's text names (longest match first)."""
    columns = sorted(model._meta.concrete_fields, key=lambda f: -len(f.column))
    for field in columns:
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(field.column)}(?![A-Za-z0-9])", text):
            return field
    return None


def _pony_field(model: type[models.Model], text: str) -> models.Field | None:
    names = {f.name: f for f in model._meta.concrete_fields}
    names.update({f.attname: f for f in model._meta.concrete_fields})
    for attribute in PONY_ATTRIBUTE.findall(text):
        if attribute in names:
            return names[attribute]
    return None


PONY_IDENTIFIER = re.compile(r"\b([A-Z]\w*)\[(?:new:)?[^\]\[]*\]")


def invalid_data_message(model: type[models.Model], exc: BaseException) -> str:
    """A value Pony or Django refused on conversion, without Pony's object names."""
    text = PONY_IDENTIFIER.sub(lambda m: f"a {m.group(1)}", str(exc))
    return f"Invalid data for {model._meta.object_name}: {text}"
