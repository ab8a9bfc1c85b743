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
  Django's, no ``pre_init`` receiver listens to it, no ``post_init`` receiver but
  Django's own of an ``ImageField`` with dimension fields and no default (its
  ``update_dimension_fields`` finds no file in an empty object and returns: a photo's
  or a thumbnail's model), and every field default is a value or a callable of
  :data:`PURE_DEFAULTS` (a default of your own may read or write, so it is called, as on
  ``ModelResource``).

Anything else is Tastypie's ``get_schema`` as it is.

:func:`build_schema` is Tastypie's ``build_schema`` (the same dict, field by field) but
for how a related field's ``related_schema`` link is found: Tastypie builds an instance of
the related resource to read its ``resource_name`` and reverses the link on every
request.  Where the related resource's ``__init__`` only copies its class's fields
(Tastypie's, ``DjonyResource``'s), the name is its class's; where this resource reverses
as Tastypie does, the link is reversed once per URLconf, script prefix and language
(:meth:`~tastypie_djony.uris.DetailUris.schema_uri`).  An ``__init__`` or a
``_build_reverse_url`` of your own is called as Tastypie calls it.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from django.db import models
from django.db.models.fields.files import ImageFieldFile, ImageFileDescriptor
from django.db.models.signals import post_init, pre_init
from django.urls import NoReverseMatch
from django.utils import timezone
from tastypie.resources import Resource

from tastypie_djony.authorization import authorize_read_detail
from tastypie_djony.stock import MODEL_CLASS, NOTHING, detail_authorization, stock_reverse
from tastypie_djony.uris import uris_of

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
    if pre_init.has_listeners(model):
        return False
    if post_init.has_listeners(model) and not _only_empty_dimensions(model):
        return False
    for field in model._meta.fields:
        if not field.has_default():
            continue
        if callable(field.default) and field.default not in PURE_DEFAULTS:
            return False
    return True


def _only_empty_dimensions(model: type[models.Model]) -> bool:
    """Whether every ``post_init`` receiver of ``model`` is Django's own
    ``ImageField.update_dimension_fields`` of one of its fields that has no default,
    reading the file through Django's own descriptor and file class: on an empty object
    it finds no file and returns, changing nothing."""
    receivers, async_receivers = post_init._live_receivers(model)
    if async_receivers:
        return False
    own = {id(field) for field in model._meta.concrete_fields}
    for receiver in receivers:
        field = getattr(receiver, "__self__", None)
        if (
            getattr(receiver, "__func__", None) is not models.ImageField.update_dimension_fields
            or id(field) not in own
            or field.has_default()
            or field.descriptor_class is not ImageFileDescriptor
            or field.attr_class is not ImageFieldFile
        ):
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


def build_schema(resource: Any, base: type) -> dict[str, Any]:
    """Tastypie's ``build_schema()`` of ``resource`` (see the module; ``base``: the class
    whose ``__init__`` is known, ``DjonyResource``)."""
    meta = resource._meta
    data: dict[str, Any] = {
        "fields": {},
        "default_format": meta.default_format,
        "allowed_list_http_methods": meta.list_allowed_methods,
        "allowed_detail_http_methods": meta.detail_allowed_methods,
        "default_limit": meta.limit,
    }
    if meta.ordering:
        data["ordering"] = meta.ordering
    if meta.filtering:
        data["filtering"] = meta.filtering
    try:
        pk_field_name = meta.queryset.model._meta.pk.name
    except AttributeError:  # a resource without a model
        pk_field_name = None
    known_inits = (Resource.__init__, base.__init__)
    for field_name, field_object in resource.fields.items():
        described = data["fields"][field_name] = {
            "default": field_object.default,
            "type": field_object.dehydrated_type,
            "nullable": field_object.null,
            "blank": field_object.blank,
            "readonly": field_object.readonly,
            "help_text": field_object.help_text,
            "unique": field_object.unique,
            "primary_key": field_name == pk_field_name,
            "verbose_name": field_object.verbose_name or field_name.replace("_", " "),
        }
        if field_object.dehydrated_type != "related":
            continue
        described["related_type"] = "to_many" if field_object.is_m2m else "to_one"
        described["related_schema"] = _related_schema(resource, field_object, known_inits)
    return data


def _related_schema(resource: Any, field: Any, known_inits: tuple) -> str:
    """A related field's ``related_schema``: the URI of its resource's ``schema/``."""
    related = field.to_class
    if related.__init__ in known_inits:
        name = related._meta.resource_name
    else:
        name = related()._meta.resource_name
    if stock_reverse(resource):
        return uris_of(resource).schema_uri(name)
    kwargs = {"api_name": resource._meta.api_name, "resource_name": name}
    try:
        return resource._build_reverse_url("api_get_schema", kwargs=kwargs)
    except NoReverseMatch:
        return ""
