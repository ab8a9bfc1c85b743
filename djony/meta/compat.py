"""What differs between the Django versions djony supports (5.2 LTS to 6.1).

Kept in one module so that dropping an old Django means deleting lines here
only: a new Django that changes an API djony uses gets its shim here, never a
version check elsewhere.
"""

from __future__ import annotations

import functools
import inspect
import operator
import weakref
from typing import Any

from django.core.exceptions import FieldError
from django.db import models
from django.db.models import JSONField
from django.db.models.constants import LOOKUP_SEP
from django.db.models.query import ModelIterable, get_related_populators

try:  # Django 6.1+
    from django.db.models import JSONNull
except ImportError:  # Django 5.2 and 6.0: None is JSON null in an exact lookup
    JSONNull = None


def none_as_json_null(query: Any, lookups: dict[str, Any]) -> dict[str, Any]:
    """``lookups`` with ``None`` for a JSONField's exact lookup spelled ``JSONNull()``.

    Tastypie turns ``?data=none`` into ``filter(data=None)``, which Django
    has always read as "the JSON scalar null".  Django 6.1 deprecates that
    spelling in favour of ``JSONNull()``; the meaning (and so the answer)
    stays the same.  Lookups Django cannot resolve are left for ``filter()``
    to report.
    """
    if JSONNull is None:
        return lookups
    converted = dict(lookups)
    for key, value in lookups.items():
        if value is not None:
            continue
        try:
            _, field, _, rest = query.names_to_path(key.split(LOOKUP_SEP), query.get_meta())
        except FieldError:
            continue
        if isinstance(field, JSONField) and rest in ([], ["exact"]):
            converted[key] = JSONNull()
    return converted


def instance_builder(queryset: Any) -> Any:
    """``Model.from_db`` as Django's own iterable calls it for ``queryset``.

    Django 6.1 passes the queryset's fetch mode (``QuerySet.fetch_mode()``) to it; a
    ``from_db`` override that does not take it is called as before.  Django 5.2 and 6.0
    have no fetch modes.
    """
    from_db = queryset.model.from_db
    mode = getattr(queryset, "_fetch_mode", None)
    if mode is None:
        return from_db
    return (
        functools.partial(from_db, fetch_mode=mode) if takes_fetch_mode(queryset.model) else from_db
    )


@functools.cache
def takes_fetch_mode(model: type) -> bool:
    """Whether ``model.from_db`` takes Django 6.1's ``fetch_mode`` keyword."""
    parameters = inspect.signature(model.from_db).parameters
    return "fetch_mode" in parameters or any(
        parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters.values()
    )


def track_peers(queryset: Any, objects: list[Any]) -> None:
    """Make ``objects`` each other's peers when ``queryset``'s fetch mode loads for peers.

    As Django 6.1's iterable does for ``fetch_mode(FETCH_PEERS)``: a deferred field or a
    relation read on one of them is loaded for all of them.  Nothing before 6.1.
    """
    mode = getattr(queryset, "_fetch_mode", None)
    if mode is None or not mode.track_peers:
        return
    peers = [weakref.ref(obj) for obj in objects]
    for obj in objects:
        obj._state.peers = peers


def evaluate_compiled(queryset: Any, compiler: Any, compiled: tuple[str, Any]) -> list[Any]:
    """``list(queryset)``, running the SQL ``compiler`` already gave (``compiled``).

    For a caller that compiled ``queryset``'s query to check it (``compiler`` is
    ``queryset.query.get_compiler(queryset.db)``, ``compiled`` its ``as_sql()``): Django's
    own ``ModelIterable`` asks the query for a compiler and compiles again, which costs
    what the first compile cost.  Here it is handed that compiler, whose ``as_sql()``
    answers ``compiled`` once; both stand-ins go away on first use, so clones of the
    query and later evaluations compile as Django does.  Other iterables (``values()``,
    polymorphic ones, whose code may clone the query first) evaluate as Django does.
    """
    query = queryset.query
    if queryset._iterable_class is not ModelIterable or queryset._result_cache is not None:
        return list(queryset)
    owner_compiler = type(query).get_compiler
    owner_as_sql = type(compiler).as_sql

    def get_compiler(using: Any = None, connection: Any = None, elide_empty: bool = True) -> Any:
        del query.get_compiler
        if using == compiler.using and connection is None and elide_empty:
            return compiler
        return owner_compiler(query, using, connection, elide_empty)

    def as_sql(with_limits: bool = True, with_col_aliases: bool = False) -> Any:
        del compiler.as_sql
        if with_limits and not with_col_aliases:
            return compiled
        return owner_as_sql(compiler, with_limits, with_col_aliases)

    query.get_compiler = get_compiler
    compiler.as_sql = as_sql
    try:
        return list(queryset)
    finally:
        query.__dict__.pop("get_compiler", None)
        compiler.__dict__.pop("as_sql", None)


def builds_from_rows(queryset: Any, compiler: Any) -> bool:
    """Whether :func:`objects_from_rows` builds what Django's own iterable would build of
    ``queryset`` from the rows of ``compiler``'s SQL (a compiler that compiled it).

    Only for a queryset of model instances not evaluated yet, on the compiler's database,
    with no ``prefetch_related``, whose SQL selects no column Django's iterable drops
    (``extra(select=...)`` columns added for ordering) and every column of the related
    objects it knows beforehand (a related manager's owner: Django 6.1 skips those of a
    deferred column, which earlier versions would load).
    """
    if (
        queryset._iterable_class is not ModelIterable
        or queryset._result_cache is not None
        or queryset._prefetch_related_lookups
        or queryset.db != compiler.using
        or compiler.has_extra_select
    ):
        return False
    if not queryset._known_related_objects:
        return True
    selected = set(_model_columns(compiler)[2])
    return all(set(attnames) <= selected for _field, _objects, attnames in _known_related(queryset))


def _model_columns(compiler: Any) -> tuple[int, int, list[str]]:
    """Where the model's own columns are among ``compiler``'s selected ones, and their
    names as ``from_db`` takes them."""
    fields = compiler.klass_info["select_fields"]
    start, end = fields[0], fields[-1] + 1
    return start, end, [column[0].target.attname for column in compiler.select[start:end]]


def _known_related(queryset: Any) -> list[tuple[Any, dict, list[str]]]:
    """``queryset``'s known related objects, with the owner's columns naming them."""
    return [
        (
            field,
            related,
            [
                field.attname if name == "self" else queryset.model._meta.get_field(name).attname
                for name in field.from_fields
            ],
        )
        for field, related in queryset._known_related_objects.items()
    ]


def objects_from_rows(queryset: Any, compiler: Any, rows: Any) -> list[Any]:
    """The instances Django's ``ModelIterable`` builds of ``queryset`` from ``rows`` (its
    query's rows, converted as Django converts them), where :func:`builds_from_rows`.

    As Django's own loop: ``from_db`` of the model's columns (with the fetch mode on
    Django 6.1), the ``select_related`` objects by Django's own populators, annotations
    as attributes, the known related objects where nothing cached one, peers tracked for
    ``FETCH_PEERS``.  It spares a query that was compiled once what Django's iterable
    costs around it (the compiler's executor and its chunked fetch).
    """
    select, klass_info = compiler.select, compiler.klass_info
    annotations = compiler.annotation_col_map
    db = queryset.db
    start, end, init_list = _model_columns(compiler)
    known = [
        (field, related, operator.attrgetter(*attnames))
        for field, related, attnames in _known_related(queryset)
    ]
    build = instance_builder(queryset)
    if _POPULATORS_TAKE_FETCH_MODE:
        populators = get_related_populators(klass_info, select, db, queryset._fetch_mode)
    else:
        populators = get_related_populators(klass_info, select, db)
    found = []
    for row in rows:
        obj = build(db, init_list, row[start:end])
        for populator in populators:
            populator.populate(row, obj)
        if annotations:
            for name, position in annotations.items():
                setattr(obj, name, row[position])
        for field, related, key_of in known:
            if field.is_cached(obj):
                continue  # select_related's object stays
            try:
                known_object = related[key_of(obj)]
            except KeyError:
                continue  # not one of the known objects (a combined queryset's row)
            setattr(obj, field.name, known_object)
        found.append(obj)
    track_peers(queryset, found)
    return found


#: Django 6.1's populators of ``select_related`` objects take the fetch mode.
_POPULATORS_TAKE_FETCH_MODE = "fetch_mode" in inspect.signature(get_related_populators).parameters


#: Django 6.1's default fetch mode (``None`` before 6.1, which loads one object at a time).
FETCH_ONE = getattr(models, "FETCH_ONE", None)


def fetches_one(instance: Any) -> bool:
    """Whether ``instance`` loads a missing related object by a query of its own, as
    Django always did before 6.1 (6.1: its fetch mode is ``FETCH_ONE``, not ``FETCH_PEERS``
    nor ``FETCH_RAISE``)."""
    mode = getattr(instance._state, "fetch_mode", None)
    return mode is None or mode is FETCH_ONE
