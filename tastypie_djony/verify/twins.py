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
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from tastypie.fields import RelatedField, ToManyField, ToOneField
from tastypie.resources import ModelResource

from tastypie_djony.checks import RESOURCE_CLASSES
from tastypie_djony.fields import DjonyToOneField, SetField
from tastypie_djony.resources import DjonyResource

SWAP = "_djony_verify_swap"

#: Attributes the metaclass derives from the class body, rebuilt for the twin.
DERIVED = frozenset({"__dict__", "__weakref__", "base_fields", "declared_fields", "_meta", SWAP})


class TwinError(Exception):
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


class Twins:
    """Builds and remembers the twin of each resource class (related ones included)."""

    def __init__(self) -> None:
        self.by_original: dict[type, type] = {}

    def twin(self, cls: type) -> type:
        """The class ``cls`` would be on the other base; built once, with its related twins."""
        if cls in self.by_original:
            return self.by_original[cls]
        source, target = source_base(cls), other_base(cls)
        namespace = {k: v for k, v in vars(cls).items() if k not in DERIVED}
        for name, field in cls.declared_fields.items():
            namespace[name] = _field_for(deepcopy(field), target)
        if "Meta" in vars(cls):
            # A Meta of its own: Api.register() writes api_name into it.
            namespace["Meta"] = type("Meta", (cls.Meta,), {"__module__": cls.__module__})
        namespace[SWAP] = (cls, source, target)
        namespace["__qualname__"] = f"{cls.__qualname__}[{target.__name__} twin]"
        try:
            twin = _metaclass_for(cls, target)(cls.__name__, (cls,), namespace)
        except Exception as error:  # ImproperlyConfigured, a Meta the other base refuses ...
            raise TwinError(f"{cls.__qualname__} on {target.__name__}: {error}") from error
        finally:
            _forget_for_checks()
        for field in twin.base_fields.values():
            _field_for(field, target)
        self.by_original[cls] = twin
        self._point_related_fields_at_twins(twin)
        return twin

    def _point_related_fields_at_twins(self, twin: type) -> None:
        for field in twin.base_fields.values():
            if not isinstance(field, RelatedField) or field.to == "self":
                continue
            related = field.to_class
            if related in self.by_original.values():
                continue
            try:
                related_twin = self.twin(related)
            except TwinError:
                continue  # a plain Resource: the twin uses the original
            field.to = related_twin
            field._to_class = None

    def instance(self, original: Any) -> Any:
        """A twin instance standing in for the mounted ``original`` (same ``api_name``)."""
        twin = self.twin(type(original))(api_name=original._meta.api_name)
        twin.api_name = getattr(original, "api_name", original._meta.api_name)
        # What Api.register() wrote into the original's options (a NamespacedApi's namespace).
        twin._meta.urlconf_namespace = original._meta.urlconf_namespace
        return twin


def _forget_for_checks() -> None:
    """Twins are not the project's resources: keep them out of tastypie_djony's checks."""
    RESOURCE_CLASSES[:] = [c for c in RESOURCE_CLASSES if SWAP not in vars(c)]
