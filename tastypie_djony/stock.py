"""What of a resource is Tastypie's own: the one place that decides it.

A serving path may skip work only where the resource does what Tastypie's own code
does; every path asks here:

* :func:`overridden_hooks`: which of the page-shaping methods (:data:`HOOKS`) the
  resource's class overrides (the plans);
* :func:`stock_uris`: whether a resource's URIs come from Tastypie's URI methods
  alone (custom endpoints of its own beside them), so that a URI is a function of the
  key (:mod:`tastypie_djony.uris`);
* :func:`reads_meta_queryset`: whether its object list is ``Meta.queryset`` as it
  is (kept detail SQL, :mod:`tastypie_djony.serve.detail`);
* :func:`detail_authorization`: what a detail's authorization needs to see (nothing,
  the model class, or the object);
* :func:`stock_json`, :func:`writes_stock_json`: whether an answer is JSON written by
  Tastypie's own serializer (written by :mod:`tastypie_djony.convert` then);
* :func:`inert_throttle`: whether the resource's throttle is Tastypie's ``BaseThrottle``
  and its authentication's identifier Tastypie's own (nothing to check or record);
* :func:`bad_request_response`: the 400 Tastypie's view gives a ``BadRequest``, for one
  answered outside that view's handling.

A method counts as Tastypie's own when it is the one ``base`` (``DjonyResource``)
has, or one marked equivalent with :func:`stock_uri_method` (URIs) or
:func:`stock_authorized_method` (authorization steps).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from tastypie.authentication import MultiAuthentication
from tastypie.authorization import Authorization, DjangoAuthorization, ReadOnlyAuthorization
from tastypie.http import HttpBadRequest
from tastypie.resources import BaseModelResource, NamespacedModelResource, Resource, sanitize
from tastypie.serializers import Serializer
from tastypie.throttle import BaseThrottle

from djony.serving import plain_queryset_class
from tastypie_djony.formats import determine_format

#: Resource methods that, when overridden, change what a page contains.  The URI
#: methods are :data:`URI_METHODS`.
HOOKS = (
    "full_dehydrate",
    "dehydrate",
    "dehydrate_resource_uri",
    "alter_list_data_to_serialize",
    "alter_detail_data_to_serialize",
    "obj_get",
    "cached_obj_get",
    "create_response",
    "serialize",
    "build_bundle",
)

#: Of :data:`HOOKS`, those the bundle path calls where Tastypie calls them (overrides welcome).
CALLED_HOOKS = frozenset(
    {"dehydrate", "alter_list_data_to_serialize", "alter_detail_data_to_serialize"}
)

#: Of :data:`HOOKS`, those only a detail request calls (``get_detail``): a list page, and a
#: related resource's nested rows, never reach them.
DETAIL_HOOKS = frozenset({"obj_get", "cached_obj_get", "alter_detail_data_to_serialize"})

#: Of :data:`HOOKS`, those only a list page calls (``get_list``).
LIST_HOOKS = frozenset({"alter_list_data_to_serialize"})

#: The methods whose stock versions make a URI a function of the key alone.
URI_METHODS = (
    "get_resource_uri",
    "detail_uri_kwargs",
    "resource_uri_kwargs",
    "_build_reverse_url",
    "base_urls",
    "prepend_urls",
    "override_urls",
)

_STOCK_URI_METHODS = {
    name: {getattr(base, name) for base in (Resource, BaseModelResource, NamespacedModelResource)}
    for name in URI_METHODS
}

#: ``DjangoAuthorization``'s methods a detail read goes through.
READ_DETAIL_METHODS = ("read_detail", "perm_obj_checks", "base_checks", "check_user_perm")

#: What a detail's authorization needs (see :func:`detail_authorization`).
NOTHING, MODEL_CLASS, OBJECT = "nothing", "model class", "object"


def plannable(resource: Any) -> bool:
    """Whether ``resource`` lets a plan serve it at all (``Meta.fast_path``, default ``True``)."""
    return bool(getattr(resource._meta, "fast_path", True))


def inert_throttle(resource: Any) -> bool:
    """Whether ``throttle_check`` and ``log_throttled_access`` do nothing for ``resource``.

    Tastypie's ``BaseThrottle`` (the default ``Meta.throttle``) never throttles and records
    nothing; both steps then only ask the authentication for the requester's identifier,
    which Tastypie's own classes read from the request without side effects.  A throttle
    of another class (``CacheThrottle``, a project's), a step overridden on the instance, or
    an authentication whose ``get_identifier`` is not Tastypie's (for a
    ``MultiAuthentication``: any of its backends') keeps both steps as they are.
    """
    meta = resource._meta
    throttle = meta.throttle
    if type(throttle) is not BaseThrottle or {"should_be_throttled", "accessed"} & set(
        vars(throttle)
    ):
        return False
    authentication = meta.authentication
    backends = (
        authentication.backends if type(authentication) is MultiAuthentication else [authentication]
    )
    return all(
        "get_identifier" not in vars(backend)
        and type(backend).get_identifier.__module__ == "tastypie.authentication"
        for backend in backends
    )


def bad_request_response(resource: Any, request: Any, refusal: BaseException) -> HttpResponse:
    """The answer Tastypie's view wrapper gives when ``refusal`` (a ``BadRequest``) leaves
    the view: its message, HTML-escaped as Tastypie escapes it, in the error format."""
    data = {"error": sanitize(refusal.args[0]) if refusal.args else ""}
    return resource.error_response(request, data, response_class=HttpBadRequest)


def overridden_hooks(cls: type, base: type) -> frozenset[str]:
    """The :data:`HOOKS` ``cls`` defines otherwise than ``base``, plus a custom serializer's."""
    return frozenset(hook for hook in HOOKS if getattr(cls, hook) is not getattr(base, hook))


def stock_serializer(resource: Any) -> bool:
    """Whether ``resource`` serialises with Tastypie's own ``Serializer`` class."""
    return type(resource._meta.serializer) is Serializer


def request_format(resource: Any, request: Any) -> str:
    """``resource.determine_format(request)``, asked once per request.

    Which plan serves a request and how its answer is written both depend on it;
    Tastypie's (mimeparse over the ``Accept`` header) costs a few percent of a small
    detail, and Tastypie's own path asks it once per answer too: where it is Tastypie's
    own, the header's match is kept (:mod:`tastypie_djony.formats`).
    """
    formats = request.__dict__.setdefault("_djony_formats", {})
    key = id(resource)
    if key not in formats:
        formats[key] = determine_format(resource, request)
    return formats[key]


def stock_json(resource: Any, request: Any) -> bool:
    """Whether ``request``'s answer is JSON written by Tastypie's own ``Serializer`` class.

    Then a plan writes the JSON itself (:func:`tastypie_djony.convert.render_json`, the
    same bytes); otherwise the resource's ``create_response`` writes the page's data, as
    Tastypie's ``get_list`` and ``get_detail`` hand it over, with the resource's serializer.
    """
    return stock_serializer(resource) and request_format(resource, request) == "application/json"


def writes_stock_json(resource: Any, request: Any) -> bool:
    """Whether ``resource.create_response`` writes ``request``'s answer as Tastypie's own
    ``Serializer.to_json`` does: :func:`stock_json`, the resource's ``serialize`` is
    Tastypie's, and the serializer's JSON method (for its ``content_types``) is its
    ``to_json``, with no ``to_json``/``to_simple`` set on the instance."""
    if not stock_json(resource, request) or type(resource).serialize is not Resource.serialize:
        return False
    serializer = resource._meta.serializer
    method = getattr(serializer, "_to_methods", {}).get("application/json")
    own = vars(serializer)
    return (
        getattr(method, "__func__", None) is Serializer.to_json
        and "to_json" not in own
        and "to_simple" not in own
    )


def stock_uri_method(method: Callable) -> Callable:
    """Mark an override that builds the same URI as Tastypie's method of that name."""
    _STOCK_URI_METHODS[method.__name__].add(method)
    return method


#: The URI methods that add URL patterns: patterns of their own change a detail URI only
#: when one of them is Tastypie's detail URL name (a slug detail, say); custom endpoints
#: of other names leave the URIs Tastypie's.
URL_ADDING = ("prepend_urls", "override_urls")

#: The name ``get_resource_uri`` reverses for a detail.
DETAIL_URL = "api_dispatch_detail"


def stock_reverse(resource: Any) -> bool:
    """Whether ``resource`` reverses its URLs as Tastypie does (its ``_build_reverse_url`` is
    Tastypie's, ``NamespacedModelResource``'s or marked with :func:`stock_uri_method`)."""
    return type(resource)._build_reverse_url in _STOCK_URI_METHODS["_build_reverse_url"]


def stock_uris(resource: Any) -> bool:
    """Whether ``resource``'s detail URIs are Tastypie's own function of the key.

    Every URI method of its class is Tastypie's own (or marked as equivalent with
    :func:`stock_uri_method`), but for ``prepend_urls``/``override_urls`` whose patterns
    add endpoints without a pattern of Tastypie's detail URL name.
    """
    cls = type(resource)
    for name in URI_METHODS:
        if getattr(cls, name, None) in _STOCK_URI_METHODS[name]:
            continue
        if name not in URL_ADDING or _names_detail_url(getattr(resource, name)()):
            return False
    return True


def _names_detail_url(patterns: list) -> bool:
    """Whether ``patterns`` (included ones too) hold one named as Tastypie's detail URL."""
    for pattern in patterns:
        if getattr(pattern, "name", None) == DETAIL_URL:
            return True
        inner = getattr(pattern, "url_patterns", None)
        if inner is not None and _names_detail_url(inner):
            return True
    return False


def reads_meta_queryset(resource: Any, base: type) -> bool:
    """Whether ``resource``'s filtered object list is ``Meta.queryset`` as it is.

    ``get_object_list`` and ``apply_filters`` are ``base``'s, and ``Meta.queryset`` is a
    plain ``QuerySet`` or a subclass that only adds methods
    (:func:`~djony.serving.plain_queryset_class`: a class overriding Django's may add
    conditions when it is cloned).
    """
    cls = type(resource)
    return (
        cls.get_object_list is base.get_object_list
        and cls.apply_filters is base.apply_filters
        and plain_queryset_class(type(resource._meta.queryset))
    )


#: The ``authorized_read_detail`` methods that ask the authorization as Tastypie's own does.
_STOCK_AUTHORIZED: set[Callable] = {Resource.authorized_read_detail}


def stock_authorized_method(method: Callable) -> Callable:
    """Mark an ``authorized_*`` override that asks the authorization as Tastypie's does
    (:class:`tastypie_djony.permissions.PermissionsReadOnceMixin`)."""
    _STOCK_AUTHORIZED.add(method)
    return method


def detail_authorization(resource: Any) -> str:
    """What ``authorized_read_detail`` needs to answer for a detail of ``resource``.

    :data:`NOTHING`: Tastypie's ``Authorization``/``ReadOnlyAuthorization`` (no
    ``read_detail`` set on the instance), whose ``read_detail`` allows every object;
    :data:`MODEL_CLASS`: a stock ``DjangoAuthorization``, which reads ``bundle.obj`` for
    its class only (:mod:`tastypie_djony.authorization`); :data:`OBJECT`: anything else,
    or an override of ``authorized_read_detail``.
    """
    if type(resource).authorized_read_detail not in _STOCK_AUTHORIZED:
        return OBJECT
    authorization = resource._meta.authorization
    kind = type(authorization)
    if kind in (Authorization, ReadOnlyAuthorization) and "read_detail" not in vars(authorization):
        return NOTHING
    if not isinstance(authorization, DjangoAuthorization):
        return OBJECT
    own = vars(authorization)
    stock = all(
        getattr(kind, name) is getattr(DjangoAuthorization, name) and name not in own
        for name in READ_DETAIL_METHODS
    )
    return MODEL_CLASS if stock else OBJECT
