"""Whether a query's SQL and parameters are the same for every request, proved from its tree.

SQL compiled once and kept (:mod:`djony.objects.compiled`) is only right when compiling the
same query again, in another request, would give the same SQL and parameters.  What a
query *is* decides that, not its class: a default manager may add
``filter(tenant_id=CurrentTenant())`` with an expression that reads a thread-local
"current tenant" when the query is compiled, a lookup may read the active time zone
(``__year``, ``__date`` on a ``DateTimeField``), a custom field may prepare its value
with a per-request key.  :func:`request_independent` walks every part of a query
that reaches its SQL (conditions, selected columns, annotations, ``extra()``,
ordering, joins, subqueries) and answers ``True`` only when each is one of the few
node kinds known to compile from their own values alone:

* a column (``Col``) of a model field of Django's own field classes, or of a subclass
  (a project's ``Html5DateField``, model_utils' ``AutoCreatedField``) whose every method
  that makes a column's SQL or a lookup's parameters (:data:`SQL_METHODS`) is still
  Django's own: one that only changes its form field, its default or what it saves
  compiles as its Django parent;
* a built-in comparison lookup (``exact``, ``in``, ``gt``, ``contains``,
  ``range``, ``isnull``, ``regex`` ..., and their related-field and integer
  variants) of such a column, or of Django's extract of a part of such a ``DateField``
  or ``TimeField`` column (``day__month``, ``day__year``, ``clock__hour``: no time zone
  read), with a plain value (numbers, text, bytes, dates and
  times, UUIDs, booleans, ``None``; tuples and lists of them), another such node
  or a subquery that is itself independent;
* ``Value`` of a plain value, ``RawSQL``/``extra()`` text with plain parameters,
  ordering by such nodes, references to annotations and to a selected column's
  position (the compiler orders by ``PositionRef`` when ``Meta.ordering`` names a
  selected column), ``Exists``/``Subquery``.

Anything else (a custom expression, a transform such as a ``DateTimeField``'s ``__year``, a
``FilteredRelation``, a value of another type) answers ``False``: the caller then
compiles the query for every request, as Django does.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import uuid
from typing import Any

from django.db import models
from django.db.models import Q, aggregates, expressions, lookups
from django.db.models.fields import related_lookups
from django.db.models.functions import datetime as datetime_functions
from django.db.models.sql.compiler import PositionRef
from django.db.models.sql.datastructures import BaseTable, Join
from django.db.models.sql.query import Query
from django.db.models.sql.where import ExtraWhere, NothingNode, WhereNode

PLAIN_TYPES = (
    int,
    float,
    str,
    bytes,
    bool,
    decimal.Decimal,
    datetime.date,
    datetime.datetime,
    datetime.time,
    datetime.timedelta,
    uuid.UUID,
    type(None),
)

#: Lookups whose SQL is the connection's operator and whose parameters are the
#: column field's ``get_db_prep_value`` of the value (no time zone, no state).
PURE_LOOKUPS = frozenset(
    {
        lookups.Exact,
        lookups.IExact,
        lookups.GreaterThan,
        lookups.GreaterThanOrEqual,
        lookups.LessThan,
        lookups.LessThanOrEqual,
        lookups.IntegerFieldExact,
        lookups.IntegerGreaterThan,
        lookups.IntegerGreaterThanOrEqual,
        lookups.IntegerLessThan,
        lookups.IntegerLessThanOrEqual,
        lookups.In,
        lookups.Contains,
        lookups.IContains,
        lookups.StartsWith,
        lookups.IStartsWith,
        lookups.EndsWith,
        lookups.IEndsWith,
        lookups.Range,
        lookups.IsNull,
        lookups.Regex,
        lookups.IRegex,
        lookups.UUIDIExact,
        lookups.UUIDContains,
        lookups.UUIDIContains,
        lookups.UUIDStartsWith,
        lookups.UUIDIStartsWith,
        lookups.UUIDEndsWith,
        lookups.UUIDIEndsWith,
        # ``__year`` and ``__iso_year`` (bounds of the year), of a date part only
        lookups.YearExact,
        lookups.YearGt,
        lookups.YearGte,
        lookups.YearLt,
        lookups.YearLte,
        related_lookups.RelatedIn,
        related_lookups.RelatedExact,
        related_lookups.RelatedLessThan,
        related_lookups.RelatedGreaterThan,
        related_lookups.RelatedGreaterThanOrEqual,
        related_lookups.RelatedLessThanOrEqual,
        related_lookups.RelatedIsNull,
    }
)

#: Expression nodes whose SQL is made of their parts only (checked with the parts).
PURE_NODES = frozenset(
    {
        expressions.Value,
        expressions.OrderBy,
        expressions.Ref,
        # ORDER BY a selected column by its position: its SQL is the ordinal, its one
        # part the selected expression (a related list in Meta.ordering of its columns)
        PositionRef,
        expressions.F,
        expressions.OuterRef,
        expressions.ResolvedOuterRef,
        expressions.Exists,
        expressions.Subquery,
        expressions.ExpressionWrapper,
        # COUNT(...) (DISTINCT, FILTER (WHERE ...) of its parts) and its ``*``
        aggregates.Count,
        expressions.Star,
    }
)


def plain(value: Any) -> bool:
    """A value whose prepared parameter depends on nothing but itself."""
    if type(value) in (list, tuple, set, frozenset):
        return all(plain(item) for item in value)
    return type(value) in PLAIN_TYPES


#: The methods of a model field that decide its column's SQL (``select_format``, the
#: column, its casts and type) and a lookup's parameters (the value's preparation): a
#: field whose class defines none of them outside Django compiles as Django's own.
SQL_METHODS = (
    "select_format",
    "get_col",
    "cached_col",
    "get_db_prep_value",
    "get_prep_value",
    "to_python",
    "get_internal_type",
    "db_type",
    "rel_db_type",
    "cast_db_type",
    "db_parameters",
    "get_lookup",
    "get_transform",
    "get_db_converters",
)


#: The field classes whose parts Django extracts without a time zone.
ZONELESS = (models.DateField, models.TimeField)


def _date_part(value: Any) -> bool:
    """Whether ``value`` is Django's own extract of a date's or a time's part
    (``day__month``, ``day__iso_week_day``, ``clock__hour``) from such a column: its SQL
    reads no time zone, unlike a ``DateTimeField``'s, which reads the active one."""
    if type(value).__module__ != datetime_functions.__name__:
        return False
    if not isinstance(value, datetime_functions.Extract) or value.tzinfo is not None:
        return False
    (source,) = value.get_source_expressions()
    return type(source) is expressions.Col and django_parent(type(source.target)) in ZONELESS


def _django_field(field: Any) -> bool:
    """Whether ``field`` compiles as a field of Django's own classes (see the module)."""
    return django_parent(type(field)) is not None


@functools.cache
def django_parent(kind: type) -> type | None:
    """The Django field class that field class ``kind`` compiles and prepares values as:
    ``kind`` itself when it is Django's, else its nearest Django ancestor when every one
    of :data:`SQL_METHODS` of ``kind`` is that ancestor's (defined in its own classes);
    ``None`` when ``kind`` makes some of it itself."""
    if _from_django(kind):
        return kind
    parent = next((klass for klass in kind.__mro__ if _from_django(klass)), None)
    if parent is None:
        return None
    for name in SQL_METHODS:
        owner = next((klass for klass in kind.__mro__ if name in vars(klass)), None)
        if owner is None or owner not in parent.__mro__:
            return None
    return parent


def _from_django(kind: type) -> bool:
    module = kind.__module__
    return module.startswith("django.db.models.") or module.startswith("django.contrib.")


def request_independent(query: Query, compiler: Any = None) -> bool:
    """Whether compiling ``query`` gives the same SQL and parameters in every request.

    ``compiler``: a compiler that has compiled ``query`` (its resolved ordering, the
    related models' ``Meta.ordering`` included, is checked too).
    """
    if not _query(query):
        return False
    if compiler is not None:
        try:
            order_by = compiler.get_order_by()
        except Exception:  # noqa: BLE001 (whatever stops it, the SQL is not proved the same)
            return False
        if not all(_node(expr) for expr, _ in order_by):
            return False
    return True


def _query(query: Query) -> bool:
    if query.combinator or query.combined_queries:
        return False
    for join in query.alias_map.values():
        if type(join) not in (BaseTable, Join) or getattr(join, "filtered_relation", None):
            return False
    for sql, params in query.extra.values():
        if not isinstance(sql, str) or not plain(tuple(params)):
            return False
    parts = [
        query.where,
        *query.annotations.values(),
        *query.select,
        *(query.group_by if isinstance(query.group_by, tuple) else ()),
        *(item for item in query.order_by if not isinstance(item, str)),
    ]
    if query.default_ordering and not query.order_by and query.model is not None:
        parts.extend(item for item in query.model._meta.ordering if not isinstance(item, str))
    return all(_node(part) for part in parts)


def _node(node: Any) -> bool:
    kind = type(node)
    if kind is WhereNode:
        return all(_node(child) for child in node.children)
    if kind is NothingNode:
        return True
    if kind is ExtraWhere:
        return plain(tuple(node.params or ()))
    if kind is expressions.Col:
        return _django_field(node.target)
    if kind is expressions.RawSQL:
        return isinstance(node.sql, str) and plain(tuple(node.params))
    if kind is Query:
        return _query(node)
    if kind is Q:
        return False  # unresolved conditions (FilteredRelation): resolved when compiled
    if kind in PURE_LOOKUPS:
        return _operand(node.lhs, column=True) and _operand(node.rhs)
    if kind is expressions.F or kind is expressions.OuterRef:
        return True  # a name, resolved to a column when compiled (checked with the compiler)
    if kind in PURE_NODES:
        if kind in (expressions.Exists, expressions.Subquery):
            return _query(node.query)
        if kind is expressions.Value:
            return plain(node.value)
        return all(_node(part) for part in node.get_source_expressions() if part is not None)
    return False


def _operand(value: Any, column: bool = False) -> bool:
    if column:
        if type(value) is expressions.Col:
            return _django_field(value.target)
        return _date_part(value)
    if hasattr(value, "resolve_expression") or isinstance(value, (Query, WhereNode)):
        return _node(value)
    return plain(value)
