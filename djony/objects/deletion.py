"""Django's delete rules (``on_delete``), as hooks on the Pony entities.

Django applies ``on_delete`` in Python (its ``Collector``), not in the
database, so an entity does the same for deletes made through Pony
(:func:`delete_hooks`).  Deleting an object works like Django's
``Collector``, in two phases:

1. *Check*, before anything changes: walk everything the delete would
   cascade to (CASCADE relations, and the parent rows of a multi-table
   child) and raise Django's ``ProtectedError`` for PROTECT references and
   ``RestrictedError`` for RESTRICT references from rows that are not
   deleted too.
2. *Act*: Pony itself cascades (``cascade_delete``) and clears nullable
   references (SET_NULL) for relations to a primary key; the hook sets
   SET_DEFAULT / ``SET(...)`` values, handles relations to a ``to_field``
   (which Pony does not know as relations), and deletes the parent rows of
   a multi-table child.

``DO_NOTHING`` leaves the referencing rows alone, as Django does.  A custom
``on_delete`` function expects Django's ``Collector`` and cannot run on Pony
objects: deleting a row that still has such references raises
``NotImplementedError`` (see docs/limitations-djony.md).  The save rules
(``auto_now``, ``db_default``) are :mod:`djony.objects.saving`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models.deletion import get_candidate_relations_to_delete
from pony.orm.core import Entity as PonyEntity
from pony.orm.core import SetData, del_statuses

from djony.bridge.connection import alias_of
from djony.meta.names import reverse_name
from djony.objects.querysets import PonyQuerySet

HANDLED_BY_PONY = (models.CASCADE, models.SET_NULL)


def _is_set(on_delete: Any) -> bool:
    deconstruct = getattr(on_delete, "deconstruct", None)
    return deconstruct is not None and deconstruct()[0] == "django.db.models.SET"


@dataclass(frozen=True)
class Rule:
    """One relation pointing at the model, with its ``on_delete``."""

    field: models.ForeignKey
    #: Reverse attribute on the referenced entity; ``None`` for a ``to_field`` relation.
    reverse: str | None
    #: Entity name of the referencing model.
    source: str

    @property
    def on_delete(self) -> Any:
        return self.field.remote_field.on_delete

    @property
    def label(self) -> str:
        return f"{self.field.model._meta.label}.{self.field.name}"

    def related(self, obj: Any) -> list[Any]:
        """The live objects referring to ``obj`` through this relation."""
        if self.reverse is not None:
            value = getattr(obj, self.reverse)
            objects = (
                [] if value is None else list(value) if hasattr(value, "is_empty") else [value]
            )
        else:
            key = getattr(obj, self.field.target_field.attname)
            if key is None:
                return []
            entity = obj._database_.entities[self.source]
            objects = list(entity.select(**{self.field.attname: key}))
        return [o for o in objects if o._status_ not in del_statuses]

    def value(self) -> Any:
        """What Django's SET_DEFAULT / ``SET(...)`` computes (calling a callable once)."""
        if self.on_delete is models.SET_DEFAULT:
            return self.field.get_default()
        value = self.on_delete.deconstruct()[1][0]
        return value() if callable(value) else value

    def replacement(self, obj: Any) -> Any:
        """The value SET_DEFAULT / ``SET(...)`` puts in the referencing rows."""
        value = self.value()
        if isinstance(value, models.Model):
            value = getattr(value, self.field.target_field.attname)
        if self.reverse is None or value is None:
            return value
        return type(obj)[value]

    def apply(self, obj: Any, undo_funcs: list) -> None:
        """Phase 2 for the rows referring to ``obj``."""
        rule = self.on_delete
        if rule in (models.PROTECT, models.RESTRICT):
            return  # checked in phase 1
        if rule is models.DO_NOTHING:
            if self.reverse is not None:
                _forget_references(obj, self.reverse)
            return
        if self.reverse is not None and rule in HANDLED_BY_PONY:
            return
        related_objects = self.related(obj)
        if rule is models.CASCADE:
            for related in related_objects:
                related._delete_(undo_funcs)
        elif rule is models.SET_NULL:
            for related in related_objects:
                setattr(related, self.field.attname, None)
        elif related_objects:
            # Django computes the value once for the referencing rows, and not at all
            # when none refers to ``obj`` (a SET(callable) that creates a row does not).
            value = self.replacement(obj)
            name = self.field.name if self.reverse is not None else self.field.attname
            for related in related_objects:
                setattr(related, name, value)


def _forget_references(obj: Any, reverse: str) -> None:
    """DO_NOTHING: make Pony see no referencing rows, so it neither clears nor refuses them.

    The rows keep pointing at the deleted one, as with Django; the database's
    foreign key constraint (if any) decides what happens next.
    """
    attr = obj._adict_[reverse]
    if attr.is_collection:
        nothing = SetData()
        nothing.is_fully_loaded = True
        nothing.count = 0
        obj._vals_[attr] = nothing
    else:
        obj._vals_[attr] = None


def delete_rules(model: type[models.Model], names: dict[type[models.Model], str]) -> list[Rule]:
    """The relations that decide what deleting a ``model`` row does, as Django sees them."""
    rules = []
    for related in get_candidate_relations_to_delete(model._meta):
        field = related.field
        if field.remote_field.model._meta.concrete_model is not model:
            continue  # a relation to a parent model: the parent's entity handles it
        source = field.model._meta.concrete_model
        if source not in names:
            continue
        to_pk = field.target_field == model._meta.pk
        rules.append(Rule(field, reverse_name(field) if to_pk else None, names[source]))
    return rules


def check_delete(obj: Any) -> None:
    """Phase 1: raise before anything changes if deleting ``obj`` is not allowed."""
    doomed = {obj}
    pending = [obj]
    protected: dict[str, list[Any]] = {}
    restricted: dict[str, list[Any]] = {}
    while pending:
        current = pending.pop()
        entity = type(current)
        follow = [getattr(current, link) for link in entity._djony_parent_links_]
        follow.extend(generic_related(current))
        for rule in entity._djony_delete_rules_:
            rule_kind = rule.on_delete
            if rule_kind in (models.SET_NULL, models.SET_DEFAULT, models.DO_NOTHING):
                continue
            if _is_set(rule_kind):
                continue
            related = rule.related(current)
            if not related:
                continue
            if rule_kind is models.CASCADE:
                follow.extend(related)
            elif rule_kind is models.PROTECT:
                protected.setdefault(rule.label, []).extend(related)
            elif rule_kind is models.RESTRICT:
                restricted.setdefault(rule.label, []).extend(related)
            else:
                raise NotImplementedError(
                    f"Cannot delete {entity.__name__}[{current.get_pk()!r}] through Pony: "
                    f"{len(related)} row(s) refer to it through {rule.label} "
                    f"(on_delete={getattr(rule_kind, '__name__', rule_kind)}), which djony "
                    "cannot reproduce. Delete or re-point those rows first, or delete "
                    "through the Django model."
                )
        for other in follow:
            if other is not None and other not in doomed and other._status_ not in del_statuses:
                doomed.add(other)
                pending.append(other)
    if protected:
        _raise(models.ProtectedError, "protected", type(obj), protected)
    left = {label: [o for o in objs if o not in doomed] for label, objs in restricted.items()}
    left = {label: objs for label, objs in left.items() if objs}
    if left:
        _raise(models.RestrictedError, "restricted", type(obj), left)


def generic_related(obj: Any) -> list[Any]:
    """The rows of ``obj``'s ``GenericRelation`` fields: Django's collector deletes them with it."""
    from django.contrib.contenttypes.models import ContentType

    model = obj._djony_info_.model
    fields = [f for f in model._meta.private_fields if hasattr(f, "bulk_related_objects")]
    if not fields or obj.pk is None:
        return []
    alias = alias_of(obj._database_)
    related = []
    for field in fields:
        content_type = ContentType.objects.db_manager(alias).get_for_model(
            model, for_concrete_model=field.for_concrete_model
        )
        rows = field.related_model._base_manager.db_manager(alias).filter(
            **{field.content_type_field_name: content_type.pk, field.object_id_field_name: obj.pk}
        )
        related.extend(o for o in PonyQuerySet(rows) if o._status_ not in del_statuses)
    return related


def _raise(error: type[Exception], kind: str, entity: Any, refs: dict[str, list[Any]]) -> None:
    raise error(
        f"Cannot delete some instances of model {entity.__name__!r} because they are "
        f"referenced through {kind} foreign keys: {', '.join(map(repr, refs))}. "
        "Delete or re-point the referencing rows first.",
        {o for objs in refs.values() for o in objs},
    )


def _delete_(self: Any, undo_funcs: list | None = None) -> None:
    """Pony's delete, with Django's ``on_delete`` rules (see the module docstring)."""
    if self._status_ in del_statuses:
        return
    entity = type(self)
    top = undo_funcs is None  # the object the user deleted, not a cascade
    if top:
        check_delete(self)
        undo_funcs = []
    try:
        parents = [getattr(self, link) for link in entity._djony_parent_links_]
        for related in generic_related(self):
            related._delete_(undo_funcs)
        for rule in entity._djony_delete_rules_:
            rule.apply(self, undo_funcs)
        PonyEntity._delete_(self, undo_funcs)
        for parent in parents:
            if parent is not None:
                parent._delete_(undo_funcs)
    except BaseException:
        if top:  # what Pony does for a failed delete: restore the session's objects
            for undo in reversed(undo_funcs):
                undo()
        raise


def delete_hooks(model: type[models.Model], names: dict[type[models.Model], str]) -> dict[str, Any]:
    """The class attributes an entity needs to delete ``model`` rows as Django does."""
    return {
        "_delete_": _delete_,
        "_djony_delete_rules_": tuple(delete_rules(model, names)),
        "_djony_parent_links_": tuple(
            link.name
            for parent, link in model._meta.parents.items()
            if link is not None and parent in names
        ),
    }
