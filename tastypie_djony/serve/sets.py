"""``set/1;2;3/``: Tastypie's ``get_multiple``, its objects' values from a list plan.

Tastypie's ``get_multiple`` reads ``obj_get_list(bundle)`` filtered by
``<detail_uri_name>__in`` the identifiers in one query, keys the objects by
``str(getattr(obj, detail_uri_name))`` (a later object of the same key wins), then, for
each identifier in the order given, dehydrates its object (``full_dehydrate(for_list=True)``,
twice for an identifier given twice) or adds it to ``not_found``.  :func:`serve_set` does
the same steps in the same order (authentication, throttle, the object list with its
authorization, then the objects) with the page's rows for values, as a list page is
served: the row-built plan writes the rows' values, the bundle plan runs the hooks on
bundles whose objects are built only when read.  The key is read from the rows' own
column, so only a ``detail_uri_name`` that is a column is served so
(:func:`set_plan`); a row the plan cannot reproduce is answered by :func:`general_set`:
the rest of Tastypie's ``get_multiple`` for the same object list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpResponse
from tastypie.bundle import Bundle
from tastypie.exceptions import Unauthorized

from tastypie_djony.convert import json_response, render_json, simple
from tastypie_djony.declines import Fallback
from tastypie_djony.objectlist import check_rows_serve
from tastypie_djony.serve.choice import list_plan
from tastypie_djony.serve.plans import BundlePlan
from tastypie_djony.serve.verify import verification
from tastypie_djony.stock import stock_json
from tastypie_djony.uris import uris_of


def set_plan(resource: Any, base: type, request: Any) -> Any:
    """The list plan serving ``request``'s ``set/``, or ``None`` (Tastypie's own
    ``get_multiple``): also when ``detail_uri_name`` is not a column of the model."""
    if uris_of(resource).key_field() is None:
        return None
    return list_plan(resource, base, request)


def identifiers_of(resource: Any, kwargs: dict) -> list[str]:
    """The identifiers of a ``set/`` URL, as Tastypie splits them."""
    return kwargs.get(f"{resource._meta.detail_uri_name}_list", "").split(";")


def set_object_list(resource: Any, request: Any, identifiers: list[str]) -> tuple[Any, Any]:
    """The base bundle and ``obj_get_list`` filtered by the identifiers (``None`` where
    ``obj_get_list`` is not implemented: Tastypie then asks ``obj_get`` for each)."""
    base_bundle = resource.build_bundle(request=request)
    try:
        objects = resource.obj_get_list(bundle=base_bundle)
    except NotImplementedError:
        return base_bundle, None
    return base_bundle, objects.filter(**{f"{resource._meta.detail_uri_name}__in": identifiers})


def serve_set(
    resource: Any,
    plan: Any,
    request: Any,
    kwargs: dict,
    general: Callable[[Any, Any, list[str]], HttpResponse],
) -> HttpResponse:
    """``get_multiple`` by ``plan``; ``general(base_bundle, queryset, identifiers)`` is the
    rest of Tastypie's ``get_multiple`` after its object list (:func:`general_set`)."""
    verify = verification()
    resource.method_check(request, allowed=["get"])
    resource.is_authenticated(request)
    resource.throttle_check(request)
    identifiers = identifiers_of(resource, kwargs)
    base_bundle, queryset = set_object_list(resource, request, identifiers)
    meta = resource._meta
    key = uris_of(resource).key_field()
    bundles = isinstance(plan, BundlePlan)
    json = stock_json(resource, request)
    try:
        if queryset is None:
            raise Fallback
        check_rows_serve(queryset)
        at = plan.selected(queryset, (key,)).index(key)
        if bundles:
            prepared = plan.values(*plan.read(queryset, also=(key,)))
            rows = prepared.page.rows
        else:
            rows = plan.rows(queryset, also=(key,))
            rendered = plan.render(rows)
    except Fallback:
        return general(base_bundle, queryset, identifiers)
    position = {str(row[at]): index for index, row in enumerate(rows)}
    wanted = [(identifier, position.get(identifier)) for identifier in identifiers]
    # A row dehydrated more than once gets lists of its own each time (a hook may append).
    times = Counter(found for _, found in wanted if found is not None)
    objects: list[Any] = []
    not_found = []
    for identifier, found in wanted:
        if found is None:
            not_found.append(identifier)
        elif bundles:
            objects.append(plan.dehydrate_row(prepared, found, request, fresh=times[found] > 1))
        else:
            objects.append(rendered[found])
    data = answer_data(resource, request, objects, not_found)
    if json:
        body = render_json(simple(data, meta.serializer, {}) if bundles else data)
        response = json_response(body)
    else:
        if not bundles:  # the serializer writes bundles, as Tastypie's answer holds them
            data[meta.collection_name] = [Bundle(data=row, request=request) for row in objects]
        response = resource.create_response(request, data)
    if verify is not None:
        verify.check(
            resource, request, response, lambda: general(base_bundle, queryset, identifiers)
        )
    return response


def general_set(
    resource: Any, request: Any, base_bundle: Any, queryset: Any, identifiers: list[str]
) -> HttpResponse:
    """The rest of Tastypie's ``get_multiple`` for ``queryset`` (``None``: ``obj_get``
    for each identifier with ``base_bundle``), as Tastypie orders it."""
    name = resource._meta.detail_uri_name
    objects = []
    not_found = []
    if queryset is not None:
        by_key = {str(getattr(obj, name)): obj for obj in queryset}
        for identifier in identifiers:
            if identifier in by_key:
                bundle = resource.build_bundle(obj=by_key[identifier], request=request)
                objects.append(resource.full_dehydrate(bundle, for_list=True))
            else:
                not_found.append(identifier)
    else:
        for identifier in identifiers:
            try:
                obj = resource.obj_get(bundle=base_bundle, **{name: identifier})
                bundle = resource.build_bundle(obj=obj, request=request)
                objects.append(resource.full_dehydrate(bundle, for_list=True))
            except (ObjectDoesNotExist, Unauthorized):
                not_found.append(identifier)
    return resource.create_response(request, answer_data(resource, request, objects, not_found))


def answer_data(resource: Any, request: Any, objects: list, not_found: list[str]) -> dict:
    """What ``get_multiple`` answers (the objects, then ``not_found`` if any), its access
    logged for the throttle as Tastypie logs it, last."""
    data: dict[str, Any] = {resource._meta.collection_name: objects}
    if not_found:
        data["not_found"] = not_found
    resource.log_throttled_access(request)
    return data
