"""A new object that Tastypie hydrates before Pony inserts it.

Pony inserts an entity as soon as it is constructed, and wants its required
attributes up front; Tastypie instead makes an empty object and sets
attributes one at a time (``full_hydrate``), reading back model defaults for
fields the client did not send.  :class:`Draft` bridges the two: scalar
values live on an unsaved Django instance (so defaults and ``pre_save``
behave exactly as for ``ModelResource``), relation values are kept as Pony
objects, and :meth:`Draft.save` creates the entity (parents first for
multi-table inheritance).  After saving, the draft forwards every attribute
to the new entity.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.expressions import DatabaseDefault

from djony.instances import ManagerOnClass, behaviour_base, is_django_instance
from djony.managers import RelatedManager
from djony.registry import entity_for, write_alias


class Draft:
    """An unsaved object of ``model``, hydrated by Tastypie, inserted by Pony."""

    def __init__(self, model: type[models.Model]) -> None:
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_instance", None)
        object.__setattr__(self, "_relations", {})
        object.__setattr__(self, "_extra", {})
        object.__setattr__(self, "_entity", None)
        #: The instance is the caller's (:func:`from_instance`): its relations read as Django's.
        object.__setattr__(self, "_given", False)

    # -- attribute access -------------------------------------------------
    _meta: Any = None  # set on the per-model subclass made by new_draft()

    @property
    def instance(self) -> models.Model:
        """The unsaved Django instance holding scalar values and defaults."""
        if self._instance is None:
            object.__setattr__(self, "_instance", self._model())
        return self._instance

    def _relation_field(self, name: str) -> models.Field | None:
        """The relation ``name`` names (not its attname: ``owner_id`` is a column).

        A ``GenericForeignKey`` is not one here: the Django instance's own
        descriptor keeps it, as content type and object id columns.
        """
        try:
            field = self._model._meta.get_field(name)
        except FieldDoesNotExist:
            return None
        if _is_generic_foreign_key(field):
            return None
        return field if field.is_relation and field.name == name else None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._relations and (self._entity is None or self._reverse_one(name)):
            # A reverse one-to-one assigned before the save stays what reads back,
            # as Django's instance caches it, until save_related saves that row.
            return self._relations[name]
        if self._entity is not None:
            return getattr(self._entity, name)
        if name in self._extra:
            return self._extra[name]
        if _to_many(self._model, name):
            return DraftRelatedManager(self, name)
        field = self._relation_field(name)
        if field is not None:
            value = self._relation_default(field)
            if value is None and _required_relation(field):
                # What Django's descriptor raises for an unset relation of a new instance.
                raise getattr(self._model, name).RelatedObjectDoesNotExist(
                    f"{self._model._meta.object_name} has no {name}."
                )
            return value
        related = self._related_by_attname(name)
        if related is not None:
            return related
        if name == "pk" or _is_field(self._model, name) or _is_generic_name(self._model, name):
            return getattr(self.instance, name)
        raise AttributeError(f"{self._model._meta.object_name} draft has no attribute {name!r}")

    def _reverse_one(self, name: str) -> bool:
        field = self._relation_field(name)
        return field is not None and field.one_to_one and not field.concrete

    def _relation_default(self, field: models.Field) -> Any:
        if field.many_to_one or (field.one_to_one and field.concrete):
            raw = getattr(self.instance, field.attname)
            if self._given and raw is not None:
                # The caller's instance: its related object, as it reads it
                # (loaded by Django, with Django's methods), also outside a session.
                return getattr(self.instance, field.name)
            return related_by_key(field, raw)
        return None

    def __setattr__(self, name: str, value: Any) -> None:
        if self._entity is not None:
            self._relations.pop(name, None)
            setattr(self._entity, name, unwrap(value))
        elif self._relation_field(name) is not None:
            self._relations[name] = value
        elif _is_generic_name(self._model, name):
            setattr(self.instance, name, value)  # Django's descriptor sets both columns
        elif name == "pk" or _is_field(self._model, name):
            field = _concrete(self._model, name)
            if field is not None and field.is_relation and name == field.attname:
                self._relations.pop(field.name, None)  # the raw key wins, as on Django's instance
            setattr(self.instance, name, value)
        else:
            self._extra[name] = value

    def _related_by_attname(self, name: str) -> Any:
        """``obj.owner_id`` of a related object assigned as ``obj.owner`` (else ``None``)."""
        field = _concrete(self._model, name)
        if field is None or not field.is_relation or name != field.attname:
            return None
        related = self._relations.get(field.name)
        return None if related is None else getattr(related, field.target_field.attname)

    def __bool__(self) -> bool:
        return True

    # ``repr()``, ``str()`` and the model's methods come from the model (see _with_meta).
    def __eq__(self, other: Any) -> Any:
        """Django's equality: the saved entity's, or the unsaved instance's (same key)."""
        if self is other:
            return True
        mine = self._entity if self._entity is not None else self.instance
        theirs = other.instance if isinstance(other, Draft) and not other.is_saved else other
        return mine == unwrap(theirs)

    def __hash__(self) -> int:
        """Django's: ``hash(pk)``; a new object without a key is unhashable, as Django's."""
        if self._entity is not None:
            return hash(self._entity)
        return hash(self.instance)

    @property
    def _state(self) -> Any:
        """Django's instance state: adding (as Django's unsaved instance) until saved."""
        if self._entity is not None:
            return self._entity._state
        return self.instance._state

    @property
    def is_saved(self) -> bool:
        return self._entity is not None

    # -- saving -----------------------------------------------------------
    def save(self) -> Any:
        """Save the object through Pony (once) and return the entity.

        As ``Model.save()`` on a new instance: a primary key the client chose
        that names an existing row updates that row (every column, as
        Django's UPDATE); otherwise the row is inserted (parents first for
        multi-table inheritance).
        """
        if self._entity is None:
            model = self._model._meta.concrete_model  # a proxy saves its concrete model's row
            existing = self._existing_row(model)
            saved = self._update(existing) if existing is not None else self._insert(model)
            object.__setattr__(self, "_entity", saved)
        return self._entity

    def _existing_row(self, model: type[models.Model]) -> Any:
        """The row Django's ``save()`` would UPDATE: the one named by a client-chosen key."""
        pk = model._meta.pk
        if pk.is_relation or pk.has_default() or getattr(pk, "has_db_default", bool)():
            return None  # Django inserts (a key with a default), or a multi-table child
        raw = getattr(self.instance, pk.attname)
        if raw is None:
            return None
        return entity_for(model, write_alias(model)).get(**{pk.name: prepare(pk, raw)})

    def _update(self, obj: Any) -> Any:
        values = self._values()
        values.pop(self._model._meta.pk.name, None)
        obj.set(**values)
        obj.flush()
        return settled(obj)

    def _insert(self, model: type[models.Model]) -> Any:
        entity = entity_for(model, write_alias(model))
        values: dict[str, Any] = {}
        for parent, link in model._meta.parents.items():
            if link is not None:
                values[link.name] = self._insert(parent)
        values.update(self._values(model, add=True, skip=values))
        obj = entity(**values)
        obj.flush()
        return settled(obj)

    def _values(
        self, model: type[models.Model] | None = None, add: bool = False, skip: Collection = ()
    ) -> dict[str, Any]:
        """Pony attribute values for ``model``'s own columns, as Django's save computes them."""
        model = model or self._model._meta.concrete_model
        values: dict[str, Any] = {}
        instance = self.instance
        for field in model._meta.local_concrete_fields:
            if field.name in skip:
                continue
            if field.is_relation and field.target_field != field.related_model._meta.pk:
                # A ForeignKey(to_field=...): djony maps the raw column (attname).
                related = self._relations.get(field.name)
                raw = getattr(instance, field.attname)
                if related is not None:
                    raw = getattr(related, field.target_field.attname)
                values[field.attname] = raw
                continue
            if field.is_relation:
                value = unwrap(self._relations.get(field.name, self._relation_default(field)))
                if value is not None and not hasattr(value, "_pkval_"):
                    value = as_entity(field, value)
            else:
                value = field.pre_save(instance, add=add)
                if isinstance(value, DatabaseDefault):
                    continue  # left to the database; djony's entity reads it back on use
                if value is None:
                    if field.primary_key:
                        continue
                else:
                    # Django's own conversion on save: the same values, the same
                    # ValidationError messages for bad input ("2023-02-30").
                    value = prepare(field, value)
            values[field.name] = value
        return values


def related_by_key(field: models.Field, raw: Any) -> Any:
    """The Pony object a foreign key's raw value ``raw`` names (``None`` for none)."""
    if raw is None:
        return None
    entity = entity_for(field.related_model, write_alias(field.model))
    if field.target_field != field.related_model._meta.pk:
        return entity.get(**{field.target_field.name: raw})
    return entity._get_by_raw_pkval_((raw,))


def settled(obj: Any) -> Any:
    """``obj`` after a flush, holding what was saved as Django's instance does after ``save()``.

    Pony remembers the values it wrote as values it read, and refuses a later
    load that finds them changed (``UnrepeatableReadError``); a database that
    rounds a decimal or truncates a time changes them, and reading the row's
    other columns (those the insert left to the database) loads it again.
    Django does not check, and its instance keeps the values it saved
    (``always_return_data`` answers ``"1.239"`` for a column that stores
    ``1.24``).  So: the reads are forgotten, and the saved columns are marked
    as held in memory (Pony's "written" bits), which a later load of the
    row leaves as they are while it takes the stored values for the rest.
    """
    if obj._rbits_ is None:  # not a row of this session (deleted, or a session that ended)
        return obj
    read_bits, held_bits = obj._bits_except_volatile_, obj._bits_
    for attr in obj._attrs_with_columns_:
        if attr in obj._dbvals_:
            obj._rbits_ &= ~read_bits.get(attr, 0)
            if not attr.is_pk and not attr.reverse:
                obj._wbits_ |= held_bits.get(attr, 0)
    return obj


@functools.cache
def _with_meta(base: type, model: type[models.Model]) -> type:
    """A subclass of ``base`` that behaves as the model's class for code written for Django.

    ``obj.__class__._meta`` (Tastypie's ``DjangoAuthorization``), the model's
    managers on the class (``validate_unique`` reads ``_default_manager``),
    and the model's own methods, properties, ``__str__`` and ``__repr__``
    (djony's mirror of the model, :func:`djony.instances.behaviour_base`),
    run on the wrapper, so they read the values being written; ``base``'s
    own attributes win.  ``full_clean()`` (a ``ModelForm``'s validation)
    comes with them.
    """
    mirror = behaviour_base(model, set(dir(base)) - {"__str__", "__repr__"})
    body = {
        "_meta": model._meta,
        "_default_manager": model._meta.default_manager,
        "_base_manager": model._meta.base_manager,
    }
    # Model code reads its managers from the class (AbstractUser.clean: self.__class__.objects).
    body.update({m.name: ManagerOnClass(m) for m in model._meta.managers if m.name not in body})
    # The model's name, as code reads it (``type(obj).__name__``, a model's ``describe()``).
    return type(model.__name__, (base, mirror), body)


class DraftRelatedManager(RelatedManager):
    """A to-many relation of a new object: Django's manager of the unsaved instance.

    As for ``ModelResource``'s unsaved instance: usable once the object has a
    key (a ``PUT`` creating an object named by its key), Django's refusal
    otherwise; the rows are loaded by Pony.
    """

    def _django_manager(self) -> Any:
        return getattr(self.owner.instance, self.accessor)


@functools.cache
def _to_many(model: type[models.Model], name: str) -> bool:
    """Whether ``name`` is a many-to-many or reverse foreign key accessor of ``model``."""
    for field in model._meta.get_fields():
        if not (field.many_to_many or field.one_to_many):
            continue
        accessor = field.get_accessor_name() if field.auto_created else field.name
        if accessor == name:
            return True
    return False


def _is_generic_foreign_key(field: Any) -> bool:
    return hasattr(field, "ct_field") and hasattr(field, "fk_field") and not field.concrete


def _is_generic_name(model: type[models.Model], name: str) -> bool:
    """Whether ``name`` is a ``GenericForeignKey`` of ``model``."""
    return any(f.name == name and _is_generic_foreign_key(f) for f in model._meta.private_fields)


def new_draft(model: type[models.Model]) -> Draft:
    """An empty unsaved object of ``model``."""
    return _with_meta(Draft, model)(model)


def _required_relation(field: Any) -> bool:
    """A non-null ForeignKey/OneToOne, or a reverse one-to-one: Django raises when unset."""
    if field.concrete:
        return (field.many_to_one or field.one_to_one) and not field.null
    return field.one_to_one


def _is_field(model: type[models.Model], name: str) -> bool:
    try:
        model._meta.get_field(name)
    except FieldDoesNotExist:
        return any(f.attname == name for f in model._meta.concrete_fields)
    return True


class DjangoValues:
    """An existing entity being updated, held as an unsaved Django instance would.

    Tastypie's ``full_hydrate`` sets every field of the resource, also those a
    PATCH did not send (their values are what ``full_dehydrate`` made of the
    row: the text of a JSON value, a file's URL, a ``dehydrate_<field>``
    result).  Django keeps those values on the instance and writes only
    ``update_fields``; this wrapper does the same: assignments are kept
    (reading them back gives what was assigned, as on a Django instance) and
    reach the entity only in :meth:`write`, converted as Django saves them
    (``get_prep_value``), for the fields being saved.  A nested new object
    that is not saved yet is kept apart (Tastypie's ``save_related`` saves it
    and sets it again).  Made per model by :func:`editing` (``_meta`` on the
    class).
    """

    _meta: Any = None

    def __init__(self, entity: Any) -> None:
        object.__setattr__(self, "entity", entity)
        object.__setattr__(self, "pending", {})
        object.__setattr__(self, "changes", {})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self.pending:
            return self.pending[name]
        if name in self.changes:
            return self.changes[name]
        field = _concrete(type(self.entity)._meta.model, name)
        if field is not None and field.is_relation:
            # A relation and its key read each other's assignment, as on Django's instance.
            if name == field.attname and field.name in self.changes:
                related = self.changes[field.name]
                return None if related is None else getattr(related, field.target_field.attname)
            if name == field.name and field.attname in self.changes:
                return related_by_key(field, self.changes[field.attname])
        return getattr(self.entity, name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.changes.pop(name, None)
        if isinstance(value, Draft) and not value.is_saved:
            self.pending[name] = value  # a nested new object, saved by save_related
            return
        self.pending.pop(name, None)
        field = _concrete(type(self.entity)._meta.model, name)
        if field is not None and field.is_relation and field.attname != field.name:
            # The relation and its key are one value, as on Django's instance: the last wins.
            self.changes.pop(field.attname if name == field.name else field.name, None)
            self.pending.pop(field.name, None)
        self.changes[name] = value

    def __bool__(self) -> bool:
        return True

    # ``repr()``, ``str()`` and the model's methods come from the model (see _with_meta).
    def __eq__(self, other: Any) -> Any:
        return self.entity == unwrap(other)

    def __hash__(self) -> int:
        return hash(self.entity)

    def write(self, only: Collection[str] | None = None) -> Any:
        """Put the assigned values on the entity (those of ``only``'s fields) and return it.

        ``only``: field names or attnames, as ``Model.save(update_fields=...)``
        takes them; ``None`` writes every assignment.  Values not written stay
        readable on this wrapper, as on the Django instance.
        """
        entity = self.entity
        model = type(entity)._meta.model
        chosen = None if only is None else saved_fields(model, only)
        for name in list(self.changes):
            field = _concrete(model, name)
            if chosen is not None and (field is None or field not in chosen):
                continue
            assign(entity, name, field, self.changes.pop(name))
        return entity


def saved_fields(model: type[models.Model], names: Collection[str]) -> set[models.Field]:
    """The concrete fields ``save(update_fields=names)`` writes; Django's refusal otherwise.

    A reverse relation among ``names`` is left out: its rows are saved by
    ``save_related`` (Django itself would refuse the name).
    """
    names = {name for name in names if not _is_reverse_relation(model, name)}
    fields_ = {
        field
        for field in model._meta.concrete_fields
        if field.name in names or field.attname in names
    }
    known = {f.name for f in fields_} | {f.attname for f in fields_}
    unknown = sorted(set(names) - known)
    if unknown:
        raise ValueError(  # Django's own words (Model.save)
            "The following fields do not exist in this model, are m2m fields, or are "
            f"non-concrete fields: {', '.join(unknown)}"
        )
    return fields_


def _is_reverse_relation(model: type[models.Model], name: str) -> bool:
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return field.is_relation and field.auto_created and not field.concrete


def assign(entity: Any, name: str, field: models.Field | None, value: Any) -> None:
    """``entity.<name> = value`` with the value as Django would save it.

    ``field``: the concrete field ``name`` names (by name or attname), if any.
    A related object may be a Django instance (``obj.owner = request.user``)
    or a draft; the entity gets the Pony object.
    """
    value = unwrap(value)
    if field is not None and field.is_relation and name == field.name:
        if value is not None and not hasattr(value, "_pkval_"):
            value = as_entity(field, value)
    elif field is not None and not field.is_relation and value is not None:
        value = prepare(field, value)
    setattr(entity, name, value)


def as_entity(field: models.Field, value: Any) -> Any:
    """The Pony object for a related Django instance of ``field``'s model."""
    return entity_for(field.related_model, write_alias(field.model))[value.pk]


# Text as Django saves it: get_prep_value is all the parsing save() does (a
# GenericIPAddressField cleans an IPv6 address there and keeps malformed text as it is,
# where to_python would refuse it).
_SAVED_AS_TEXT = (models.CharField, models.TextField, models.GenericIPAddressField)


def prepare(field: models.Field, value: Any) -> Any:
    """A request value as the Django field saves it (parsed, made aware, named)."""
    if isinstance(value, str) and not isinstance(field, _SAVED_AS_TEXT):
        value = field.to_python(value)
    return field.get_prep_value(value)


def editing(entity: Any) -> DjangoValues:
    """``entity`` wrapped for ``full_hydrate``."""
    return _with_meta(DjangoValues, type(entity)._meta.model)(entity)


def _concrete(model: type[models.Model], name: str) -> models.Field | None:
    """The concrete field ``name`` names (by name or attname), or ``None``."""
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return next((f for f in model._meta.concrete_fields if f.attname == name), None)
    return field if field.concrete else None


def from_instance(instance: models.Model) -> Draft | DjangoValues:
    """A Django instance handed to a write (``build_bundle(obj=instance)``), as saved by Django.

    A draft holding the instance itself: hydrating sets its values, and
    saving updates every column of the row its key names, or inserts a row
    (``Model.save()``: a changed key saves another row, as it does there).
    A saved instance of a multi-table child is its row's entity, edited
    (values assigned to the instance before are not written).
    """
    model = type(instance)
    if model._meta.pk.is_relation and not instance._state.adding:
        return writable(instance)
    draft = new_draft(model)
    object.__setattr__(draft, "_instance", instance)
    object.__setattr__(draft, "_given", True)
    return draft


def writable(obj: Any) -> Any:
    """``obj`` ready to take assignments that are saved later: an entity is wrapped.

    A Django instance of a saved row (assigned by a hook) becomes its entity
    first; drafts, wrapped entities and ``None`` are returned as they are.
    """
    if is_django_instance(obj) and obj.pk is not None:
        obj = entity_for(type(obj), write_alias(type(obj)))[obj.pk]
    if hasattr(obj, "_pkval_") and not isinstance(obj, (Draft, DjangoValues)):
        return editing(obj)
    return obj


def unwrap(obj: Any) -> Any:
    """The Pony entity behind a saved draft (or ``obj`` itself)."""
    if isinstance(obj, Draft) and obj.is_saved:
        return obj._entity
    if isinstance(obj, DjangoValues):
        return obj.entity
    return obj
