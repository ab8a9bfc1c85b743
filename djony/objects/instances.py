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
Pony: Django's ``__eq__``/``__hash__`` (:mod:`djony.objects.identity`),
``__repr__`` (``<Writer: Zed>``) and pickling by model label and key
(:mod:`djony.objects.pickling`).  ``isinstance(obj, TheModel)`` is
:mod:`djony.objects.identity`'s too.  Model methods that call
``save()``/``delete()`` of ``models.Model`` expect a Django instance and do
not work here.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from django.db import models
from django.db.models.base import ModelState
from pony.orm.core import Entity as PonyEntity

from djony.bridge.connection import alias_of
from djony.objects.identity import django_eq, django_hash
from djony.objects.pickling import reduce

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

    _djony_hash: int | None = None  # see djony.objects.identity.django_hash
    _djony_page: Any = None  # the djony.objects.pages.Page the object was loaded with
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
        "_djony_model_": model,  # see djony.objects.identity
        "__eq__": django_eq,
        "__hash__": django_hash,
        "__reduce__": reduce,
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
