"""One instance's to-many relation read by SQL compiled once per relation.

``obj.tags.all()`` on an instance that was not loaded with others (a detail's object)
builds the related manager's queryset, and Django builds its filter and compiles its SQL
again on every request: only the owner's key differs.  For a relation whose manager is
Django's own (:func:`~djony.objects.peers.prefetches_as_django`) over a related model whose
default manager is Django's plain one (:func:`~djony.objects.compiled.plain_manager`), or
one whose own ``get_queryset`` gives a bare queryset on the read
(:func:`~djony.objects.compiled.bare_related_queryset`),
:func:`kept_read` keeps, per owner model, relation, database and type of key, the
:class:`~djony.objects.compiled.OneValueQuery` of the related default manager filtered by
the manager's one condition (``pins__id=<key>``, ``image=<key>``), checked once to be the
very SQL the manager's own queryset compiles to.  An evaluation of the manager's queryset
that nobody changed (Django has not applied its filter yet: nothing read ``.query``) then
runs that SQL with this owner's key as its parameter, and Django's ``ModelIterable``
builds the objects with the queryset's hints and known related objects (a reverse
foreign key's objects point at their owner, as on Django).  Anything else (a changed or
cloned queryset, another manager, an owner without a key) is Django's own query.
"""

from __future__ import annotations

import copy
from typing import Any

from django.db import models
from django.db.models.query import ModelIterable

from djony.objects.compiled import (
    KeptQueries,
    NotKeptForValue,
    OneValueQuery,
    bare_related_queryset,
    plain_manager,
)
from djony.objects.kept import PerOwner, register

#: On the owner model's ``_meta``: (owner model, relation name, database, condition name,
#: type of key, a chained ``select_related``'s fields or ``None``) -> OneValueQuery/None.
_KEPT = PerOwner("_djony_relation_sql", KeptQueries)
register(
    "Options._djony_relation_sql",
    "(the owner's model, the relation's cache name, the database, the related manager's "
    "condition name, the type of the owner's key, the fields of a select_related chained "
    "on it) -> its OneValueQuery or None: a related "
    "manager of Django's builds the same query for every owner but for the owner's key, a "
    "parameter of the kept SQL (checked equal to the manager's own SQL when kept)",
    "one per relation, database, type of key and select_related the project's code chains "
    "(DJONY_CACHE_SIZE entries at most per owner model: djony.objects.kept.PerOwner)",
)


def kept_read(
    owner: models.Model, name: str, queryset: models.QuerySet, joined: tuple | None = None
) -> Any:
    """What evaluates ``queryset`` (``owner``'s related manager's, unevaluated and unchanged)
    by the SQL kept for relation ``name``, or ``None`` (Django's own query).

    Compiles and checks the SQL the first time (for this owner).  Asked while nothing
    changed ``queryset`` (:func:`untouched`): what it answers evaluates a copy of it over
    the kept query, made when it runs.  That answers the related objects, or ``None``
    where Django's query decides this owner's key (a ``get()`` or ``count()`` answered otherwise,
    :mod:`djony.objects.page_gets`, never asks).  ``joined``: the fields of a
    ``queryset.select_related(*joined)`` chained on it (wger's
    ``self.mealitem_set.select_related()``), asked before it is chained; what it answers
    evaluates that chain's query, kept apart.
    """
    condition = _condition(queryset)
    if condition is None or queryset._iterable_class is not ModelIterable:
        return None
    target = queryset.model
    if queryset._prefetch_related_lookups:
        return None
    if not (plain_manager(target) or bare_related_queryset(queryset, target)):  # on this read
        return None
    field_name, value = condition
    alias = queryset.db
    key = (type(owner), name, alias, field_name, type(value), joined)
    queries = _KEPT.of(owner._meta)
    if key not in queries:
        try:
            queries[key] = _compile(queryset, field_name, value, alias, joined)
        except NotKeptForValue:
            return None  # this key compiles to no SQL: Django decides, the next one keeps
    compiled = queries.get(key)
    if compiled is None:
        return None

    def read() -> list[Any] | None:
        params = compiled.params_for(value)
        if params is None:
            return None
        kept = _with_query(queryset, copy.copy(compiled.query), filtered=True)
        return compiled.objects(kept, params)

    read.joins = compiled.query.select_related  # type: ignore[attr-defined]
    return read


def untouched(queryset: models.QuerySet) -> bool:
    """Whether ``queryset``'s filter is still the manager's deferred one (no ``.query`` read)."""
    return queryset._deferred_filter is not None


def _condition(queryset: models.QuerySet) -> tuple[str, Any] | None:
    """The related manager's one deferred condition ``(name, key)``, a key Django would
    compare as a plain value (a related instance: its primary key, when the condition's
    foreign key points at it)."""
    deferred = queryset._deferred_filter
    if deferred is None:
        return None
    negate, args, kwargs = deferred
    if negate or args or len(kwargs) != 1:
        return None
    ((name, value),) = kwargs.items()
    if isinstance(value, models.Model):
        try:
            field = queryset.model._meta.get_field(name)
        except Exception:  # noqa: BLE001 - a name that is no field: Django's own query
            return None
        target = getattr(field, "target_field", None)
        if target is None or not target.primary_key or type(value) is not field.related_model:
            return None
        value = value.pk
    if value is None:
        return None
    return name, value


def _compile(
    queryset: models.QuerySet, name: str, value: Any, alias: str, joined: tuple | None
) -> Any:
    """The kept query for ``queryset``'s relation (``select_related(*joined)`` chained on
    it, unless ``None``), or ``None`` when its SQL is not the manager's (checked on this
    owner's own queryset, compiled on a copy)."""
    target = queryset.model

    def chained(made: models.QuerySet) -> models.QuerySet:
        return made if joined is None else with_joins(made, joined)

    compiled = OneValueQuery.compile(
        lambda: target._default_manager.db_manager(alias).all(), name, value, chained
    )
    if compiled is None or compiled.alias != alias:
        return None
    own = chained(_with_query(queryset, queryset._query.clone(), filtered=False))
    sql, params = own.query.get_compiler(alias).as_sql()  # applies the manager's filter
    if sql != compiled.sql or tuple(params) != compiled.params_for(value):
        return None
    return compiled


def with_joins(queryset: models.QuerySet, fields: tuple) -> models.QuerySet:
    """A copy of ``queryset`` with the joins ``select_related(*fields)`` gives, set as it
    sets them: not called, so Django 6.1 warns the project's own ``select_related()``
    alone of its deprecated spelling (the caller compares the joins with the project's)."""
    made = queryset._chain()
    if fields:
        made.query.add_select_related(fields)
    else:
        made.query.select_related = True
    return made


def _with_query(queryset: models.QuerySet, query: Any, filtered: bool) -> models.QuerySet:
    """A copy of unevaluated ``queryset`` (hints, known related objects, iterable ...) over
    ``query``; ``filtered``: ``query`` holds the manager's condition (the kept query), else
    it is a clone of the queryset's own, which the deferred condition is applied to."""
    kind = type(queryset)
    made = kind.__new__(kind)
    # Not what was set on the instance over the class's methods (the page's evaluation,
    # get(), count(): djony.objects.peers, page_gets): they answer for that queryset.
    made.__dict__.update(
        (name, value) for name, value in queryset.__dict__.items() if not hasattr(kind, name)
    )
    made._query = query
    made._prefetch_related_lookups = list(queryset._prefetch_related_lookups)
    if filtered:
        made._deferred_filter = None
    return made
