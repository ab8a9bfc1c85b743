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

from django.db import models

from djony.compiled import NotKeptForValue, OneValueQuery
from djony.querysets import Kept


def kept_detail(resource: Any, base: type, applicable: dict, object_list: Any) -> Kept | None:
    """The kept-SQL source for this detail's ``object_list[:2]``, or ``None``.

    ``base``: the class whose ``get_object_list``/``apply_filters`` are known to read
    ``Meta.queryset`` as it is (``DjonyResource``).
    """
    from tastypie_djony.objectlist import DjonyObjectList

    cls = type(resource)
    queryset = resource._meta.queryset
    name = resource._meta.detail_uri_name
    if (
        cls.get_object_list is not base.get_object_list
        or cls.apply_filters is not base.apply_filters
        or type(queryset) is not models.QuerySet
        or list(applicable) != [name]
        or type(applicable[name]) is not str
        or type(object_list) is not DjonyObjectList
    ):
        return None
    value = applicable[name]
    store = resource.__dict__.setdefault("_djony_detail_sql", {})

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
