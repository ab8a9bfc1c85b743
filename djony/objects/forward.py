"""``obj.<foreign key>`` on a page's instances: one query for the page.

Django loads a forward foreign key (``day.training``, then ``training.user``, as wger's
``get_owner_object()`` walks them in its authorization) with a query per object and per
relation, built and compiled on every access.  For the instances of a page
(:func:`djony.objects.peers.load_together`: a list page's objects, a detail's object,
the objects joined into them), inside a :func:`djony.bridge.writes.watching` block (a
``DjonyResource`` read), the first such access reads the related rows of every instance
of the page in one query, by SQL kept per relation and number of keys
(:mod:`djony.objects.page_rows`), and builds each related object as Django's query
builds it (``Model.from_db``: its signals, the owner's database).  Each owner gets the
related object of its key, cached on it as Django's descriptor caches it (a one-to-one's
reverse side too); owners that point at the same row share one instance, as
``prefetch_related`` and Django 6.1's ``FETCH_PEERS`` give it.  The related objects are a
page of their own (``training.user`` is read once for the page's trainings).

Only where the answer is provably the database's:

* a ``ForeignKey`` or ``OneToOneField`` of one column whose descriptor is Django's own, to
  an integer column (compared in Python as the database compares it), not a parent link;
  the related model's base manager is Django's plain one and it has no parent model; the
  owner's model has none either (its parent may hold the related object);
* an owner whose foreign key is loaded (not deferred) and not ``None`` and (Django 6.1)
  whose fetch mode is ``FETCH_ONE`` (``FETCH_PEERS`` and ``FETCH_RAISE`` are Django's);
* while the connection read from, and the one the related model is written to, ran
  nothing but ``SELECT`` since the rows were read (else they are read again).

A key without a row (a dangling key) and everything else is Django's own query.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import models, router
from django.db.models.constants import LOOKUP_SEP
from django.db.models.fields.related_descriptors import (
    ForwardManyToOneDescriptor,
    ForwardOneToOneDescriptor,
)

from djony.bridge.writes import written
from djony.meta.compat import fetches_one, instance_builder, track_peers
from djony.objects import page_rows
from djony.objects.compiled import plain_manager
from djony.objects.page_gets import INTEGER_TYPES, PageCache, page_read


class Forward:
    """A forward foreign key a page may read once (see the module)."""

    __slots__ = ("field", "target", "attname", "target_name", "one_to_one", "attnames", "at")

    def __init__(self, field: models.ForeignKey) -> None:
        self.field = field
        self.target = field.remote_field.model
        #: The owner's column.
        self.attname = field.attname
        #: The related column it holds, by name (``pk``'s field's name, or ``to_field``).
        self.target_name = field.target_field.name
        self.one_to_one = field.one_to_one
        #: The related model's concrete columns, as its queryset selects them.
        self.attnames = [f.attname for f in self.target._meta.concrete_fields]
        #: The related column's place in a row.
        self.at = self.attnames.index(field.target_field.attname)


@functools.cache
def forward(owner: type[models.Model], name: str) -> Forward | None:
    """``owner``'s forward foreign key cached under ``name``, if it qualifies."""
    if owner._meta.parents:
        return None
    for field in owner._meta.concrete_fields:
        if field.name != name or not field.is_relation:
            continue
        if not (field.many_to_one or field.one_to_one) or field.remote_field.parent_link:
            return None
        if len(field.foreign_related_fields) != 1 or field.cache_name != name:
            return None
        descriptor = owner.__dict__.get(name)
        if type(descriptor) not in (ForwardManyToOneDescriptor, ForwardOneToOneDescriptor):
            return None
        target = field.remote_field.model
        if target._meta.parents or not plain_manager(target, target._base_manager):
            return None
        if field.target_field.get_internal_type() not in INTEGER_TYPES:
            return None
        return Forward(field)
    return None


@functools.cache
def has_forward(model: type[models.Model]) -> bool:
    """Whether any forward foreign key of ``model`` qualifies (:func:`forward`)."""
    return any(forward(model, field.name) for field in model._meta.concrete_fields)


class ForwardCache(PageCache):
    """An instance's ``_state.fields_cache``: a missing forward foreign key is read for
    the page (see the module); anything else is missing as in Django's own cache."""

    __slots__ = ()

    def __missing__(self, name: str) -> Any:
        owner = self._owner()
        info = None if owner is None else forward(type(owner), name)
        found = None if info is None else _related(info, owner, self._page)
        if found is None:
            raise KeyError(name)  # Django's descriptor loads it, as it always does
        self[name] = found
        if info.one_to_one:  # as Django's descriptor: the reverse side knows its owner
            info.field.remote_field.set_cached_value(found, owner)
        return found


def _related(info: Forward, owner: Any, page: Any) -> Any:
    """``owner``'s related object from the page's read of the relation, or ``None``."""
    key = owner.__dict__.get(info.attname)
    if type(key) is not int or not fetches_one(owner):
        return None  # None, deferred, or a key Django prepares: Django's own
    alias = router.db_for_read(info.target, instance=owner)
    count = written(alias, router.db_for_write(info.target, instance=owner))
    if count is None:
        return None

    def owner_keys() -> set:
        keys = set()
        for peer in page.owners():
            value = peer.__dict__.get(info.attname)
            if type(value) is int and router.db_for_read(info.target, instance=peer) == alias:
                keys.add(value)
        return keys

    return page_read(
        page,
        (info.field.name, "forward", alias),
        count,
        key,
        owner_keys,
        lambda keys: _objects(info, alias, keys, page),
    )


def _objects(info: Forward, alias: str, keys: set, page: Any) -> dict[int, Any]:
    """The related objects of ``keys`` on ``alias``, by key, a page of their own
    (``page.together``: :func:`djony.objects.peers.load_together`)."""
    queryset = info.target._base_manager.db_manager(alias).all()
    rows = page_rows.rows(
        (info.target, info.target_name, "forward"),
        alias,
        keys,
        lambda listed: (
            queryset.filter(**{f"{info.target_name}{LOOKUP_SEP}in": listed})
            .order_by()
            .values_list(*info.attnames)
        ),
    )
    build = instance_builder(queryset)
    by_key = {row[info.at]: build(alias, info.attnames, row) for row in rows}
    built = list(by_key.values())
    track_peers(queryset, built)
    if built:
        page.together(built)
    return by_key
