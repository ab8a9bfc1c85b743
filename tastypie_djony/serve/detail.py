"""A detail: one lookup, one authorization order, for every plan.

:func:`serve_detail` is ``get_detail`` as Tastypie's ``obj_get`` orders it: the
object list ``get_object_list(request)`` filtered by the URI's value, 404 when it
finds nothing and 300 when it finds more than one, then ``authorized_read_detail``
(given what :func:`~tastypie_djony.stock.detail_authorization` says it needs: nothing,
the model class, or the object, built only when read), then the dehydration.  Both
plans take this one road; the row-built plan when the resource has no hooks, the
bundle plan otherwise.

The lookup's SQL is compiled once per resource, database and columns when the object
list is ``Meta.queryset`` as it is (:func:`~tastypie_djony.stock.reads_meta_queryset`)
and the only filter is the URI's value: the SQL is the same for every request but
for the value, which stays its parameter (:class:`djony.objects.compiled.OneValueQuery`).  A
replaced ``Meta.queryset`` compiles again; anything else compiles as before.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models.lookups import Exact
from django.db.models.sql.where import WhereNode
from django.http import HttpResponse
from tastypie import http
from tastypie.exceptions import NotFound
from tastypie.utils.mime import build_content_type

from djony.serving import Kept, KeptQueries, NotKeptForValue, OneValueQuery, exact_for, last_leaf
from tastypie_djony.authorization import authorize_read_detail
from tastypie_djony.declines import Fallback
from tastypie_djony.objectlist import DjonyObjectList, check_rows_serve
from tastypie_djony.serve.bundles import PageBundle
from tastypie_djony.serve.convert import render_json, simple
from tastypie_djony.serve.plan import BundlePlan
from tastypie_djony.serve.verify import check_same_answer, verifying
from tastypie_djony.stock import MODEL_CLASS, detail_authorization, reads_meta_queryset


def _static(resource: Any, base: type, applicable: dict) -> bool:
    """Whether the detail's object list is ``Meta.queryset`` filtered by the URI's value only.

    ``base``: the class whose ``get_object_list``/``apply_filters`` are known to read
    ``Meta.queryset`` as it is (``DjonyResource``).
    """
    name = resource._meta.detail_uri_name
    return (
        reads_meta_queryset(resource, base)
        and list(applicable) == [name]
        and type(applicable[name]) is str
        and applicable[name] != ""  # Django's filter decides (a backend may read '' as NULL)
    )


def filtered_list(resource: Any, base: type, request: Any, applicable: dict) -> Any:
    """``resource.apply_filters(request, applicable)``, built from an earlier request's.

    For a static detail (:func:`_static`) the filtered queryset of an earlier request is
    copied with its last condition (the URI's ``exact`` lookup) made again by Django's
    lookup class for this value: what ``filter()`` builds for it, without resolving the
    lookup path again.  ``None`` when not static or not kept yet (the first request
    keeps its own); the caller then calls ``apply_filters``, which also raises what a
    value Django refuses raises.
    """
    if not _static(resource, base, applicable):
        return None
    unfiltered = resource.get_object_list(request)
    if type(unfiltered) is not DjonyObjectList:
        return None
    queryset = resource._meta.queryset
    store = resource.__dict__.setdefault("_djony_detail_lists", KeptQueries())
    entry = store.get(unfiltered.db)
    if entry is None or entry[0] is not queryset:
        filtered = unfiltered.filter(**applicable)
        where = filtered.queryset.query.where
        added = _leaves(where) - _leaves(unfiltered.queryset.query.where)
        last = last_leaf(where)
        if last is not None and added == 1 and isinstance(last[0].children[last[1]], Exact):
            store[unfiltered.db] = (queryset, filtered.queryset._chain())
        return filtered
    template = entry[1]
    parent, index = last_leaf(template.query.where)
    lookup = parent.children[index]
    try:
        condition = exact_for(lookup, applicable[resource._meta.detail_uri_name])
    except (ValueError, TypeError, OverflowError, ValidationError):
        return None  # apply_filters raises it, as filter() does
    if condition is None:
        return None  # filter() builds another condition for it
    chained = template._chain()
    parent, index = last_leaf(chained.query.where)
    parent.children[index] = condition
    return unfiltered._chain(chained)


def _leaves(node: Any) -> int:
    """How many conditions a where tree holds."""
    if not isinstance(node, WhereNode):
        return 1
    return sum(_leaves(child) for child in node.children)


def kept_detail(resource: Any, base: type, applicable: dict, object_list: Any) -> Kept | None:
    """The kept-SQL source for this detail's ``object_list[:2]``, or ``None``.

    ``base`` as for :func:`filtered_list`.
    """
    if not _static(resource, base, applicable) or type(object_list) is not DjonyObjectList:
        return None
    queryset = resource._meta.queryset
    name = resource._meta.detail_uri_name
    value = applicable[name]
    store = resource.__dict__.setdefault("_djony_detail_sql", KeptQueries())

    def kept(fields: list[str]) -> tuple[OneValueQuery, tuple] | None:
        key = (object_list.db, tuple(fields))
        entry = store.get(key)
        if entry is None or entry[0] is not queryset:
            try:
                compiled = OneValueQuery.compile(
                    lambda: DjonyObjectList(queryset._clone()).queryset,
                    name,
                    value,
                    lambda filtered: filtered[:2].values_list(*fields),
                )
            except NotKeptForValue:
                return None  # this value's query is Django's to decide; compiled next time
            entry = store[key] = (queryset, compiled)
        compiled = entry[1]
        if compiled is None or compiled.alias != object_list.db:
            return None
        params = compiled.params_for(value)
        return None if params is None else (compiled, params)

    return kept


def serve_detail(
    resource: Any, base: type, plan: Any, request: Any, kwargs: dict, general: Any
) -> HttpResponse:
    """``get_detail`` by ``plan``: Tastypie's lookup and authorization order, rows for values.

    ``general()`` is Tastypie's own ``get_detail``, which answers when a row needs it
    (:class:`~tastypie_djony.declines.Fallback`, raised before any hook ran).
    """
    filters = resource.remove_api_resource_names(kwargs)
    applicable = resource.build_filters(filters=filters, ignore_bad_filters=True)
    name = resource._meta.detail_uri_name
    if name in filters:
        applicable[name] = filters[name]
    bundles = isinstance(plan, BundlePlan)
    try:
        object_list = filtered_list(resource, base, request, applicable)
        if object_list is None:
            object_list = resource.apply_filters(request, applicable)
        check_rows_serve(object_list)
        kept = kept_detail(resource, base, applicable, object_list)
        page = object_list[:2]
        if bundles:
            found = plan.prepare(page.with_loaders(plan.loaders(page)), kept)
            count = len(found.values)
        else:
            found = plan.objects(page, kept)
            count = len(found)
    except ValueError:
        raise NotFound("Invalid resource lookup data provided (mismatched type).") from None
    except Fallback:
        return general()
    if not count:
        return http.HttpNotFound()
    if count > 1:
        return http.HttpMultipleChoices("More than one resource is found at this URI.")
    # As obj_get: the hook gets the filtered list and a bundle of the found object (the
    # row-built plan serves only authorizations that never read it).
    checked = PageBundle(found.objects, 0, request) if bundles else None
    if detail_authorization(resource) == MODEL_CLASS:  # no object built for it
        authorize_read_detail(resource, request, object_list.model)
    else:
        resource.authorized_read_detail(
            object_list, checked if checked is not None else resource.build_bundle(request=request)
        )
    if not bundles:
        body = render_json(found[0])
    else:
        if checked.holds_its_row():
            bundle = plan.dehydrate_row(found, 0, request)
        else:  # the hook put another object in bundle.obj: that one is dehydrated
            bundle = resource.full_dehydrate(
                resource.build_bundle(obj=checked.obj, request=request)
            )
        bundle = resource.alter_detail_data_to_serialize(request, bundle)
        body = render_json(simple(bundle, resource._meta.serializer, {}))
    response = HttpResponse(body, content_type=build_content_type("application/json"))
    if verifying():
        check_same_answer(resource, request, response, general())
    return response
