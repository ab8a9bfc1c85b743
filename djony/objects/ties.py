"""Related rows of equal sort values, read for several owners at once.

Each owner's related manager runs a query of its own (``WHERE owner_id = %s ORDER BY
time``), and SQL leaves the order of rows whose sort values are equal to the database:
PostgreSQL's sort gives them in an order of its own, which depends on the rows it sorts.
The rows of a page's owners are read in one query and sorted as one set, so their ties
may come in another order than each owner's query gives.  :func:`sort_columns` names
what a relation's rows are sorted by, :func:`tied` tells the owners with ties apart:
those are read by their own query (a page's to-many keys in ``tastypie_djony.related``,
a relation a hook iterates in :mod:`djony.objects.peers`).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.db.models.constants import LOOKUP_SEP


def sort_columns(queryset: Any) -> list[str] | None:
    """The columns ``queryset``'s rows are sorted by, as ``values_list`` names them.

    ``[]`` when no two rows can tie (no order, an order by the key, or an order through a
    relation that :func:`unique_order` proves leaves no ties: ``Permission``'s); ``None``
    when the order is not columns alone (an expression, ``?``, ``extra(order_by=...)``,
    a related model's column that may tie).
    """
    # The ordering only: a related manager's queryset keeps its owner's condition pending
    # (``_deferred_filter``), which ``.query`` would apply and which orders nothing.
    query = queryset._query
    model = queryset.model
    ordering = query.order_by or (model._meta.ordering if query.default_ordering else ())
    if not ordering:
        return []
    if query.extra_order_by:
        return None
    key_names = {"pk", model._meta.pk.name, model._meta.pk.attname}
    plain = {field.name for field in model._meta.concrete_fields if not field.is_relation}
    columns = []
    for term in ordering:
        if not isinstance(term, str) or term == "?":
            return None
        name = term.removeprefix("-")
        if name in key_names:
            return []  # the key is unique: no two rows tie in an order naming it
        if LOOKUP_SEP in name or name not in plain:
            # A relation sorts by the related model's order; a joined column.
            return [] if unique_order(queryset) else None
        columns.append(name)
    return columns


def unique_order(queryset: Any) -> bool:
    """Whether no two rows of ``queryset`` can tie in its order, whatever rows it holds.

    Its order names the key, or columns that identify a row: every field of one of the
    model's unique sets (``unique=True``, ``unique_together``, a ``UniqueConstraint`` of
    fields without a condition), none of them nullable, each a column the order names or
    a foreign key whose related row the order identifies the same way through it
    (``Permission``'s ``content_type__app_label, content_type__model, codename``).  Then
    the rows come in one order whatever columns a query selects (a database breaks no
    ties, as it would, by the plan, for equal sort values).
    """
    query = queryset._query
    model = queryset.model
    ordering = query.order_by or (model._meta.ordering if query.default_ordering else ())
    if not ordering or query.extra_order_by:
        return False
    named = set()
    for term in ordering:
        if not isinstance(term, str) or term == "?":
            return False
        named.add(term.removeprefix("-"))
    return _identified(model, named)


def _identified(model: Any, named: set[str]) -> bool:
    """Whether the values of ``named`` (paths from ``model``) identify one of its rows."""
    pk = model._meta.pk
    if named & {"pk", pk.name, pk.attname}:
        return True
    return any(
        all(_field_identified(field, named) for field in fields) for fields in _unique_sets(model)
    )


def _field_identified(field: Any, named: set[str]) -> bool:
    if field.null:
        return False
    if not field.is_relation:
        return field.name in named
    if not field.concrete or not (field.many_to_one or field.one_to_one):
        return False
    if field.attname in named:
        return True
    prefix = field.name + LOOKUP_SEP
    through = {name.removeprefix(prefix) for name in named if name.startswith(prefix)}
    return bool(through) and _identified(field.related_model, through)


def _unique_sets(model: Any) -> list[tuple[Any, ...]]:
    """The sets of ``model``'s fields whose values are unique together."""
    meta = model._meta
    found: list[tuple[Any, ...]] = [(field,) for field in meta.concrete_fields if field.unique]
    names = [*meta.unique_together, *(c.fields for c in meta.total_unique_constraints)]
    for together in names:
        found.append(tuple(meta.get_field(name) for name in together))
    return found


def tied(rows: list[tuple[Any, tuple]]) -> set[Any]:
    """The owners among ``rows`` (``(owner, sort values)`` in the query's order) two of
    whose rows have equal sort values.

    Text compares as a case- and accent-insensitive, trailing-space-blind collation
    would (MySQL's default ones): a tie the database sees is never missed, an extra one
    costs a query.
    """
    last: dict[Any, tuple] = {}
    found = set()
    for owner, values in rows:
        values = tuple(_collated(value) for value in values)
        if last.get(owner, _NONE) == values:
            found.add(owner)
        last[owner] = values
    return found


def tied_objects(groups: Any, columns: list[str]) -> set[Any]:
    """The owners among ``groups`` (``(owner, its related objects in the query's order)``)
    two of whose objects have equal values of ``columns`` (as :func:`tied` compares them)."""
    return tied(
        [
            (owner, tuple(getattr(obj, column) for column in columns))
            for owner, found in groups
            for obj in found or ()
        ]
    )


_NONE = object()


def _collated(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    decomposed = unicodedata.normalize("NFKD", value.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char)).rstrip()
