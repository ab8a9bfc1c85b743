"""A resource class rebuilt on the other base: ``ModelResource`` <-> ``DjonyResource``.

The twin of ``UserResource(AuditMixin, CompanyBase)`` where ``CompanyBase``
derives from ``ModelResource`` is a subclass of ``UserResource`` itself whose
method resolution order is the original's with ``ModelResource`` replaced by
``DjonyResource`` (and the reverse: ``DjonyResource`` and its Pony mixin
replaced by ``ModelResource``)::

    UserResource twin -> UserResource -> AuditMixin -> CompanyBase
                      -> DjonyResource -> DjangoWritesMixin -> BaseModelResource -> Resource

Being a subclass keeps what ten-year-old code relies on working unchanged:
``super(UserResource, self)``, zero-argument ``super()`` in the user's methods,
``isinstance(self, UserResource)``, class attributes and mixins.  Everything
else (fields, ``Meta``, hooks, authentication, authorization, serializer) is
the original's; only where the two bases need a different field class
(``SetField`` is a ``DjonyResource`` field) does the twin use the other one,
and related resources point to their own twins, so ``full=True`` data is
served by the same base as the resource.

Every way a Tastypie field names its related resource is followed: a class,
``'self'``, a dotted path, a ``functools.partial`` of a class, and a
``GenericForeignKeyField``'s ``{Model: Resource}`` (each model's resource its
twin; Tastypie's ``GenericResource`` then resolves URIs among the twins).  A
related resource with no twin (a plain ``Resource``, a function, a path that
does not import, a class the other base refuses) stays the original's:
:attr:`Twins.kept` lists each such field with the reason, for the report.
"""

from __future__ import annotations

import functools
import importlib
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from tastypie.contrib.contenttypes.resources import GenericResource
from tastypie.fields import RelatedField, ToManyField, ToOneField
from tastypie.resources import ModelResource, Resource

from tastypie_djony.checks import RESOURCE_CLASSES
from tastypie_djony.fields import DjonyToOneField, SetField
from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify.trouble import Refusal, describe, on_field

SWAP = "_djony_verify_swap"

#: Attributes the metaclass derives from the class body, rebuilt for the twin.
DERIVED = frozenset({"__dict__", "__weakref__", "base_fields", "declared_fields", "_meta", SWAP})


class TwinError(Refusal):
    """The resource cannot be rebuilt on the other base (the message says why)."""


def source_base(cls: type) -> type:
    """``ModelResource`` or ``DjonyResource``: the base ``cls`` is built on."""
    if issubclass(cls, DjonyResource):
        return DjonyResource
    if issubclass(cls, ModelResource):
        return ModelResource
    raise TwinError(f"{cls.__qualname__} is neither a ModelResource nor a DjonyResource.")


def other_base(cls: type) -> type:
    return ModelResource if source_base(cls) is DjonyResource else DjonyResource


class _SwappedMro:
    """Metaclass mixin: the original's MRO with one base's classes exchanged for the other's."""

    def mro(cls) -> list[type]:
        original, source, target = cls.__dict__[SWAP]
        drop = set(source.__mro__) - set(target.__mro__)
        add = [k for k in target.__mro__ if k not in set(original.__mro__)]
        order: list[type] = [cls]
        for klass in original.__mro__:
            if klass is source:
                order.extend(add)
            if klass not in drop:
                order.append(klass)
        return order


_METACLASSES: dict[tuple[type, type], type] = {}


def _metaclass_for(cls: type, target: type) -> type:
    """The twin's metaclass: ``cls``'s (a project's own included) and the ``target`` base's,
    so a DjonyResource twin gets what DjonyResource's metaclass does to a class (an
    inherited ``get_object_list`` served by Pony)."""
    meta, wanted = type(cls), type(target)
    if issubclass(meta, wanted):
        bases: tuple[type, ...] = (meta,)
    elif issubclass(wanted, meta):
        bases = (wanted,)
    else:
        bases = (wanted, meta)
    if (meta, wanted) not in _METACLASSES:
        name = f"Twin{'_'.join(b.__name__ for b in bases)}"
        _METACLASSES[meta, wanted] = type(name, (_SwappedMro, *bases), {})
    return _METACLASSES[meta, wanted]


def _field_for(field: Any, target: type) -> Any:
    """``field`` as the ``target`` base expects it (a ModelResource has no ``SetField``)."""
    if target is ModelResource:
        if type(field) is SetField:
            field.__class__ = ToManyField
        elif type(field) is DjonyToOneField:
            field.__class__ = ToOneField
    return field


@dataclass(frozen=True)
class Kept:
    """A related field of a twin that points at the original's related resource, and why."""

    resource: str  # the class whose field it is
    field: str
    related: str  # what the field's ``to`` names
    reason: str

    def __str__(self) -> str:
        return (
            f"{self.resource}.{self.field}: {self.reason}; the twin's field uses "
            f"{self.related} as the original's does"
        )


class _Keep(Refusal):
    """The related resource stays the original's (the message says why)."""


class Twins:
    """Builds and remembers the twin of each resource class (related ones included).

    ``kept`` lists the related fields whose resource has no twin (a plain
    ``Resource``, a callable, a path that does not import ...): those fields
    keep the original's related resource.
    """

    def __init__(self) -> None:
        self.by_original: dict[type, type] = {}
        self.kept: list[Kept] = []

    def twin(self, cls: type) -> type:
        """The class ``cls`` would be on the other base; built once, with its related twins."""
        if cls in self.by_original:
            return self.by_original[cls]
        if not isinstance(cls, type):
            raise TwinError(f"{cls!r} is not a class.")
        if issubclass(cls, GenericResource):
            raise TwinError(
                f"{cls.__qualname__} is a GenericResource (the stand-in that resolves a "
                "GenericForeignKeyField's URIs): it serves no rows of its own."
            )
        source, target = source_base(cls), other_base(cls)
        namespace = {k: v for k, v in vars(cls).items() if k not in DERIVED}
        for name, field in cls.declared_fields.items():
            with on_field(name, cls.__qualname__):
                namespace[name] = _field_for(deepcopy(field), target)
        if "Meta" in vars(cls):
            # A Meta of its own: Api.register() writes api_name into it.
            namespace["Meta"] = type("Meta", (cls.Meta,), {"__module__": cls.__module__})
        namespace[SWAP] = (cls, source, target)
        namespace["__qualname__"] = f"{cls.__qualname__}[{target.__name__} twin]"
        try:
            twin = _metaclass_for(cls, target)(cls.__name__, (cls,), namespace)
        except Exception as error:  # ImproperlyConfigured, a Meta the other base refuses ...
            why = describe(error)
            raise TwinError(f"{cls.__qualname__} on {target.__name__}: {why}") from error
        finally:
            _forget_for_checks()
        for field in twin.base_fields.values():
            _field_for(field, target)
        self.by_original[cls] = twin
        self._point_related_fields_at_twins(cls, twin)
        return twin

    def _point_related_fields_at_twins(self, cls: type, twin: type) -> None:
        for name, field in twin.base_fields.items():
            if not isinstance(field, RelatedField):
                continue
            # What the original resolved (``self``, a path, the GenericForeignKeyField's
            # last object's resource) is looked up again for the twin.
            field._to_class = None
            field._rel_resources = {}
            if isinstance(field.to, str) and field.to == "self":
                continue  # the twin itself: the metaclass gave the field the twin
            try:
                field.to = self._related_twin(field.to, cls, name)
            except Exception as error:  # noqa: BLE001 - reported, the field keeps the original
                self.kept.append(Kept(cls.__qualname__, name, _label(field.to), describe(error)))

    def _related_twin(self, to: Any, cls: type, name: str) -> Any:
        """What a twin's related field points to in place of ``to`` (a class, a path, a
        ``{Model: Resource}`` dict, a ``functools.partial``); raises :class:`_Keep` or
        :class:`TwinError` when ``to`` has no twin."""
        if isinstance(to, dict):  # GenericForeignKeyField: {Model: Resource}
            return {model: self._part_twin(resource, cls, name) for model, resource in to.items()}
        if isinstance(to, str):
            return self._related_twin(_import_path(to), cls, name)
        if isinstance(to, functools.partial) and isinstance(to.func, type):
            if issubclass(to.func, GenericResource):
                return _generic_partial(to, lambda r: self._part_twin(r, cls, name))
            return functools.partial(self.twin(to.func), *to.args, **to.keywords)
        if isinstance(to, type):
            if to in self.by_original.values():
                return to  # a twin already
            if not issubclass(to, Resource):
                raise _Keep(f"{to.__qualname__} is not a Tastypie Resource")
            if not issubclass(to, (ModelResource, DjonyResource)):
                raise _Keep(
                    f"{to.__qualname__} is a plain Resource (neither ModelResource nor "
                    "DjonyResource): it has no twin"
                )
            return self.twin(to)
        if callable(to):
            raise _Keep("its related resource comes from a callable, which has no twin")
        raise _Keep(f"its related resource {to!r} is neither a class, a path nor a callable")

    def _part_twin(self, resource: Any, cls: type, name: str) -> Any:
        """One resource of a ``{Model: Resource}`` dict or a GenericResource's list: its twin,
        or the original (noted) when it has none, so the others are still twinned."""
        try:
            return self._related_twin(resource, cls, name)
        except Exception as error:  # noqa: BLE001 - reported, that one keeps the original
            self.kept.append(Kept(cls.__qualname__, name, _label(resource), describe(error)))
            return resource

    def instance(self, original: Any) -> Any:
        """A twin instance standing in for the mounted ``original`` (same ``api_name``)."""
        twin = self.twin(type(original))(api_name=original._meta.api_name)
        twin.api_name = getattr(original, "api_name", original._meta.api_name)
        # What Api.register() wrote into the original's options (a NamespacedApi's namespace).
        twin._meta.urlconf_namespace = original._meta.urlconf_namespace
        return twin


def _generic_partial(to: functools.partial, twin_of: Any) -> functools.partial:
    """``partial(GenericResource, resources=[...])`` with each resource's twin."""
    args, keywords = list(to.args), dict(to.keywords)
    if "resources" in keywords:
        keywords["resources"] = [twin_of(r) for r in keywords["resources"]]
    elif args:
        args[0] = [twin_of(r) for r in args[0]]
    return functools.partial(to.func, *args, **keywords)


def _import_path(path: str) -> Any:
    """What Tastypie's ``to_class`` imports for a dotted ``to`` (``module.Class``)."""
    module_path, _, name = path.rpartition(".")
    if not module_path:
        raise _Keep(f"{path!r} is not a dotted path (Tastypie imports module.Class)")
    try:
        module = importlib.import_module(module_path)
    except ImportError as error:
        raise _Keep(f"{path!r} does not import ({type(error).__name__}: {error})") from error
    except Exception as error:  # the module raised while it was imported
        raise _Keep(f"{path!r} does not import ({describe(error)})") from error
    found = getattr(module, name, None)
    if found is None:
        raise _Keep(f"{path!r} does not import (module {module_path!r} has no {name!r})")
    return found


def _label(to: Any) -> str:
    """How a field's ``to`` is named in the report."""
    if isinstance(to, type):
        return to.__qualname__
    if isinstance(to, dict):
        return "{" + ", ".join(f"{m.__name__}: {_label(r)}" for m, r in to.items()) + "}"
    if isinstance(to, functools.partial):
        return f"partial({_label(to.func)}, ...)"
    if isinstance(to, str):
        return repr(to)
    return getattr(to, "__qualname__", None) or repr(to)


def _forget_for_checks() -> None:
    """Twins are not the project's resources: keep them out of tastypie_djony's checks."""
    RESOURCE_CLASSES[:] = [c for c in RESOURCE_CLASSES if SWAP not in vars(c)]
