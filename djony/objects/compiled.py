"""SQL compiled once for queries that differ only in one ``exact`` filter value.

Compiling a Django query (``filter``, ``values_list``, ``as_sql``) costs more
than running a small one.  :class:`OneValueQuery` compiles
``finish(base.filter(**{name: sample}))`` once and keeps its SQL with the
filter's value as a parameter slot; for another value it asks Django's own
lookup for that value's SQL fragment and parameter (the same preparation, the
same errors) and uses the kept SQL only if the fragment is the kept one.  The
value is always a query parameter, never text in the SQL.

Only for a query whose SQL is the same in every request, proved from the query
itself when it is compiled (:func:`djony.objects.independent.request_independent`: a
default manager scoping by a thread-local tenant, a lookup reading the active
time zone, a custom expression or field make it compile for every request), and
only when the added condition is one ``exact`` lookup with one parameter and the
SQL with the slot is the SQL with the sample; :meth:`OneValueQuery.compile`
answers ``None`` otherwise, and the caller compiles per request as Django does.
"""

from __future__ import annotations

import copy
import functools
import weakref
from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connections, models
from django.db.models.expressions import ColPairs
from django.db.models.fields.related_lookups import RelatedIn, RelatedLookupMixin
from django.db.models.lookups import BuiltinLookup, Exact, In, IntegerFieldExact, Lookup
from django.db.models.sql.where import WhereNode

from djony.meta.compat import builds_from_rows, evaluate_compiled, objects_from_rows
from djony.objects.independent import django_parent, request_independent
from djony.objects.kept import BoundedCache, register

#: Stands for the filter's value among the kept parameters (found by identity).
_SLOT = object()

#: Django's fields whose preparation of a ``str`` or an ``int`` for an ``exact`` lookup
#: reads nothing but the value (no setting, time zone, translation or connection state;
#: an integer's range is the backend's, fixed per database): a :class:`OneValueQuery` on
#: one of them, or on a subclass that prepares as one of them (a form field or a
#: ``pre_save`` of its own, :func:`~djony.objects.independent.django_parent`), remembers
#: the parameters Django prepared for a value (:class:`PreparedValues`).
STABLE_PREPARATION = frozenset(
    {
        models.AutoField,
        models.BigAutoField,
        models.SmallAutoField,
        models.IntegerField,
        models.BigIntegerField,
        models.SmallIntegerField,
        models.PositiveIntegerField,
        models.PositiveBigIntegerField,
        models.PositiveSmallIntegerField,
        models.CharField,
        models.SlugField,
        models.EmailField,
        models.TextField,
        models.UUIDField,
    }
)

#: The longest ``str`` whose parameters are remembered (a longer one is prepared anew).
MAX_REMEMBERED_TEXT = 200


class KeptQueries(BoundedCache):
    """Where compiled queries are kept: at most ``DJONY_CACHE_SIZE`` of them, least
    recently used first out; a copy (``deepcopy`` of a field or resource) starts empty.

    What a query holds (compiled expressions, the objects they name) is not for copying,
    and a copy compiles its own on its first request.
    """


def plain_manager(model: type[models.Model], manager: Any = None) -> bool:
    """Whether ``model._default_manager.all()`` (``manager``'s, e.g. ``_base_manager``)
    is Django's unfiltered ``QuerySet``.

    A manager class may add methods (``PermissionManager``), not change the
    queryset: ``get_queryset``/``all`` are ``Manager``'s own and its queryset
    class is ``QuerySet`` or a :func:`plain_queryset_class`.
    """
    if manager is None:
        manager = model._default_manager
    kind = type(manager)
    return (
        kind.get_queryset is models.Manager.get_queryset
        and kind.all is models.Manager.all
        and plain_queryset_class(manager._queryset_class)
        and "get_queryset" not in vars(manager)
        and "all" not in vars(manager)
        and not manager._hints
    )


def bare_manager(model: type[models.Model]) -> bool:
    """Whether ``model._default_manager.all()`` gives, on this call, what Django's plain
    manager gives: :func:`plain_manager`, or a manager whose ``get_queryset`` is its own
    and returned a bare queryset now (:func:`bare_queryset`: wger's ``SubmissionManager``).
    Unlike :func:`plain_manager`, a proof for this call only: ask it on every read."""
    manager = model._default_manager
    if plain_manager(model, manager):
        return True
    return may_be_bare(model) and bare_queryset(manager.all(), model)


def may_be_bare(model: type[models.Model]) -> bool:
    """Whether ``model``'s default manager is one :func:`bare_manager` may prove bare on a
    call: Django's ``all()`` and no hints (a plain manager, or one whose ``get_queryset``
    is its own: wger's ``SubmissionManager``, a tenant manager; what it gives is only
    known when asked)."""
    manager = model._default_manager
    return (
        type(manager).all is models.Manager.all
        and "all" not in vars(manager)
        and not manager._hints
    )


#: What Django's related managers set on the queryset the related model's default
#: manager gave (``_apply_rel_filters``): the owner as a hint and as the known related
#: object, the manager's database, and the owner's filter, deferred.
_RELATED_STATE = frozenset(
    {"_hints", "_db", "_deferred_filter", "_defer_next_filter", "_known_related_objects"}
)


def bare_related_queryset(queryset: Any, model: type[models.Model]) -> bool:
    """Whether ``queryset``, a related manager's, is a bare queryset of ``model`` with only
    what the related manager adds (``_RELATED_STATE``; its owner's filter still deferred:
    nothing read ``.query``; the owner its only hint), and ``model``'s default manager
    gives a bare queryset too (:func:`bare_manager`: what a page's reads run through).
    What the manager's own ``get_queryset`` gave on this call: ask it on every read.
    Methods set on the instance (djony's page readers: :func:`djony.objects.page_gets.arm`)
    are the caller's to judge."""
    return (
        queryset._deferred_filter is not None
        and not set(queryset._hints) - {"instance"}
        and _as_fresh(queryset, model, ignored=_RELATED_STATE)
        and bare_manager(model)
    )


def bare_queryset(queryset: Any, model: type[models.Model]) -> bool:
    """Whether ``queryset`` is what ``QuerySet(model)`` is: of Django's class or one that
    only adds methods (:func:`plain_queryset_class`), with nothing filtered, ordered,
    annotated, routed or hinted.  What a manager's own ``get_queryset`` gave, proved on
    this call (wger's ``SubmissionManager`` returns ``SubmissionQuerySet(self.model)``)."""
    return _as_fresh(queryset, model)


def _as_fresh(queryset: Any, model: type[models.Model], ignored: frozenset = frozenset()) -> bool:
    """Whether ``queryset`` (of a :func:`plain_queryset_class`) holds what ``QuerySet(model)``
    holds but for the attributes ``ignored``: where some are (a related manager's),
    attributes set on the instance beyond Django's, the caches a clone made
    (``_annotation_select_cache``) and a many-to-many filter's sticky mark are too."""
    if not plain_queryset_class(type(queryset)) or queryset.model is not model:
        return False
    state, fresh_state = vars(queryset), vars(models.QuerySet(model))
    if not (state.keys() >= fresh_state.keys() if ignored else state.keys() == fresh_state.keys()):
        return False
    if any(
        state[name] != value
        for name, value in fresh_state.items()
        if name != "_query" and name not in ignored
    ):
        return False
    query, fresh_query = vars(state["_query"]), vars(fresh_state["_query"])
    if not ignored:
        return query == fresh_query
    return _without_clone_marks(query) == _without_clone_marks(fresh_query)


def _without_clone_marks(query_state: dict[str, Any]) -> dict[str, Any]:
    state = {name: value for name, value in query_state.items() if not name.endswith("_cache")}
    state["filter_is_sticky"] = False
    return state


def plain_queryset_class(kind: type) -> bool:
    """Whether ``kind`` behaves as Django's ``QuerySet`` in everything Django calls: it is
    ``QuerySet``, or a subclass that only adds methods of its own (wger's
    ``SubmissionQuerySet`` with ``accepted()``, a ``QuerySet.as_manager()`` of helpers),
    overriding none of ``QuerySet``'s names (``__init__``, ``_clone``, ``filter``,
    ``iterator`` ...: a class that does may add conditions when it is cloned or
    evaluated), with no metaclass of its own."""
    return kind is models.QuerySet or (
        isinstance(kind, type)
        and issubclass(kind, models.QuerySet)
        and type(kind) is type
        and _adds_only(kind)
    )


@functools.cache
def _adds_only(kind: type) -> bool:
    django_names = {name for klass in models.QuerySet.__mro__ for name in vars(klass)}
    own = {name for klass in kind.__mro__[: kind.__mro__.index(models.QuerySet)]
           for name in vars(klass)}  # fmt: skip
    return not (own & django_names - _CLASS_BOOKKEEPING)


#: What every class body defines, overriding nothing ``QuerySet`` does.
_CLASS_BOOKKEEPING = frozenset(
    {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
     "__static_attributes__", "__annotations__"}
)  # fmt: skip


class Slot:
    """A where-clause leaf compiled as its lookup, its parameter (each, ``many``) ``marker``."""

    def __init__(self, lookup: Lookup, marker: object = _SLOT, many: bool = False) -> None:
        self.lookup = lookup
        self.marker = marker
        #: Whether the lookup may have any number of parameters, each the marker: several
        #: (an ``in``) or none (a boolean compiled as ``WHERE column`` / ``WHERE NOT column``).
        self.many = many

    def __getattr__(self, name: str) -> Any:
        if name.startswith("as_"):  # vendor compilers must go through as_sql below
            raise AttributeError(name)
        return getattr(self.lookup, name)

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list]:
        sql, params = compiler.compile(self.lookup)
        if len(params) != 1 and not self.many:
            raise NotStatic
        return sql, [self.marker] * len(params)


class NotStatic(Exception):
    """The query cannot be kept with its parameter slots (a slot compiled to other than one)."""


def last_leaf(node: WhereNode) -> tuple[WhereNode, int] | None:
    """The parent and index of the last leaf of an AND-only, non-negated where tree."""
    if node.connector != "AND" or node.negated or not node.children:
        return None
    index = len(node.children) - 1
    child = node.children[index]
    if isinstance(child, WhereNode):
        return last_leaf(child)
    return node, index


class NotKeptForValue(Exception):
    """The sample value compiles to no SQL (Django decided the query by itself): ask again."""


class KeptSQL:
    """A query's SQL compiled once, and what running it again needs.

    The compiler that compiled it (:attr:`template`: what Django's iterable reads of it,
    the selected columns and the related models ``select_related`` joins in), the
    database it was compiled for and the converters of its selected expressions.  What
    varies between the requests it serves, and how their parameters are found, is a
    subclass's (:class:`OneValueQuery`, :class:`djony.objects.shapes.ShapeQuery`).
    """

    def __init__(self, query: Any, sql: str, params: tuple, alias: str, template: Any) -> None:
        self.query = query
        self.template = template
        #: The database the SQL was compiled for.
        self.alias = alias
        #: The selected expressions, as ``SQLCompiler.get_converters`` takes them.
        self.expressions = [column[0] for column in template.select[: template.col_count]]
        self.sql = sql
        self.params = params
        #: Django's connection of this thread -> a compiler of the query on it, and the
        #: converters of its selected expressions (what Django's own query applies).
        self._converters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def objects(self, queryset: models.QuerySet, params: tuple) -> list[Any]:
        """``list(queryset)`` by the kept SQL with ``params`` (:meth:`params_for`).

        For ``queryset`` of this request, built as the kept one was (``finish`` of the
        same base filtered by another value), on this thread's connection.  The objects
        are built from the rows as Django's own iterable builds them, from the kept
        compiler's description of the columns (:func:`~djony.meta.compat.objects_from_rows`);
        where that one decides more (``prefetch_related`` ...), Django's iterable runs the
        kept SQL itself.
        """
        converter, converters = self.converters()
        if builds_from_rows(queryset, self.template):
            with connections[self.alias].cursor() as cursor:
                cursor.execute(self.sql, params)
                rows = cursor.fetchall()
            if converters:
                rows = converter.apply_converters(rows, converters)
            return objects_from_rows(queryset, self.template, rows)
        compiler = copy.copy(self.template)
        compiler.connection = connections[self.alias]
        own = compiler.get_converters

        def get_converters(expressions: list) -> dict:
            # The iterable asks for the kept query's selected columns: their converters
            # were made once for this connection (as Django would make them again).
            if len(expressions) == len(self.expressions) and all(
                found is selected
                for found, selected in zip(expressions, self.expressions, strict=True)
            ):
                return converters
            return own(expressions)

        compiler.get_converters = get_converters
        return evaluate_compiled(queryset, compiler, (self.sql, params))

    def compiler(self) -> Any:
        """A compiler of the kept query on this thread's connection (for converters)."""
        return self.query.get_compiler(self.alias)

    def converters(self) -> tuple[Any, dict]:
        """A compiler of the kept query on this thread's connection and its converters.

        Made once per connection object (Django keeps one per thread and alias): they are
        the field's ``from_db_value`` and the backend's converters of the selected
        expressions, which no request changes.
        """
        connection = connections[self.alias]
        found = self._converters.get(connection)
        if found is None:
            compiler = self.compiler()
            found = self._converters[connection] = (
                compiler,
                compiler.get_converters(self.expressions),
            )
        return found


class Fragment:
    """A condition's SQL in a kept query, and how a request's condition of the same kind
    gives its parameters when its SQL is that SQL.

    Django compiles a condition as its left-hand side (the column, which the kept query
    fixes), then its right-hand side and the operator around it.  For the lookups whose
    ``as_sql`` is that and nothing more (Django's built-in ones: ``exact`` but for a
    boolean's ``WHERE column``, ``in`` where the backend sets no list size, the related
    ones over one column) and no backend-specific method, a request's condition is
    compiled by its right-hand side alone (``process_rhs``: Django's preparation, its
    out-of-range integers); any other is compiled whole, as before.
    """

    __slots__ = ("sql", "operator", "count", "kind")

    def __init__(self, sql: str, operator: str | None, count: int, kind: type) -> None:
        #: The condition's whole SQL.
        self.sql = sql
        #: Its right-hand side with its operator, when that alone decides (else ``None``).
        self.operator = operator
        #: Its number of parameters.
        self.count = count
        #: Its lookup class (whose ``as_sql`` chain was looked at when it was kept).
        self.kind = kind

    @classmethod
    def of(cls, compiler: Any, lookup: Any) -> tuple[Fragment, tuple]:
        """The fragment of ``lookup`` (compiled by ``compiler``) and its parameters."""
        sql, params = compiler.compile(lookup)
        operator = None
        if _rhs_decides(lookup, compiler.connection) and not _value_decides(lookup):
            rhs_sql, rhs_params = lookup.process_rhs(compiler, compiler.connection)
            if tuple(rhs_params) == tuple(params):  # the column itself has none
                operator = lookup.get_rhs_op(compiler.connection, rhs_sql)
        return cls(sql, operator, len(params), type(lookup)), tuple(params)

    def params(self, compiler: Any, lookup: Any) -> tuple | None:
        """``lookup``'s parameters when its SQL is this fragment's, else ``None``; raises
        what compiling it raises (``EmptyResultSet`` for an integer out of range ...).

        ``lookup`` is of the kept condition's kind on its column and database (what the
        kept queries compare before they ask), so only its value is looked at again."""
        connection = compiler.connection
        if self.operator is not None and type(lookup) is self.kind and not _value_decides(lookup):
            rhs_sql, params = lookup.process_rhs(compiler, connection)
            same = lookup.get_rhs_op(connection, rhs_sql) == self.operator
        else:
            sql, params = compiler.compile(lookup)
            same = sql == self.sql
        if not same or len(params) != self.count:
            return None
        return tuple(params)


def _value_decides(lookup: Any) -> bool:
    """Whether ``lookup``'s value may change more than its right-hand side: a boolean
    ``exact`` may be compiled as the column itself (``WHERE column``, ``WHERE NOT column``)."""
    return isinstance(lookup, Exact) and isinstance(lookup.rhs, bool)


def _rhs_decides(lookup: Any, connection: Any) -> bool:
    """Whether ``lookup``'s SQL is its (fixed) column, then its right-hand side's SQL with
    its operator: Django's built-in ``as_sql`` chain and no backend's own method."""
    if hasattr(lookup, f"as_{connection.vendor}"):
        return False
    for klass in type(lookup).__mro__:
        method = klass.__dict__.get("as_sql")
        if method is None:
            continue
        if method not in _RHS_AS_SQL:
            return False
        if klass is BuiltinLookup:
            break
    else:
        return False
    if isinstance(lookup, In) and connection.ops.max_in_list_size():
        return False  # a long list is split
    return not isinstance(lookup.lhs, ColPairs)


#: The ``as_sql`` methods that compile a condition as column, operator and right-hand side.
_RHS_AS_SQL = frozenset(
    {
        BuiltinLookup.as_sql,
        Exact.as_sql,
        In.as_sql,
        RelatedLookupMixin.as_sql,
        RelatedIn.as_sql,
    }
)


class PreparedValues(BoundedCache):
    """A :class:`OneValueQuery`'s parameters per value Django prepared for it (a URL's
    ``"7"`` for a primary key, an API key's username), when its condition's field
    prepares by the value alone (:data:`STABLE_PREPARATION`); a value Django refuses is
    asked again each time (its error is Django's, raised anew)."""


register(
    "OneValueQuery._prepared",
    "on a kept one-value query whose field is one of STABLE_PREPARATION's: (the value's "
    "type, the value: a str of at most MAX_REMEMBERED_TEXT characters or an int) -> the "
    "query's parameters as Django's lookup prepared them for it, or None where the kept SQL "
    "does not serve it (an integer out of range)",
    "DJONY_CACHE_SIZE per kept query (PreparedValues)",
)


class OneValueQuery(KeptSQL):
    """The SQL of ``finish(base.filter(**{name: value}))`` for any value, compiled once."""

    def __init__(
        self,
        query: Any,
        sql: str,
        params: tuple,
        position: int,
        lookup: Lookup,
        fragment: Fragment,
        alias: str,
        template: Any,
    ) -> None:
        super().__init__(query, sql, params, alias, template)
        self.position = position
        self.lookup = lookup
        self.fragment = fragment
        stable = type(lookup) in (Exact, IntegerFieldExact) and (
            django_parent(type(lookup.lhs.output_field)) in STABLE_PREPARATION
        )
        #: Parameters per value, when Django prepares this condition's values by the
        #: value alone (else ``None``).
        self._prepared = PreparedValues() if stable else None

    @classmethod
    def compile(
        cls,
        base: Callable[[], models.QuerySet],
        name: str,
        sample: Any,
        finish: Callable[[models.QuerySet], models.QuerySet],
    ) -> OneValueQuery | None:
        """Compile for ``sample``; ``None`` if the query is not one value's (see the module).

        Raises :class:`NotKeptForValue` when ``sample`` itself compiles to no SQL, and
        what ``filter()`` raises for it.
        """
        if not _plain_value(sample):
            return None
        queryset = finish(base().filter(**{name: sample}))
        compiler = queryset.query.get_compiler(queryset.db)
        try:
            sql, params = compiler.as_sql()
        except (EmptyResultSet, FullResultSet):
            raise NotKeptForValue from None  # e.g. an integer out of range: try another value
        if not request_independent(queryset.query, compiler):
            return None  # its SQL or parameters may change between requests
        slotted = finish(base().filter(**{name: sample}))
        found = last_leaf(slotted.query.where)
        if found is None:
            return None
        parent, index = found
        lookup = parent.children[index]
        if not isinstance(lookup, Exact):  # IntegerFieldExact, RelatedExact ... included
            return None
        if not _plain_value(lookup.rhs):
            return None
        parent.children[index] = Slot(lookup)
        slot_compiler = slotted.query.get_compiler(queryset.db)
        try:
            slot_sql, slot_params = slot_compiler.as_sql()
            fragment, fragment_params = Fragment.of(compiler, lookup)
        except (NotStatic, EmptyResultSet, FullResultSet):
            return None
        positions = [i for i, param in enumerate(slot_params) if param is _SLOT]
        if slot_sql != sql or len(positions) != 1 or len(fragment_params) != 1:
            return None
        (position,) = positions
        rebuilt = list(slot_params)
        rebuilt[position] = fragment_params[0]
        if tuple(rebuilt) != tuple(params):
            return None
        parent.children[index] = lookup
        return cls(
            queryset.query, sql, tuple(params), position, lookup, fragment, queryset.db, compiler
        )

    def params_for(self, value: Any) -> tuple | None:
        """The parameters for ``value``, or ``None`` when its SQL would not be the kept SQL.

        Django's lookup prepares the value (and raises what ``filter()`` raises for it),
        once per value where that depends on the value alone (:class:`PreparedValues`).
        """
        prepared = self._prepared
        kind = type(value)
        if prepared is None or not (
            kind is int or (kind is str and len(value) <= MAX_REMEMBERED_TEXT)
        ):
            return self._prepare(value)
        key = (kind, value)
        try:
            return prepared[key]
        except KeyError:
            params = prepared[key] = self._prepare(value)
            return params

    def _prepare(self, value: Any) -> tuple | None:
        """:meth:`params_for`, asking Django's lookup."""
        lookup = exact_for(self.lookup, value)
        if lookup is None:
            return None
        try:
            fragment_params = self.fragment.params(self.converters()[0], lookup)
        except (EmptyResultSet, FullResultSet):
            return None  # e.g. an integer out of the column's range: Django's query decides
        if fragment_params is None:
            return None
        params = list(self.params)
        params[self.position] = fragment_params[0]
        return tuple(params)


def exact_for(lookup: Lookup, value: Any) -> Lookup | None:
    """The lookup ``filter()`` builds in place of ``lookup`` for ``value``, prepared by Django.

    ``None`` where ``filter()`` would build another condition (``None`` is ``IS NULL``;
    an expression, a list, an instance); raises what Django's preparation raises.
    """
    if not _plain_value(value):
        return None
    condition = type(lookup)(lookup.lhs, value)
    return None if condition.rhs is None else condition


def _plain_value(value: Any) -> bool:
    """A value ``filter()`` takes as it is: no expression, collection, instance or ``None``."""
    return (
        value is not None
        and not hasattr(value, "resolve_expression")
        and not isinstance(value, (list, tuple, set, frozenset, dict, models.Model))
    )
