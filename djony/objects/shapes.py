"""SQL compiled once per *shape* of a recorded list: filters whose values change, nothing else.

A per-user object list (``super().get_object_list(request).filter(user=request.user)``,
an ``authorized_read_list`` returning ``object_list.filter(owner=bundle.request.user)``)
is the same query in every request but for the values of its filters.
Compiling it (Django's ``as_sql``, the converters of its columns) costs more than
running it, and :class:`~djony.objects.compiled.OneValueQuery` only serves a query whose
base is the same in every request.

A :class:`Recipe` is how a list was made from its origin (``Meta.queryset``): the
``filter(**kwargs)`` calls, each kwarg's name and its value's type, the slices and
orderings, in order.  Two lists with the same recipe were built by the same calls on
the same queryset object; their queries differ in the values of those filters only.
The values are not part of the recipe: each filter is still made by Django for this
request's values (``filter()`` prepares them and raises what it raises), and the
parameters are taken from this request's own conditions (:meth:`ShapeQuery.params_for`,
each compiled by Django's lookup).  The SQL is compiled once per recipe, finishing step
(``values_list`` of columns, ``count``, the objects) and database, and kept only when

* the origin's class and query are Django's own, or a QuerySet subclass that only adds
  methods (:func:`~djony.objects.compiled.plain_queryset_class`: no ``filter()`` of its
  own adding conditions per request), and the query is request-independent
  (:func:`~djony.objects.independent.request_independent`: no thread-local tenant
  expression, no time-zone lookup, no field preparing its own values);
* each filter value added one condition (the last conditions of an AND-only where tree,
  in the order Django adds them) of any lookup on a column; an ``in``'s collection is
  recorded with its length, a boolean (an ``isnull``'s, which decides the joins too) with
  its value;
* the SQL with those parameters replaced by slots is the SQL compiled, each slot
  appears once, and putting the values back gives the parameters compiled.

A list with no filter of its own (a plain page: ``Meta.queryset``, sliced) has a recipe
with no values: its SQL is compiled once, as it is, under the same conditions.

For another request a condition whose SQL is not the kept fragment (``True`` and
``False`` compile differently against a boolean expression, a value out of the column's
range compiles to nothing) makes it compile as Django does.  A value is always a query
parameter, never text in the SQL.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.core.exceptions import EmptyResultSet, FullResultSet, ValidationError
from django.db import models
from django.db.models.lookups import IsNull, Lookup
from django.db.models.sql.query import Query
from django.db.models.sql.where import WhereNode
from django.utils.functional import SimpleLazyObject, empty

from djony.objects.compiled import (
    Fragment,
    KeptQueries,
    KeptSQL,
    NotKeptForValue,
    NotStatic,
    Slot,
    plain_queryset_class,
)
from djony.objects.independent import plain, request_independent
from djony.objects.kept import PerOwner, register


def slotted(lookup: Any) -> bool:
    """Whether a filter's condition ``lookup`` may be a slot: any lookup (``exact``,
    ``in``, ``startswith``, ``gt``, ``range`` ...); an ``isnull`` only of ``True`` or
    ``False``, which the recipe records (:func:`_kind`): its value decides the joins as
    well (``True`` makes them outer joins), so each value has a shape of its own.

    Each request's condition is still made by the lookup's class from its own value and
    its SQL compared with the kept one (:class:`~djony.objects.compiled.Fragment`): a
    condition whose SQL the value changes is compiled as Django compiles it.
    """
    if isinstance(lookup, IsNull):
        return type(lookup.rhs) is bool
    return isinstance(lookup, Lookup)


class Recipe(NamedTuple):
    """How a list was made from ``origin``: hashable ``steps``, and its filters' values."""

    origin: models.QuerySet
    #: ``("filter", ((name, value type), ...))``, ``("slice", start, stop)``,
    #: ``("order_by", fields)``, in the order they were called.
    steps: tuple
    #: The values of the filters, in the order their conditions were added.
    values: tuple


def start(origin: models.QuerySet) -> Recipe | None:
    """The recipe of a list that is ``origin`` as it is, or ``None`` when none is kept.

    Only Django's own ``QuerySet`` (or a subclass that only adds methods,
    :func:`~djony.objects.compiled.plain_queryset_class`) and ``Query`` classes: a
    subclass's ``filter()`` may add conditions the recipe does not show.
    """
    if not plain_queryset_class(type(origin)) or type(origin.query) is not Query:
        return None
    return Recipe(origin, (), ())


def filtered(recipe: Recipe | None, args: tuple, kwargs: dict) -> Recipe | None:
    """``recipe`` followed by ``filter(*args, **kwargs)``, or ``None`` (not kept)."""
    if recipe is None or args:
        return None
    if not kwargs:
        return recipe  # filter() with nothing is a copy
    names = sorted(kwargs)  # Q(**kwargs) adds its conditions in this order
    values = [_slot_value(kwargs[name]) for name in names]
    if any(value is None for value in values):
        return None
    kinds = tuple((name, _kind(value)) for name, value in zip(names, values, strict=True))
    return recipe._replace(
        steps=(*recipe.steps, ("filter", kinds)), values=(*recipe.values, *values)
    )


def then(recipe: Recipe | None, *step: Any) -> Recipe | None:
    """``recipe`` followed by a step whose arguments are part of the shape (slices,
    orderings: their SQL is not a parameter), or ``None`` if one is not hashable."""
    if recipe is None:
        return None
    try:
        hash(step)
    except TypeError:
        return None
    return recipe._replace(steps=(*recipe.steps, step))


#: The collections an ``in`` filter's values may come in (``pk__in=keys``).
COLLECTIONS = (list, tuple, set, frozenset)


def _kind(value: Any) -> Any:
    """What the recipe records of a filter's value: its type (and a collection's length,
    which decides how many parameters its SQL has; a boolean itself, which may decide the
    SQL and the joins: ``IS NULL`` and outer joins for ``isnull=True``, ``WHERE NOT
    column`` on PostgreSQL)."""
    if isinstance(value, COLLECTIONS):
        return (type(value), len(value))
    if type(value) is bool:
        return (bool, value)
    return type(value)


def _slot_value(value: Any) -> Any:
    """``value`` as a filter value a slot may take, or ``None``.

    A plain value (number, text, date, UUID ...), a saved model instance (a related
    filter's ``user=request.user``; a lazy ``request.user`` is read through), or a
    non-empty collection of plain values other than ``None`` (an ``in`` filter's).
    """
    if type(value) in COLLECTIONS:
        if value and all(item is not None and plain(item) for item in value):
            return value
        return None
    if isinstance(value, SimpleLazyObject):
        if value._wrapped is empty:
            return None  # reading it would run code the list's own filter() runs
        value = value._wrapped
    if isinstance(value, models.Model):
        return value if plain(value.pk) and value.pk is not None else None
    if value is None or isinstance(value, COLLECTIONS) or not plain(value):
        return None
    return value


class ShapeQuery(KeptSQL):
    """The SQL of one recipe's finished query, its filters' parameters slots."""

    def __init__(self, query: Any, sql: str, params: tuple, alias: str, template: Any) -> None:
        super().__init__(query, sql, params, alias, template)
        #: Per slot, in the order of the recipe's values: the lookup class of its
        #: condition, where its parameters are among the params, and its SQL (:class:`Fragment`).
        self.slots: list[tuple[type, tuple[int, ...], Fragment]] = []
        #: The where tree's other parts (conditions and subtrees), in order: each
        #: request's must be these (the same objects: a list copies its origin's).
        self.fixed: list[Any] = []

    @classmethod
    def compile(
        cls, recipe: Recipe, queryset: models.QuerySet, compiler: Any, compiled: tuple
    ) -> ShapeQuery | None:
        """The kept query of ``queryset`` (made by ``recipe``), or ``None`` (see the module).

        ``compiler`` compiled ``queryset.query``, giving ``compiled`` (SQL, parameters).
        Raises :class:`~djony.objects.compiled.NotKeptForValue` when a filter's value is
        not in that SQL (Django left its condition out): nothing is decided for the recipe.
        """
        query = queryset.query
        sql, params = compiled
        if not request_independent(query, compiler):
            return None
        found = _recipe_conditions(query.where, recipe.values)
        if found is None:
            return None
        fixed, conditions = found
        split = len(fixed)
        slotted = query.clone()
        markers = [object() for _ in conditions]
        for (parent, index), marker in zip(_parts(slotted.where)[split:], markers, strict=True):
            parent.children[index] = Slot(parent.children[index], marker, many=True)
        try:
            slot_sql, slot_params = slotted.get_compiler(queryset.db).as_sql()
        except (NotStatic, EmptyResultSet, FullResultSet):
            return None
        if slot_sql != sql or len(slot_params) != len(params):
            return None
        kept = cls(query, sql, tuple(params), queryset.db, compiler)
        rebuilt = list(slot_params)
        for lookup, marker in zip(conditions, markers, strict=True):
            positions = tuple(i for i, param in enumerate(slot_params) if param is marker)
            try:
                fragment, fragment_params = Fragment.of(compiler, lookup)
            except (EmptyResultSet, FullResultSet):
                # A value Django leaves out of the SQL (``gt`` an integer below the
                # column's range matches every row): another request's value decides.
                raise NotKeptForValue from None
            if len(positions) != len(fragment_params):
                return None  # (none at all: a condition whose SQL holds its value, kept as is)
            for position, param in zip(positions, fragment_params, strict=True):
                rebuilt[position] = param
            kept.slots.append((type(lookup), positions, fragment))
        if tuple(rebuilt) != tuple(params):
            return None
        kept.fixed = fixed
        return kept

    def params_for(self, query: Query) -> tuple | None:
        """The parameters of ``query`` (made by the same recipe), or ``None`` when its SQL
        would not be the kept SQL: then it is compiled as Django compiles it."""
        parts = _parts(query.where)
        split = len(self.fixed)
        if not _same_fixed(parts, self.fixed, len(self.slots)):
            return None  # the list's conditions were changed another way
        compiler = self.converters()[0]
        params = list(self.params)
        for (parent, index), (kind, positions, fragment) in zip(
            parts[split:], self.slots, strict=True
        ):
            lookup = parent.children[index] if index >= 0 else None
            if type(lookup) is not kind:
                return None
            try:
                found_params = fragment.params(compiler, lookup)
            except Exception:  # noqa: BLE001 - compiled as Django compiles it, it raises there
                # An integer out of the column's range (no SQL), a value the backend's
                # adaptation refuses (an IP address on PostgreSQL): the caller's own compile
                # decides, with its error handling (a client's bad value is a 400).
                return None
            if found_params is None or len(found_params) != len(positions):
                return None
            for position, param in zip(positions, found_params, strict=True):
                params[position] = param
        return tuple(params)


def _made_from(lookup: Lookup, value: Any) -> bool:
    """Whether ``lookup`` is the condition ``filter()`` made of ``value`` (its prepared
    value is the one ``value`` prepares to)."""
    try:
        return type(lookup)(lookup.lhs, value).rhs == lookup.rhs
    except (TypeError, ValueError, ValidationError):
        return False


def _parts(node: WhereNode) -> list[tuple[WhereNode, int]] | None:
    """The parts of a where tree, in order, as ``(parent, index)``: each condition reached
    through AND, non-negated nodes, and each other subtree as one part (``(subtree, -1)``).

    ``None`` when the tree itself is not AND, non-negated.
    """
    if node.connector != "AND" or node.negated:
        return None
    parts: list[tuple[WhereNode, int]] = []

    def walk(current: WhereNode) -> None:
        for index, child in enumerate(current.children):
            if not isinstance(child, WhereNode):
                parts.append((current, index))
            elif child.connector == "AND" and not child.negated:
                walk(child)
            else:
                parts.append((child, -1))

    walk(node)
    return parts


def _part(parent: WhereNode, index: int) -> Any:
    """The condition or subtree at ``(parent, index)`` of :func:`_parts`."""
    return parent if index < 0 else parent.children[index]


def _recipe_conditions(where: WhereNode, values: tuple) -> tuple[list, list] | None:
    """The where tree's other parts and the conditions the recipe's ``values`` made (one
    :func:`slotted` condition each, the tree's last, in order), or ``None``."""
    parts = _parts(where)
    if parts is None or len(parts) < len(values):
        return None
    split = len(parts) - len(values)  # the origin's own parts, then the recipe's conditions
    if any(index < 0 for _, index in parts[split:]):
        return None
    conditions = [parent.children[index] for parent, index in parts[split:]]
    for lookup, value in zip(conditions, values, strict=True):
        if not slotted(lookup) or not _made_from(lookup, value):
            return None
    return [_part(parent, index) for parent, index in parts[:split]], conditions


def _same_fixed(parts: list | None, fixed: list, slots: int) -> bool:
    """Whether ``parts`` (:func:`_parts`) are ``fixed`` (the same objects, or equal), then
    ``slots`` more: a tree made by the same recipe, changed no other way."""
    if parts is None or len(parts) != len(fixed) + slots:
        return False
    return all(
        _part(parent, index) is kept or _part(parent, index) == kept
        for (parent, index), kept in zip(parts[: len(fixed)], fixed, strict=True)
    )


class FilterTemplate:
    """What ``filter(**kwargs)`` built for one recipe: the queryset to copy, its conditions
    for the filters' values to be made again by Django's lookup classes.

    Building a filter (resolving the names to joins and lookups) costs more than the
    query it adds to; a list with the same recipe gets the same joins and the same
    lookups on the same columns, its conditions only made of other values.
    """

    def __init__(self, queryset: models.QuerySet, fixed: list[Any], slots: list[Lookup]) -> None:
        self.queryset = queryset
        #: The where tree's other parts, in order (the origin's own conditions).
        self.fixed = fixed
        #: One condition per value of the recipe, in order (the earlier filters' first).
        self.slots = slots

    @classmethod
    def make(cls, before: Recipe, after: Recipe, built: models.QuerySet) -> FilterTemplate | None:
        """The template of ``built`` (``filter()`` of a list made by ``before``, giving a
        list made by ``after``), or ``None`` when its conditions are not one
        :func:`slotted` condition per value at the end of an AND-only where tree."""
        found = _recipe_conditions(built.query.where, after.values) if after.values else None
        if found is None:
            return None
        fixed, slots = found
        # A copy: ``built`` is handed to the request's code, which may change it.
        return cls(built._chain(), fixed, slots)

    def rebuild(self, before: Recipe, after: Recipe, queryset: models.QuerySet) -> Any:
        """``queryset.filter(...)`` for ``after``'s new values, or ``None``: then ``filter()``
        builds it (and raises what it raises for a value)."""
        parts = _parts(queryset.query.where)
        earlier = len(before.values)
        if not _same_fixed(parts, self.fixed, earlier):
            return None
        conditions = [_part(parent, index) for parent, index in parts[len(self.fixed) :]]
        for made, value in zip(self.slots[earlier:], after.values[earlier:], strict=True):
            if value == "":
                return None  # a backend may read '' as NULL: Django's filter decides
            try:
                condition = type(made)(made.lhs, value)
            except Exception:  # noqa: BLE001 - filter() raises it, as Django does
                return None
            if condition.rhs is None:
                return None  # filter() builds IS NULL for it
            conditions.append(condition)
        for lookup, made in zip(conditions, self.slots, strict=True):
            if type(lookup) is not type(made):
                return None
        chained = self.queryset._chain()
        places = _parts(chained.query.where)
        for (parent, index), condition in zip(places[len(self.fixed) :], conditions, strict=True):
            parent.children[index] = condition
        return chained


#: On each origin: (the recipe's steps, database, the list's own alias and write flag)
#: -> the FilterTemplate or None.
_FILTERS = PerOwner("_djony_filter_templates", KeptQueries)
register(
    "QuerySet._djony_filter_templates",
    "on an origin queryset (a resource's Meta.queryset, a related resource's): (the "
    "recipe's steps after a filter() call, the database, the list's using() alias and "
    "write flag) -> the FilterTemplate or None: the same filter() on a list made by the "
    "same calls builds the same joins and lookups, its conditions made again by Django's "
    "lookup classes for each request's values",
    "DJONY_CACHE_SIZE entries per origin (least recently used first out; djony.objects."
    "kept.PerOwner): an API's many resources do not take each other's places",
)


def _filter_key(after: Recipe, queryset: models.QuerySet) -> tuple:
    return (after.steps, queryset.db, queryset._db, queryset._for_write)


def kept_filter(
    before: Recipe | None, after: Recipe | None, queryset: models.QuerySet
) -> models.QuerySet | None:
    """``queryset`` (made by ``before``) filtered into a list made by ``after``, from the
    template kept for it, or ``None`` (call ``filter()``, then :func:`keep_filter`)."""
    if before is None or after is None or after.steps == before.steps:
        return None
    template = _FILTERS.of(after.origin).get(_filter_key(after, queryset))
    if template is None:
        return None
    return template.rebuild(before, after, queryset)


def keep_filter(
    before: Recipe | None, after: Recipe | None, queryset: models.QuerySet, built: Any
) -> None:
    """Keep the template of ``built`` (``queryset.filter(...)``) for the next requests."""
    if before is None or after is None or after.steps == before.steps:
        return
    templates = _FILTERS.of(after.origin)
    key = _filter_key(after, queryset)
    if key not in templates:
        templates[key] = FilterTemplate.make(before, after, built)


#: On each origin: (the recipe's steps, the finishing step, alias) -> the ShapeQuery or None.
_KEPT = PerOwner("_djony_shape_sql", KeptQueries)
register(
    "QuerySet._djony_shape_sql",
    "on an origin queryset (a resource's Meta.queryset, a related resource's): (the "
    "recipe's steps: filter names and value types (a boolean's value, True or False), "
    "slices, orderings; the finishing step; the database) -> its ShapeQuery or None: "
    "the same calls on the same queryset build the same query but for the filters' values, "
    "which are parameters taken from each request's own conditions",
    "DJONY_CACHE_SIZE entries per origin (least recently used first out; djony.objects."
    "kept.PerOwner): an API's many resources do not take each other's places",
)


def _key(recipe: Recipe, finish: Any, alias: str) -> tuple:
    return (recipe.steps, finish, alias)


def kept_sql(
    recipe: Recipe | None, finish: Any, query: Query, alias: str
) -> tuple[ShapeQuery, tuple] | None:
    """The SQL kept for ``recipe`` then ``finish`` on ``alias``, and ``query``'s parameters.

    ``query``: this request's query (the list's, before ``finish``: the conditions are
    the same).  ``None`` when nothing is kept (compile as Django does, then
    :func:`keep_sql`) or this request's conditions do not fit the kept SQL.
    """
    if recipe is None:
        return None
    kept = _KEPT.of(recipe.origin).get(_key(recipe, finish, alias))
    if kept is None:
        return None
    params = kept.params_for(query)
    return None if params is None else (kept, params)


def keep_sql(
    recipe: Recipe | None,
    finish: Any,
    queryset: models.QuerySet,
    compiler: Any,
    compiled: tuple[str, Any],
) -> None:
    """Keep what ``compiler`` compiled (``compiled``) of ``queryset`` (``recipe``, then
    ``finish``) for the next requests, once per key (a refusal is kept too)."""
    if recipe is None:
        return
    shapes = _KEPT.of(recipe.origin)
    key = _key(recipe, finish, queryset.db)
    if key in shapes:
        return
    try:
        kept = ShapeQuery.compile(recipe, queryset, compiler, compiled)
    except NotKeptForValue:
        return
    shapes[key] = kept
