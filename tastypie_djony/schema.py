"""``schema/`` without the empty object and the object list nobody reads.

Tastypie's ``get_schema`` builds a bundle of an empty object (``build_bundle()``:
``Meta.object_class()``), the object list (``get_object_list(request)``) and asks
``authorized_read_detail(object_list, bundle)``, then writes ``build_schema()``.  When
the authorization's answer is known without them
(:func:`~tastypie_djony.stock.detail_authorization`: Tastypie's
``Authorization``/``ReadOnlyAuthorization`` allow everything; a stock
``DjangoAuthorization`` needs the model class only), :func:`bare_schema` says whether
building them can be skipped with nothing else changing:

* ``get_object_list`` and ``build_bundle`` are ``DjonyResource``'s own (its object list
  runs no query until read; an override of yours is called as Tastypie calls it);
* building the empty object does nothing anyone sees: the model's ``__init__`` is
  Django's, no ``pre_init``/``post_init`` receiver listens to it, and every field default
  is a value or a callable of :data:`PURE_DEFAULTS` (a default of your own may read or
  write, so it is called, as on ``ModelResource``).

Anything else is Tastypie's ``get_schema`` as it is.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from django.db import models
from django.db.models.signals import post_init, pre_init
from django.utils import timezone

from tastypie_djony.authorization import authorize_read_detail
from tastypie_djony.stock import MODEL_CLASS, NOTHING, detail_authorization

#: Field defaults whose call has no effect but its value.
PURE_DEFAULTS = frozenset(
    {
        timezone.now,
        datetime.datetime.now,
        datetime.date.today,
        uuid.uuid1,
        uuid.uuid4,
        dict,
        list,
        set,
        tuple,
        str,
        int,
        float,
        bool,
        bytes,
    }
)


def bare_schema(resource: Any, base: type) -> str | None:
    """What the authorization of ``resource``'s ``schema/`` needs (``NOTHING`` or
    ``MODEL_CLASS``) where it may skip the empty object and the object list (see the
    module), else ``None``; ``base``: the class whose ``get_object_list``/``build_bundle``
    are known (``DjonyResource``)."""
    kind = type(resource)
    model = resource._meta.object_class
    needs = detail_authorization(resource)
    if model is None or needs not in (NOTHING, MODEL_CLASS):
        return None
    if kind.get_object_list is not base.get_object_list:
        return None
    if kind.build_bundle is not base.build_bundle:
        return None
    return needs if silent_instance(model) else None


def silent_instance(model: type[models.Model]) -> bool:
    """Whether ``model()`` has no effect but the instance (see the module)."""
    if model.__init__ is not models.Model.__init__:
        return False
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return False
    for field in model._meta.fields:
        if not field.has_default():
            continue
        if callable(field.default) and field.default not in PURE_DEFAULTS:
            return False
    return True


def serve_schema(resource: Any, request: Any, needs: str) -> Any:
    """``get_schema`` of a resource :func:`bare_schema` serves (``needs``: what it said):
    the same steps, in order, but for the bundle and the object list."""
    resource.method_check(request, allowed=["get"])
    resource.is_authenticated(request)
    resource.throttle_check(request)
    resource.log_throttled_access(request)
    if needs == MODEL_CLASS:
        authorize_read_detail(resource, request, resource._meta.object_class)
    return resource.create_response(request, resource.build_schema())
