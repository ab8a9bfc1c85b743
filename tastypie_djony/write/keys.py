"""What the keys of a write body may name: Tastypie's PATCH and parsing, a 400 for the rest.

:class:`WriteKeysMixin` answers with a 400, where Tastypie answers 500, a body its
parser refuses (YAML, plist and XML parser errors), a PATCH of one object whose body is
no object of fields, a PATCH key naming an attribute of the object that is no field of
the resource (``{"asave": 1}``, ``{"_state": 1}``, ``{"author_id": 2}``: Tastypie looks
it up among the fields once ``hasattr(bundle.obj, key)``), and a PATCH key that no
column of the model holds (``save(update_fields=...)`` would refuse it).
"""

from __future__ import annotations

import inspect
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.manager import ManagerDescriptor
from tastypie.bundle import Bundle
from tastypie.exceptions import BadRequest

from djony.serving import EntityDescriptor
from tastypie_djony.bodies import PARSER_ERRORS, require_object_body, unreadable_body


class WriteKeysMixin:
    """Tastypie's body parsing and PATCH keys, the client's errors a 400 (see the module)."""

    _meta: Any
    fields: dict

    def deserialize(self, request: Any, data: Any, format: str = "application/json") -> Any:
        """Tastypie's; a body its parser refuses is a 400 with the parser's reason, never a 500.

        Tastypie lets YAML and plist parser errors through (a 500) and answers
        malformed XML with an empty message.  A PATCH of one object must send an
        object of fields (Tastypie iterates the body's keys).
        """
        try:
            deserialized = super().deserialize(request, data, format=format)
        except BadRequest as exc:
            if exc.args and exc.args[0] or exc.__context__ is None:
                raise
            raise BadRequest(unreadable_body(exc.__context__)) from None
        except (RecursionError, UnicodeError, ValueError, *PARSER_ERRORS) as exc:
            raise BadRequest(unreadable_body(exc)) from None
        patched = getattr(request, "_djony_patched_object", None)
        if getattr(request, "_djony_patch_detail", False):
            require_object_body(deserialized)
            self.check_patch_keys(deserialized, patched)
        return deserialized

    def patch_detail(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's; a body key naming an attribute of the object that is no field is a 400.

        Tastypie saves a body key when ``hasattr(bundle.obj, key)`` and then looks it
        up among the resource's fields: a method, property or instance attribute of the
        model that the resource does not expose (``{"asave": 1}``, ``{"_state": 1}``) is
        a ``KeyError``, a 500.  A key the object has not (a manager, ``objects``) is
        ignored, as by Tastypie.
        """
        request._djony_patch_detail = True
        return super().patch_detail(request, **kwargs)

    def cached_obj_get(self, bundle: Bundle, **kwargs: Any) -> Any:
        """Tastypie's; a PATCH of one object keeps the object its body's keys are checked on."""
        obj = super().cached_obj_get(bundle=bundle, **kwargs)
        request = bundle.request
        if getattr(request, "_djony_patch_detail", False):
            request._djony_patched_object = obj
        return obj

    def check_patch_keys(self, deserialized: dict, obj: Any = None) -> None:
        """Refuse a PATCH key the object has (as Tastypie asks: ``hasattr``) but no field is for.

        ``obj`` is the object the PATCH edits; without it, the keys an instance of the
        model has by its class.
        """
        model = self._meta.object_class
        for key in deserialized:
            if key in self.fields:
                continue
            if _has_attribute(obj, key) if obj is not None else instance_attribute(model, key):
                raise BadRequest(f"{key!r} is not a field of this resource.")

    def columns_to_update(self, keys: list[str]) -> list[str]:
        """The ``save(update_fields=...)`` of a PATCH that sent ``keys``.

        Tastypie passes every key the object has; Django refuses names that are no
        concrete field (a ``ValueError``, a 500).  Kept: the model fields the keys'
        resource fields write.  A reverse one-to-one is left out: ``save_related``
        saves the related row, as in a PUT.  Anything else (a ``GenericForeignKey``,
        a property) is a 400 naming the key: a PATCH cannot tell which columns it sets.
        """
        meta = self._meta.object_class._meta
        columns = []
        for key in keys:
            field = self.fields.get(key)
            attribute = getattr(field, "attribute", None) if field is not None else key
            try:
                model_field = meta.get_field(attribute) if isinstance(attribute, str) else None
            except FieldDoesNotExist:
                model_field = None
            if model_field is not None and model_field.concrete:
                columns.append(model_field.name)
            elif not (
                model_field is not None and model_field.one_to_one and model_field.auto_created
            ):
                raise BadRequest(
                    f"{key!r} cannot be changed by a PATCH of {meta.object_name}: it is no "
                    "column of the model; send the whole object with PUT."
                )
        return columns


def instance_attribute(model: type[models.Model], name: str) -> bool:
    """Whether a Django instance of ``model`` has ``name`` (managers, ``Model.p``: the class's)."""
    static = inspect.getattr_static(model, name, None)
    if isinstance(static, (ManagerDescriptor, EntityDescriptor)):
        return False
    return hasattr(model, name)


def _has_attribute(obj: Any, name: Any) -> bool:
    """Tastypie's ``hasattr(bundle.obj, key)`` for a body key (any JSON key is a string)."""
    try:
        return hasattr(obj, name)
    except Exception:  # a property that fails on this object: Tastypie's hasattr would raise
        return True
