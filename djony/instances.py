"""What makes a Pony entity object behave like the Django instance it stands for.

Code written for Django instances (Tastypie hooks, authorization and
validation classes, a field's ``attribute``, templates) reads more than
columns: the model's own methods and properties, ``get_FOO_display``,
``obj.owner_id``, ``obj == request.user``, ``repr(obj)``, ``pickle``.
:func:`behaviour_base` builds, per model, a plain Python class hierarchy
that mirrors the model's own (abstract parents and mixins included) with
the model's methods and properties, and the entity inherits from it after
Pony's ``Entity``: Pony's own attributes always win, the model's fill in
everything else.  ``super()`` inside a model method works: each copied
function is re-bound to the mirrored class, whose root,
:class:`DjangoInstance`, supplies ``Model``'s own defaults.

:func:`entity_methods` gives the entity class itself what must override
Pony: Django's ``__eq__``/``__hash__`` (equal to a Django instance of the
same concrete model and key, both ways), ``__repr__`` (``<Writer: Zed>``)
and pickling by model label and key.

``isinstance(obj, TheModel)`` and ``isinstance(obj, models.Model)`` are true
(:func:`install_instance_check`: Django's model metaclass learns that an entity
object is an instance of its model, of the model's parents and of
``models.Model``), so Django's ORM takes the objects as values of lookups and
assignments (``filter(user=obj)``, ``Model(user=obj)``), as do forms,
``model_to_dict``, serializers and ``ContentType.objects.get_for_model``.  Code
that must tell the two kinds apart asks :func:`is_entity_object`.
Model methods that call ``save()``/``delete()`` of ``models.Model`` expect a
Django instance and do not work here.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import models
from django.db.models.base import ModelBase, ModelState
from pony.orm.core import Entity as PonyEntity

from djony.bridge.connection import alias_of

#: Model attributes never copied: Django's machinery, or Pony's.
SKIPPED = frozenset(
    {
        "__module__",
        "__qualname__",
        "__doc__",
        "__dict__",
        "__weakref__",
        "__init__",
        "__new__",
        "__init_subclass__",
        "__annotations__",
        "__slots__",
        "__eq__",
        "__hash__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
        "__setstate__",
        "__class_getitem__",
        "_meta",
        "Meta",
        "p",
        "save",
        "save_base",
        "delete",
        "refresh_from_db",
        "arefresh_from_db",
        "asave",
        "adelete",
        "_do_insert",
        "_do_update",
        "_save_table",
        "_save_parents",
    }
)

#: Dunder methods of the model that the entity class itself must carry
#: (Pony's ``Entity`` defines some of them, and it comes first in the MRO).
ENTITY_DUNDERS = ("__str__", "__repr__", "__lt__", "__le__", "__gt__", "__ge__", "__format__")


class DjangoInstance:
    """The root of every mirrored model: what ``models.Model`` gives an instance.

    Only what works on a Pony object: ``__str__``, ``__repr__``,
    ``get_FOO_display``, ``serializable_value``, ``get_deferred_fields``.
    """

    _djony_hash: int | None = None  # see _hash
    _djony_page: Any = None  # the djony.querysets.Page the object was loaded with
    _get_FIELD_display = models.Model._get_FIELD_display
    serializable_value = models.Model.serializable_value
    _get_pk_val = models.Model._get_pk_val
    _is_pk_set = models.Model._is_pk_set

    # Validation, as ModelForm (Tastypie's FormValidation) runs it on the instance.
    full_clean = models.Model.full_clean
    clean_fields = models.Model.clean_fields
    clean = models.Model.clean
    validate_unique = models.Model.validate_unique
    validate_constraints = models.Model.validate_constraints
    get_constraints = models.Model.get_constraints
    _get_unique_checks = models.Model._get_unique_checks
    _perform_unique_checks = models.Model._perform_unique_checks
    _perform_date_checks = models.Model._perform_date_checks
    date_error_message = models.Model.date_error_message
    unique_error_message = models.Model.unique_error_message
    _get_field_expression_map = models.Model._get_field_expression_map
    _get_next_or_previous_in_order = models.Model._get_next_or_previous_in_order

    @property
    def _state(self) -> ModelState:
        """Django's instance state: ``adding`` until the row exists, the database alias."""
        state = ModelState()
        state.adding = self._status_ in ("created", "cancelled")
        state.db = alias_of(self._database_)
        return state

    def __str__(self) -> str:
        return f"{self._meta.object_name} object ({self.pk})"

    def __repr__(self) -> str:
        return f"<{self._meta.object_name}: {self}>"

    def get_deferred_fields(self) -> set[str]:
        """Pony loads every column of a row: nothing is deferred."""
        return set()


_type_instancecheck = type.__instancecheck__


def _model_instancecheck(cls: type, instance: Any) -> bool:
    """``isinstance(instance, cls)`` for a model class ``cls``: Django's, or an entity object of it.

    An entity class names its model in ``_djony_model_`` (a proxy's flavour names the
    proxy), so the object is an instance of that model's classes, as a Django instance is.
    """
    kind = type(instance)
    if cls in kind.__mro__:
        return True
    model = kind.__dict__.get("_djony_model_")  # set on each entity class and flavour
    if model is not None:
        return cls in model.__mro__
    declared = getattr(instance, "__class__", kind)  # a proxy (SimpleLazyObject) names another
    if declared is kind or not isinstance(declared, type):
        return False
    if cls in declared.__mro__:
        return True
    model = declared.__dict__.get("_djony_model_")
    return model is not None and cls in model.__mro__


def install_instance_check() -> None:
    """Make Django's model metaclass take entity objects for instances of their model.

    Installed once, when djony declares its first entities; a model class of any
    app then answers ``isinstance`` for djony's objects as for its own instances.
    CPython asks ``__instancecheck__`` only when ``type(obj)`` is not the class
    itself, so the exact-class check Django does most stays free.
    """
    if ModelBase.__dict__.get("__instancecheck__") is not _model_instancecheck:
        ModelBase.__instancecheck__ = _model_instancecheck


def is_entity_object(value: Any) -> bool:
    """Whether ``value`` is an object of a djony entity (not a Django instance)."""
    return isinstance(value, PonyEntity)


def is_django_instance(value: Any) -> bool:
    """Whether ``value`` is an instance Django built (``isinstance`` without entity objects)."""
    return _type_instancecheck(models.Model, value)


def _is_django_machinery(cls: type) -> bool:
    """``models.Model`` and the classes Django's own model base is made of."""
    return cls is object or (
        cls.__module__.startswith("django.db.models") and not issubclass(cls, models.Model)
    )


#: Modules of Django's per-field descriptors and managers on a model class.
DJANGO_DESCRIPTOR_MODULES = (
    "django.db.models.fields",
    "django.db.models.query_utils",
    "django.db.models.manager",
    "django.contrib.contenttypes.fields",
)


def _django_attribute(value: Any) -> bool:
    """Whether a model class attribute is Django's (a field descriptor, a manager)."""
    return type(value).__module__.startswith(DJANGO_DESCRIPTOR_MODULES)


def _rebind(value: Any, cls: type) -> Any:
    """``value`` with its ``__class__`` cell (``super()``) pointing at ``cls``."""
    if isinstance(value, types.FunctionType):
        if "__class__" not in value.__code__.co_freevars:
            return value
        index = value.__code__.co_freevars.index("__class__")
        closure = list(value.__closure__)
        closure[index] = types.CellType(cls)
        rebound = types.FunctionType(
            value.__code__, value.__globals__, value.__name__, value.__defaults__, tuple(closure)
        )
        rebound.__kwdefaults__ = value.__kwdefaults__
        rebound.__dict__.update(value.__dict__)
        rebound.__qualname__ = value.__qualname__
        return rebound
    if isinstance(value, property):
        return property(
            _rebind(value.fget, cls),
            _rebind(value.fset, cls),
            _rebind(value.fdel, cls),
            value.__doc__,
        )
    if isinstance(value, (classmethod, staticmethod)):
        return type(value)(_rebind(value.__func__, cls))
    if isinstance(value, functools.partialmethod):
        return functools.partialmethod(_rebind(value.func, cls), *value.args, **value.keywords)
    if isinstance(value, functools.cached_property):
        return functools.cached_property(_rebind(value.func, cls))
    func = getattr(value, "real_func", None)  # django.utils.functional.cached_property
    if isinstance(func, types.FunctionType):
        return type(value)(_rebind(func, cls))
    return value


class _Mirror:
    """Builds the mirrored class of each model class, once per class."""

    def __init__(self, reserved: set[str]) -> None:
        self.reserved = reserved
        self.mirrors: dict[type, type] = {}

    def of(self, cls: type) -> type | None:
        if _is_django_machinery(cls) or cls is models.Model:
            return None
        if not issubclass(cls, models.Model) and type(cls) is type:
            return cls  # a plain mixin: the entity inherits it as it is
        # A model class, or a mixin with a metaclass of its own (abc.ABC), which
        # could not be combined with Pony's: mirrored as a plain class.
        if cls not in self.mirrors:
            self.mirrors[cls] = self.build(cls)
        return self.mirrors[cls]

    def build(self, cls: type) -> type:
        bases = tuple(base for base in map(self.of, cls.__bases__) if base is not None)
        if issubclass(cls, models.Model) and not any(
            issubclass(base, DjangoInstance) for base in bases
        ):
            bases = (*bases, DjangoInstance)
        body: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        rebind: list[str] = []
        for name, value in vars(cls).items():
            if name in SKIPPED or name in self.reserved or _django_attribute(value):
                continue
            if name.startswith("_abc_"):
                continue  # abc's bookkeeping of a mirrored ABC mixin
            if isinstance(value, type) and issubclass(value, Exception):
                body[name] = value  # DoesNotExist, MultipleObjectsReturned
                continue
            body[name] = value
            rebind.append(name)
        mirror = type(cls.__name__, bases, body)
        for name in rebind:
            rebound = _rebind(body[name], mirror)
            if rebound is not body[name]:
                setattr(mirror, name, rebound)
                if hasattr(rebound, "__set_name__"):  # cached properties learn their name
                    rebound.__set_name__(mirror, name)
        return mirror


def behaviour_base(model: type[models.Model], reserved: set[str]) -> type:
    """The class the model's entity inherits its model behaviour from.

    ``reserved`` are the entity's own attribute names (columns, relations,
    properties djony adds), which the model's class attributes never shadow.
    """
    mirror = _Mirror((reserved | set(dir(PonyEntity))) - set(ENTITY_DUNDERS)).of(model)
    return mirror if mirror is not None else DjangoInstance


def entity_methods(model: type[models.Model], behaviour: type) -> dict[str, Any]:
    """What the entity class itself carries so that it wins over Pony's ``Entity``."""
    body: dict[str, Any] = {
        "_djony_model_": model,  # see _model_instancecheck
        "__eq__": _eq,
        "__hash__": _hash,
        "__reduce__": _reduce,
        "_save_updated_": _save_updated,
        # Read from ``obj.__class__`` by Django's validation (validate_unique).
        "_default_manager": model._meta.default_manager,
        "_base_manager": model._meta.base_manager,
    }
    for manager in model._meta.managers:
        if manager.name not in dir(PonyEntity):
            body[manager.name] = ManagerOnClass(manager)
    for name in ENTITY_DUNDERS:
        value = getattr(behaviour, name, None)
        if value is not None and value is not getattr(object, name, None):
            body[name] = value
    return body


class ManagerOnClass:
    """The model's manager on the entity class (``type(obj).objects``), as on the model.

    Model code reads it (``AbstractUser.clean``: ``self.__class__.objects``); it
    gives Django's manager (Django instances), and, as Django's, not on objects.
    """

    def __init__(self, manager: models.Manager) -> None:
        self.manager = manager

    def __get__(self, instance: Any, owner: type) -> models.Manager:
        if instance is not None:
            raise AttributeError(f"Manager isn't accessible via {owner.__name__} instances")
        return self.manager


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


def _save_updated(self: Any) -> None:
    """Pony's UPDATE of a changed object, unless assignments are not saved (see above)."""
    if not _assignments_only.get():
        PonyEntity._save_updated_(self)
        return
    # Saved as far as the session is concerned; the row keeps its values, and so do
    # Pony's copies of them (a later read of the row is not a conflict).
    self._status_ = "updated"
    self._wbits_ = 0


def _eq(self: Any, other: Any) -> Any:
    """Django's ``Model.__eq__``: same concrete model and same key (also with Django instances)."""
    if self is other:
        return True
    if not isinstance(other, (models.Model, PonyEntity)):
        return NotImplemented
    if self._meta.concrete_model is not other._meta.concrete_model:
        return False
    pk = self.pk
    if pk is None:
        return False
    return pk == other.pk


def _hash(self: Any) -> int:
    """``hash(pk)`` as Django's, for objects whose key is known when Pony first sees them.

    Pony keeps objects in sets, some before their key is known (a new
    object); such an object keeps the identity hash it had then, for good.
    """
    fixed = self._djony_hash
    if fixed is not None:
        return fixed
    try:
        pkval = self._pkval_
    except AttributeError:  # Pony is registering the object: only its set of all objects
        return object.__hash__(self)
    if pkval is None or self._newid_ is not None:
        fixed = self._djony_hash = object.__hash__(self)
        return fixed
    return hash(pkval)


def _reduce(self: Any) -> tuple:
    """Pickle as (model label, database alias, column values): see :func:`restore`."""
    if self._status_ in ("created", "modified", "inserted", "updated") or self.pk is None:
        # Pony's own refusal: a changed object has to be stored first.
        return PonyEntity.__reduce__(self)
    values = {}
    for attr, value in self._vals_.items():
        if attr.is_collection:
            continue
        if isinstance(value, PonyEntity):
            value = ("pk", value._get_raw_pkval_())
        values[attr.name] = value
    return restore, (self._meta.concrete_model._meta.label, alias_of(self._database_), values)


def restore(label: str, alias: str, values: dict[str, Any]) -> Any:
    """The object ``_reduce`` pickled: in a Pony session, that session's object.

    Outside any session (a cache read in a plain Django view) it is a Django
    instance of the same row and values (columns the object did not carry are
    deferred, loaded by Django when read).
    """
    from django.apps import apps
    from pony.orm.core import local as pony_local
    from pony.orm.core import unpickle_entity

    from djony.registry import entity_for

    model = apps.get_model(label)
    if pony_local.db_session is None:
        return _django_instance(model, alias, values)
    entity = entity_for(model, alias)
    state: dict[str, Any] = {"__class__": entity}
    for name, value in values.items():
        if type(value) is tuple and len(value) == 2 and value[0] == "pk":
            target = entity._adict_[name].py_type
            value = target._get_by_raw_pkval_(value[1])
        state[name] = value
    return unpickle_entity(state)


def _django_instance(model: type[models.Model], alias: str, values: dict[str, Any]) -> Any:
    """A Django instance of ``model`` from an entity object's pickled ``values``."""
    attnames, row = [], []
    for field in model._meta.concrete_fields:
        if field.name not in values:
            continue
        value = values[field.name]
        if type(value) is tuple and len(value) == 2 and value[0] == "pk":
            value = value[1][0] if len(value[1]) == 1 else value[1]
        attnames.append(field.attname)
        row.append(value)
    return model.from_db(alias, attnames, row)


_FLAVOURS: dict[tuple[Any, type], type] = {}


def flavoured(objects: list[Any], model: type[models.Model]) -> list[Any]:
    """``objects`` of a proxy model's rows, as that proxy's instances.

    The objects are the concrete entity's (one per row in the session);
    their class becomes a subclass of the entity, unknown to Pony, whose
    ``_meta`` is the proxy's and which has the proxy's own methods, so
    ``obj.__class__._meta`` (Tastypie's ``DjangoAuthorization``) names the
    proxy's permissions, as for a Django instance of the proxy.
    """
    if not objects or not model._meta.proxy:
        return objects
    entity = type(objects[0])
    concrete = getattr(entity, "_djony_concrete_entity_", entity)
    flavour = _FLAVOURS.get((concrete, model))
    if flavour is None:
        mirror = behaviour_base(model, set(vars(concrete)))
        body = {
            "__slots__": (),
            "_meta": model._meta,
            "_djony_model_": model,
            "_djony_concrete_entity_": concrete,
        }
        body.update({k: v for k, v in entity_methods(model, mirror).items() if k in ENTITY_DUNDERS})
        # type.__new__, not the metaclass: Pony must not take it for a new entity.
        flavour = type.__new__(type(concrete), model.__name__, (mirror, concrete), body)
        _FLAVOURS[(concrete, model)] = flavour
    for obj in objects:
        if type(obj) is not flavour:
            obj.__class__ = flavour
    return objects
