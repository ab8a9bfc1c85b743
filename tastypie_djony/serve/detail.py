"""A detail: Tastypie's ``obj_get`` order once, one authorization, for both plans.

:func:`serve_detail` is ``get_detail`` as Tastypie's ``obj_get`` orders it: the object
list ``get_object_list(request)`` filtered by the URI's value (a value Django refuses
for the lookup is Tastypie's 404 "mismatched type"), 404 when it finds nothing and 300
when it finds more than one, then ``authorized_read_detail``, asked once, given what
:func:`~tastypie_djony.stock.detail_authorization` says it needs (nothing, the model
class, or the object, built only when read), then the dehydration (a value that fails
to convert there is the 500 it is on Tastypie's path, not a 404).

The lookup's SQL is compiled once per resource, database and columns when the object
list is ``Meta.queryset`` as it is (:func:`~tastypie_djony.stock.reads_meta_queryset`)
and the only filter is the URI's value (:mod:`tastypie_djony.onevalue`: the value stays
the query's parameter; a replaced ``Meta.queryset`` compiles again).  A detail whose
authorization needs no object then runs that query alone
(:func:`kept_read`): no filtered list is built for it, and Tastypie's ``Authorization`` and
``ReadOnlyAuthorization``, which allow every detail, are not asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models.constants import LOOKUP_SEP
from django.db.models.lookups import Exact
from django.db.models.sql.where import WhereNode
from django.http import HttpResponse
from tastypie import http
from tastypie.bundle import Bundle
from tastypie.exceptions import NotFound

from djony.serving import Kept, exact_for, last_leaf
from tastypie_djony.authorization import authorize_read_detail
from tastypie_djony.convert import json_response, render_json, simple
from tastypie_djony.declines import Fallback
from tastypie_djony.objectlist import DjonyObjectList, check_rows_serve
from tastypie_djony.onevalue import KeptForValue, NotServedByKept
from tastypie_djony.serve.bundles import PageBundle
from tastypie_djony.serve.plans import BundlePlan
from tastypie_djony.serve.verify import verification
from tastypie_djony.stock import MODEL_CLASS, NOTHING, OBJECT, reads_meta_queryset, stock_json


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


def one_condition(applicable: dict, name: str) -> None:
    """Drop ``<name>__exact`` from ``applicable`` where it repeats the ``<name>`` condition.

    A filterable ``detail_uri_name`` (a slug in ``Meta.filtering``) gives obj_get's lookup
    both ``slug__exact`` (``build_filters``) and ``slug`` (the URI's value): the same
    condition twice when ``build_filters`` kept the URI's string as it is, whose rows are
    those of the one condition (another value, ``"none"`` read as ``None``, stays).
    """
    exact = f"{name}{LOOKUP_SEP}exact"
    value = applicable.get(exact)
    if type(value) is str and value == applicable[name]:
        del applicable[exact]


def kept_for(resource: Any) -> KeptForValue:
    """What ``resource``'s details compiled once (kept on the resource)."""
    kept = resource.__dict__.get("_djony_detail_sql")
    if kept is None:
        kept = resource.__dict__["_djony_detail_sql"] = KeptForValue()
    return kept


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
    made: list = []

    def template() -> Any:
        filtered = unfiltered.filter(**applicable)
        made.append(filtered)
        where = filtered.queryset.query.where
        added = _leaves(where) - _leaves(unfiltered.queryset.query.where)
        last = last_leaf(where)
        if last is not None and added == 1 and isinstance(last[0].children[last[1]], Exact):
            return filtered.queryset._chain()
        return None

    kept = kept_for(resource).get(("list", unfiltered.db), resource._meta.queryset, template)
    if made:
        return made[0]  # this request's own filter() made the template
    if kept is None:
        return None
    parent, index = last_leaf(kept.query.where)
    try:
        condition = exact_for(parent.children[index], applicable[resource._meta.detail_uri_name])
    except (ValueError, TypeError, OverflowError, ValidationError):
        return None  # apply_filters raises it, as filter() does
    if condition is None:
        return None  # filter() builds another condition for it
    chained = kept._chain()
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

    Called with the columns a plan reads, it answers their kept query and this value's
    parameters; its ``objects()`` answers the same for the objects' query (a queryset
    whose objects Django's own iterable builds, ``select_related``).
    """
    if not _static(resource, base, applicable) or type(object_list) is not DjonyObjectList:
        return None
    queryset = resource._meta.queryset
    name = resource._meta.detail_uri_name
    value = applicable[name]
    kept = kept_for(resource)

    def compiled(fields: list[str]) -> Any:
        return kept.query_for(
            ("row", object_list.db, tuple(fields)),
            queryset,
            lambda: DjonyObjectList(queryset._clone()).queryset,
            name,
            value,
            lambda filtered: filtered[:2].values_list(*fields),
            object_list.db,
        )

    def objects() -> Any:
        return kept.query_for(
            ("objects", object_list.db),
            queryset,
            lambda: DjonyObjectList(queryset._clone()).queryset,
            name,
            value,
            lambda filtered: filtered[:2],
            object_list.db,
        )

    compiled.objects = objects  # where Django's iterable builds the objects (select_related)
    return compiled


def kept_read(resource: Any, base: type, request: Any, applicable: dict, read: Any) -> Any:
    """``read(object_list[:2], kept)`` of a detail by its kept SQL alone, or ``None`` (not
    kept yet, or the kept SQL does not serve this value: before any SQL ran).

    For an authorization that needs no object: no filtered list is built, as the kept
    query *is* ``get_object_list(request)`` filtered by the URI's value (a static detail,
    :func:`_static`), and the plans read nothing else of it.  ``read`` is the plan's
    (``RowPlan.rows``, ``BundlePlan.read``); returns what it returns and the unfiltered
    object list (what a ``DjangoAuthorization`` reads the model of).
    """
    if not _static(resource, base, applicable):
        return None
    unfiltered = resource.get_object_list(request)
    if type(unfiltered) is not DjonyObjectList:
        return None
    query = unfiltered.queryset.query
    if query.annotation_select or query.extra_select:
        return None  # the rows' query is compiled per request (never the kept one)
    check_rows_serve(unfiltered)
    source = kept_detail(resource, base, applicable, unfiltered)
    served: list[Any] = []

    def only_kept(ask: Callable[..., Any]) -> Callable[..., Any]:
        def answer(*args: Any) -> Any:
            found = ask(*args)
            if found is None:
                raise NotServedByKept
            served.append(found)
            return found

        return answer

    only_kept_rows = only_kept(source)
    only_kept_rows.objects = only_kept(source.objects)
    try:
        result = read(unfiltered, only_kept_rows)
    except NotServedByKept:
        return None
    if not served:
        return None  # read past the kept SQL (the unfiltered list's): the filtered list decides
    return result, unfiltered


def serve_detail(
    resource: Any, base: type, plan: Any, request: Any, kwargs: dict, general: Any, needs: str
) -> HttpResponse:
    """``get_detail`` by ``plan``: Tastypie's lookup and authorization order, rows for values.

    ``general()`` is Tastypie's own ``get_detail``, which answers when a row needs it
    (:class:`~tastypie_djony.declines.Fallback`, raised before any hook ran); ``needs`` is
    what the detail's authorization needs (:func:`~tastypie_djony.stock.detail_authorization`,
    asked once for the request when the plan was chosen).
    """
    verify = verification()
    filters = resource.remove_api_resource_names(kwargs)
    applicable = resource.build_filters(filters=filters, ignore_bad_filters=True)
    name = resource._meta.detail_uri_name
    if name in filters:
        applicable[name] = filters[name]
        one_condition(applicable, name)
    bundles = isinstance(plan, BundlePlan)
    try:
        try:  # obj_get's lookup: a value the lookup refuses is its 404
            read = plan.read if bundles else plan.rows
            by_kept = (
                None if needs == OBJECT else kept_read(resource, base, request, applicable, read)
            )
            if by_kept is not None:
                got, object_list = by_kept
            else:
                object_list = filtered_list(resource, base, request, applicable)
                if object_list is None:
                    object_list = resource.apply_filters(request, applicable)
                check_rows_serve(object_list)
                got = read(object_list[:2], kept_detail(resource, base, applicable, object_list))
            if bundles:
                rows, objects, caches = got
            else:
                rows = got
        except ValueError:
            raise NotFound("Invalid resource lookup data provided (mismatched type).") from None
        if not rows:
            return http.HttpNotFound()
        if len(rows) > 1:
            return http.HttpMultipleChoices("More than one resource is found at this URI.")
        found = plan.values(rows, objects, caches) if bundles else plan.render(rows)
    except Fallback:
        return general()
    # As obj_get: the hook gets the filtered list and a bundle of the found object (the
    # row-built plan serves only authorizations that never read it).
    checked = PageBundle(found.objects, 0, request) if bundles else None
    if needs == MODEL_CLASS:  # no object built for it
        authorize_read_detail(resource, request, object_list.model)
    elif needs != NOTHING:  # (Tastypie's Authorization and ReadOnlyAuthorization allow it)
        resource.authorized_read_detail(
            object_list, checked if checked is not None else resource.build_bundle(request=request)
        )
    json = stock_json(resource, request)
    if not bundles:
        if json:
            response = json_response(render_json(found[0]))
        else:  # the serializer writes the bundle Tastypie's get_detail hands it
            response = resource.create_response(request, Bundle(data=found[0], request=request))
    else:
        if checked.holds_its_row():
            bundle = plan.dehydrate_row(found, 0, request)
        else:  # the hook put another object in bundle.obj: that one is dehydrated
            bundle = resource.full_dehydrate(
                resource.build_bundle(obj=checked.obj, request=request)
            )
        bundle = resource.alter_detail_data_to_serialize(request, bundle)
        if json:
            response = json_response(render_json(simple(bundle, resource._meta.serializer, {})))
        else:
            response = resource.create_response(request, bundle)
    if verify is not None:
        verify.check(resource, request, response, general)
    return response
