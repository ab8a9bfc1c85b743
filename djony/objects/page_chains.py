"""``meal.mealitem_set.select_related()`` on a page's instances: one query for the page.

Model methods walk a relation with its related objects joined in: wger sums a plan's
nutritional values over ``self.meal_set.select_related()``, then each meal's over
``self.mealitem_set.select_related()``, a query per plan and per meal on Django (and a
``prefetch_related`` of the page does not help: the chained queryset is a new query).
For the instances of a page (:func:`djony.objects.peers.load_together`), inside a
:func:`djony.bridge.writes.watching` block (a ``DjonyResource`` read), the first
evaluation of such a queryset (the related manager's own with ``select_related(...)``
and nothing else chained) reads the relation, with the same joins, for every instance of
the page in one query.  Each owner gets its rows in that query's order, its related
objects built by Django's iterable from the joined rows, each pointing at its owner (as
the related manager's query makes the owner a known related object); the objects of
each evaluation are a page of their own (:func:`~djony.objects.peers.load_together`:
``item.weight_unit`` read once for the page's items).  Every evaluation gets objects no
other evaluation got, as every Django query does: an owner's second one reads the page
again (one query).

Only where the answer is provably the database's:

* a reverse foreign key that :func:`djony.objects.page_gets.relation` qualifies (Django's
  related manager, a plain default manager, one column);
* ordered by the related model's own columns (:func:`~djony.objects.ties.sort_columns`);
  an owner two of whose rows tie in them gets its own query's objects, in that query's
  order (the page's query may give its ties in another); an order through a relation
  that leaves no ties (``Permission``'s) has none to check;
* the queryset's query left as ``select_related`` made it, an owner whose fetch mode is
  Django's default (Django 6.1's ``FETCH_ONE``);
* while the connection read from, and the one the related model is written to, ran
  nothing but ``SELECT`` since the rows were read (else they are read again).

Anything else, and an instance loaded alone (a detail's: one query either way, whose
objects are a page of their own), is Django's own query: where the chain is the related
manager's own with ``select_related(...)`` alone, over Django's manager and a plain default
manager, by the SQL it compiled to once per relation and joins, with the owner's key as
its parameter (:func:`djony.objects.relation_sql.kept_read`; an unordered relation, wger's
``meal.mealitem_set``, is each owner's own query on every page).
"""

from __future__ import annotations

import copy
import functools
import weakref
from typing import Any

from django.db import models, router
from django.db.models.constants import LOOKUP_SEP

from djony.bridge.writes import written
from djony.meta.compat import fetches_one
from djony.objects import page_gets
from djony.objects.compiled import plain_queryset_class
from djony.objects.relation_sql import kept_read, untouched
from djony.objects.ties import sort_columns, tied_objects


def arm(queryset: models.QuerySet, owner: Any, name: str, page: Any) -> None:
    """Give ``queryset`` (``owner``'s related manager's own, cached as ``name``) a
    ``select_related()`` whose queryset reads for ``page`` (see the module)."""
    if not plain_queryset_class(type(queryset)) or "select_related" in queryset.__dict__:
        return
    info = page_gets.relation(type(owner), name)
    if type(info) is not page_gets.Relation or queryset._deferred_filter is None:
        return
    chain = functools.partial(_select_related, queryset, weakref.ref(owner), info, page)
    page_gets.set_method(queryset, "select_related", chain)


def _select_related(
    queryset: models.QuerySet, owner: weakref.ref, info: Any, page: Any, *fields: Any
) -> models.QuerySet:
    """Django's ``queryset.select_related(*fields)``, evaluated for the page."""
    # Where the page does not answer, the chain's own query by kept SQL: asked now, before
    # the chain applies the manager's filter (djony.objects.relation_sql).
    found = owner()
    read = None
    if found is not None and untouched(queryset):
        read = kept_read(found, info.cache_name, queryset, fields)
    made = type(queryset).select_related(queryset, *fields)
    if read is not None and read.joins != made.query.select_related:
        read = None  # the kept query's joins are not the ones Django's call made
    evaluate = functools.partial(_evaluate, made, _shape(made), owner, info, page, fields, read)
    page_gets.set_method(made, "_fetch_all", evaluate)
    return made


def _shape(queryset: models.QuerySet) -> tuple:
    """What of ``queryset``'s query a chained method may change in place (``.query`` is
    public): compared before the page answers for it."""
    query = queryset.query
    return (
        query.select_related,
        tuple(query.order_by),
        len(query.where.children),
        query.low_mark,
        query.high_mark,
        query.distinct,
        tuple(query.annotations),
        query.deferred_loading,
    )


def _evaluate(
    made: models.QuerySet,
    shape: tuple,
    owner: weakref.ref,
    info: Any,
    page: Any,
    fields: tuple,
    read: Any,
) -> None:
    """``made._fetch_all()``: the page's objects of its owner where they answer (a page of
    their own with the other owners'), else Django's query (its objects a page), by the
    SQL kept for it (``read``, :func:`~djony.objects.relation_sql.kept_read`) while
    nothing changed it."""
    if made._result_cache is None:
        found = owner()
        unchanged = _shape(made) == shape
        if found is not None and len(page.objects) > 1 and unchanged:
            made._result_cache = _page_objects(made, found, info, page, fields)
        if made._result_cache is None:  # the chain's own query, by its kept SQL if unchanged
            if read is not None and unchanged:
                made._result_cache = read()  # (None: the kept SQL does not serve this key)
            type(made)._fetch_all(made)
            if made._result_cache:
                page.together(made._result_cache)
            return
    type(made)._fetch_all(made)


class _Chain:
    """A chain's objects read for the page's owners at one write count, by owner key;
    each owner's handed out once."""

    __slots__ = ("written", "by_key")

    def __init__(self, written: int, by_key: dict[Any, list[Any]]) -> None:
        self.written = written
        self.by_key = by_key


def _page_objects(
    made: models.QuerySet, owner: Any, info: Any, page: Any, fields: tuple
) -> list[Any] | None:
    """``owner``'s objects of the page's read of the chain, or ``None`` (Django's query)."""
    alias = made.db
    count = written(alias, router.db_for_write(info.model, instance=owner))
    key = getattr(owner, info.key)
    if count is None or key is None or not made.ordered or not fetches_one(owner):
        return None  # (Django 6.1's FETCH_PEERS and FETCH_RAISE owners: Django's own)
    columns = sort_columns(made)
    if columns is None:
        return None
    chain_key = (info.cache_name, "select_related", fields, alias)
    chain = page.gets.get(chain_key)
    if chain is None or chain.written != count or key not in chain.by_key:
        joins = made.query.select_related
        chain = page.gets[chain_key] = _Chain(count, _read(info, page, alias, joins, columns))
    found = chain.by_key.pop(key, None)
    for obj in found or ():  # (a page may hold its owner's row twice: this one asked)
        info.field.set_cached_value(obj, owner)
    return found


def _read(info: Any, page: Any, alias: str, joins: Any, columns: list[str]) -> dict:
    """Every live owner's objects of the chain on ``alias``, by owner key; ``joins``: the
    chain's ``query.select_related`` (what ``select_related(...)`` made of its fields)."""
    owners: dict[Any, Any] = {}
    for peer in page.owners():
        key = getattr(peer, info.key)
        if key is not None and router.db_for_read(info.model, instance=peer) == alias:
            owners.setdefault(key, peer)
    if not owners:
        return {}
    manager = info.model._default_manager.db_manager(alias)
    queryset = _joined(manager.filter(**{f"{info.owner_path}{LOOKUP_SEP}in": list(owners)}), joins)
    by_key: dict[Any, list[Any]] = {key: [] for key in owners}
    for obj in queryset:
        related = getattr(obj, info.field.attname)
        info.field.set_cached_value(obj, owners[related])  # as the owner's own query does
        by_key[related].append(obj)
    if columns:
        for key in tied_objects(by_key.items(), columns):  # their own query's order
            by_key[key] = _own(owners[key], info, joins, page)
    read = [obj for found in by_key.values() for obj in found]
    if read:
        page.together(read)  # one page: each meal's items read once for all the meals
    return by_key


def _own(owner: Any, info: Any, joins: Any, page: Any) -> list[Any]:
    """``owner``'s chain by Django's own query (while ``page`` is probing, its managers
    build Django's own querysets)."""
    page.probing = True
    try:
        queryset = getattr(owner, info.accessor).all()
    finally:
        page.probing = False
    return list(_joined(queryset, joins))


def _joined(queryset: models.QuerySet, joins: Any) -> models.QuerySet:
    """``queryset`` with the joins ``select_related(...)`` gave the chain (set as it sets
    them, so Django 6.1 warns the project's call alone of a deprecated spelling)."""
    joined = queryset._chain()
    joined.query.select_related = copy.deepcopy(joins)
    return joined
