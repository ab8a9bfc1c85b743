"""A detail's row query compiled once per resource, database and columns.

A detail request reads ``get_object_list(request).filter(<detail_uri_name>=value)[:2]``.
When that is the resource's ``Meta.queryset`` as it is (``get_object_list`` and
``apply_filters`` not overridden, a plain ``QuerySet`` class, no filter but the URI's
value), the SQL is the same for every request but for the value: it is compiled once
(:class:`djony.compiled.OneValueQuery`) and the value stays its parameter.  A
replaced ``Meta.queryset`` compiles again; anything else compiles as before.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.lookups import Exact
from django.db.models.sql.where import WhereNode

from djony.serving import Kept, KeptQueries, NotKeptForValue, OneValueQuery, exact_for, last_leaf


def _static(resource: Any, base: type, applicable: dict) -> bool:
    """Whether the detail's object list is ``Meta.queryset`` filtered by the URI's value only.

    ``base``: the class whose ``get_object_list``/``apply_filters`` are known to read
    ``Meta.queryset`` as it is (``DjonyResource``).
    """
    cls = type(resource)
    name = resource._meta.detail_uri_name
    return (
        cls.get_object_list is base.get_object_list
        and cls.apply_filters is base.apply_filters
        and type(resource._meta.queryset) is models.QuerySet
        and list(applicable) == [name]
        and type(applicable[name]) is str
        and applicable[name] != ""  # Oracle reads '' as NULL: Django's filter decides
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
    from tastypie_djony.objectlist import DjonyObjectList

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
    from tastypie_djony.objectlist import DjonyObjectList

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
