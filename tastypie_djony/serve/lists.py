"""A list page: Tastypie's ``get_list`` up to the page, then the plan's values.

Filtering, authorization (``authorized_read_list`` runs on every page), sorting and
pagination are Tastypie's own code on the object list; only the page's objects are
served by the plan: straight to simple values by the row-built plan, or as
dehydrated bundles (hooks called where Tastypie calls them) by the bundle plan, written
as JSON here, or by the resource's ``create_response`` in the other formats and by a
serializer of the resource's own class (:func:`~tastypie_djony.stock.stock_json`).  A page
that is not an unevaluated query, or a row the plan cannot reproduce, is answered by
``general(page)``: Tastypie's own dehydration of the same page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from tastypie.bundle import Bundle

from tastypie_djony.convert import json_response, render_json, simple
from tastypie_djony.declines import Fallback
from tastypie_djony.objectlist import check_rows_serve
from tastypie_djony.paginator import paginator_class
from tastypie_djony.serve.plans import BundlePlan
from tastypie_djony.serve.verify import verification
from tastypie_djony.stock import stock_json


def serve_list(
    resource: Any, plan: Any, request: Any, kwargs: dict, general: Callable[[dict], Any]
) -> HttpResponse:
    """``get_list`` by ``plan``; ``general(page)`` is the rest of Tastypie's ``get_list``."""
    verify = verification()
    base_bundle = resource.build_bundle(request=request)
    objects = resource.obj_get_list(
        bundle=base_bundle, **resource.remove_api_resource_names(kwargs)
    )
    sorted_objects = resource.apply_sorting(objects, options=request.GET)
    meta = resource._meta
    paginator = paginator_class(meta)(
        request.GET,
        sorted_objects,
        resource_uri=resource.get_resource_uri(),
        limit=meta.limit,
        max_limit=meta.max_limit,
        collection_name=meta.collection_name,
    )
    page = paginator.page()
    collection = meta.collection_name
    object_list = page[collection]
    json = stock_json(resource, request)
    try:
        check_rows_serve(object_list)
        if isinstance(plan, BundlePlan):
            served = dict(page)
            served[collection] = plan.bundles(object_list, request)
            data = resource.alter_list_data_to_serialize(request, served)
            if json:
                data = simple(data, meta.serializer, {})
        else:
            rows = plan.objects(object_list)
            if json:
                data = meta.serializer.to_simple(
                    {key: value for key, value in page.items() if key != collection}, None
                )
                data[collection] = rows
            else:  # the serializer writes bundles as Tastypie's page holds them
                data = dict(page)
                data[collection] = [Bundle(data=row, request=request) for row in rows]
    except Fallback:
        return general(page)
    if json:
        response = json_response(render_json(data))
    else:
        response = resource.create_response(request, data)
    if verify is not None:
        verify.check(resource, request, response, lambda: general(page))
    return response
