"""``full=True`` related resources on the bundle path, from rows.

On Tastypie's path a ``full=True`` field dehydrates each related object with its
resource's ``full_dehydrate``: for every owner, every related object gets a fresh
bundle, the related resource's fields and hooks, in detail mode (Tastypie's
``dehydrate_related`` calls ``full_dehydrate(bundle)`` without ``for_list``).  Here a
nested :class:`~tastypie_djony.serve.plan.BundlePlan` of the related resource does the
same for the whole page at once: the related keys of every owner in one query (the one
the page loader runs), the related rows in one more (the objects' query of the page
loader, ``_default_manager.filter(pk__in=...)``), then, for each owner when its field
comes, one dehydrated bundle per related key, in the related manager's order.  The
related objects themselves are built (with their own loaders) only if some code reads
a nested ``bundle.obj``.

Used for a stock ``SetField`` or ``DjonyToOneField`` whose ``full`` is ``True`` (and
``full_list``/``full_detail`` for this page a plain ``True``, no callable) over a plain
relation to a model that is no proxy, whose related resource (the instance
``get_related_resource`` would give) is a ``DjonyResource`` with a bundle plan of its
own, at most :data:`~tastypie_djony.related.MAX_DEPTH` levels deep; any other field keeps its own
``dehydrate``.  A related key whose row the second query does not return (a to-one
outside the default manager, a row deleted in between), or a missing to-one that the
field does not allow, sends the request to the general path before any hook ran.
"""

from __future__ import annotations

from typing import Any

from djony.serving import KeptQueries, NotKeptForValue, OneValueQuery, plain_manager
from tastypie_djony.declines import Fallback, NotPlannable
from tastypie_djony.fields import SetField, stock_related_class
from tastypie_djony.nulls import related_may_be_absent
from tastypie_djony.related import MAX_DEPTH, Relation, ToOneRelation, chain_loaders
from tastypie_djony.serve.bundles import Prepared
from tastypie_djony.stock import plannable


def nested_field(plan: Any, field: Any) -> Nested | None:
    """The nested plan of ``field`` in ``plan``, or ``None`` (it keeps its own dehydrate)."""
    kind = stock_related_class(field)
    if kind is None or field.full is not True:
        return None
    full_here = field.full_list if plan.for_list else field.full_detail
    if not _always_true(full_here) or plan.depth >= MAX_DEPTH:
        return None
    model = plan.resource._meta.object_class
    relation = (Relation if kind is SetField else ToOneRelation).find(model, field.attribute)
    if relation is None or relation.target._meta.proxy:
        return None
    related_resource = _related_resource(field, relation.target)
    if not isinstance(related_resource, plan.base) or not plannable(related_resource):
        return None
    try:
        related_plan = type(plan)(related_resource, plan.base, for_list=False, depth=plan.depth + 1)
    except NotPlannable:
        return None
    related_plan._column("pk")
    loaders = None
    if plan.depth < MAX_DEPTH:  # as DjonyResource._nested_loaders, for this plan
        inner = related_resource.page_loaders(plan.depth + 1)
        loaders = chain_loaders(list(inner)) if inner else None
    if kind is SetField:
        return NestedMany(field, relation, related_plan, loaders)
    return NestedOne(field, relation, related_plan, loaders)


def _always_true(choice: Any) -> bool:
    """Whether ``full_list``/``full_detail`` is Tastypie's wrapper of a plain ``True``.

    ``RelatedField`` turns ``full_list=True`` into ``lambda bundle: full_list``; a
    callable of the user's may answer per bundle, and is left to the field's dehydrate.
    """
    code = getattr(choice, "__code__", None)
    cells = getattr(choice, "__closure__", None) or ()
    return code in _TASTYPIE_CHOICES and len(cells) == 1 and cells[0].cell_contents is True


_SAMPLE = SetField(to="self", attribute="x")
#: The code of the two lambdas ``RelatedField.__init__`` wraps a plain value in.
_TASTYPIE_CHOICES = (_SAMPLE.full_list.__code__, _SAMPLE.full_detail.__code__)
del _SAMPLE


def _related_resource(field: Any, related_class: type) -> Any:
    """What ``field.get_related_resource(obj)`` returns for an object of ``related_class``
    (the related model: the related objects are its Django instances).

    Tastypie keeps one related resource per field and class of related object
    (``field._rel_resources``), created on first use with the owner's ``api_name``.
    """
    cache = field._rel_resources
    if related_class not in cache:
        resource = field.to_class()
        owner = field._resource
        if resource._meta.api_name is None and owner and owner._meta.api_name is not None:
            resource._meta.api_name = owner._meta.api_name
        cache[related_class] = resource
    return cache[related_class]


class Nested:
    """A ``full=True`` field of a page: the related rows, dehydrated per owner.

    Subclasses give ``prepare(owner_keys, owner_rows)`` (the page's related rows, before
    any hook runs) and ``value(page, owner_key, request)`` (one owner's field value).
    """

    #: The owner's column holding the related key, when the owner's rows have it.
    link_column: str | None = None
    #: That column's position in the owner plan's rows (set by the owner plan).
    link: int | None = None

    def __init__(self, field: Any, relation: Any, plan: Any, loaders: Any) -> None:
        self.field = field
        self.relation = relation
        self.plan = plan
        self.loaders = (loaders,) if loaders is not None else ()

    def related_page(self, keys: set) -> tuple[Any, dict[Any, int]]:
        """The related rows of ``keys`` (the page loader's query) and each key's position."""
        from tastypie_djony.objectlist import DjonyObjectList

        if not keys:
            return Prepared([], list, [], {}), {}
        target = self.relation.target
        prepared = self._one_related(keys) if len(keys) == 1 else None
        if prepared is None:
            rows = DjonyObjectList(target._default_manager.filter(pk__in=keys), self.loaders)
            prepared = self.plan.prepare(rows)
        positions = {key: position for position, key in enumerate(prepared.keys)}
        if not keys <= positions.keys():
            raise Fallback  # a related row the default manager leaves out, or gone
        return prepared, positions

    def _one_related(self, keys: set) -> Any:
        """The one related row's page by SQL compiled once, or ``None``.

        ``pk=key`` gives the rows ``pk__in=[key]`` gives (see :meth:`kept_prepare`).
        """
        (key,) = keys
        return self.kept_prepare("pk", key)

    def kept_prepare(self, name: str, value: Any) -> Any:
        """The nested plan's page of ``_default_manager.filter(<name>=value)``, or ``None``.

        Its SQL is compiled once per lookup, database and columns, and only when the
        related model's default manager is Django's plain one
        (:func:`~djony.objects.compiled.plain_manager`: its SQL cannot change between requests);
        the value stays a parameter, prepared by Django's lookup.  ``None`` (before any
        SQL ran) when the kept SQL does not serve ``value``.
        """
        from tastypie_djony.objectlist import DjonyObjectList

        target = self.relation.target
        if not plain_manager(target):
            return None
        object_list = DjonyObjectList(target._default_manager.all(), self.loaders)
        store = self.__dict__.setdefault("_kept", KeptQueries())

        def kept(selected: list[str]) -> tuple[OneValueQuery, tuple]:
            entry_key = (name, object_list.db, tuple(selected))
            if entry_key not in store:
                try:
                    store[entry_key] = OneValueQuery.compile(
                        lambda: DjonyObjectList(target._default_manager.all()).queryset,
                        name,
                        value,
                        lambda queryset: queryset.values_list(*selected),
                    )
                except NotKeptForValue:
                    raise _NotKept from None
            compiled = store[entry_key]
            params = compiled.params_for(value) if compiled is not None else None
            if params is None or compiled.alias != object_list.db:
                raise _NotKept  # before any SQL ran: the filtered list is read instead
            return compiled, params

        try:
            return self.plan.prepare(object_list, kept)
        except _NotKept:
            return None


class _NotKept(Exception):
    """The kept one-row SQL does not serve this key (raised before any SQL ran)."""


class NestedMany(Nested):
    """A ``full=True`` to-many: one dehydrated bundle per related key, in manager order."""

    def prepare(self, owner_keys: list, owner_rows: list) -> tuple[dict, Any, dict]:
        plain_path = self.relation.path is not None and not self.relation.generic
        if len(owner_keys) == 1 and plain_path:
            # One owner (a detail): its related rows in one query, the related manager's
            # (``filter(<path>=owner)`` on the default manager, in its order), which gives
            # the keys and the rows at once.  A third-party manager of its own (no path:
            # taggit, sortedm2m) is read through it below.
            (owner,) = owner_keys
            prepared = self.kept_prepare(self.relation.path, owner)
            if prepared is not None:
                positions = {key: position for position, key in enumerate(prepared.keys)}
                return {owner: list(prepared.keys)}, prepared, positions
        by_owner = self.relation.related_keys(owner_keys)
        prepared, positions = self.related_page({k for keys in by_owner.values() for k in keys})
        return by_owner, prepared, positions

    def value(self, page: tuple, owner_key: Any, request: Any) -> list:
        by_owner, prepared, positions = page
        dehydrate = self.plan.dehydrate_row
        return [
            dehydrate(prepared, positions[key], request, fresh=True) for key in by_owner[owner_key]
        ]


class NestedOne(Nested):
    """A ``full=True`` to-one: the related object's dehydrated bundle, or ``None``."""

    def __init__(self, field: Any, relation: Any, plan: Any, loaders: Any) -> None:
        super().__init__(field, relation, plan, loaders)
        if relation.plain_forward:
            # A ForeignKey to the primary key, with its constraint: the owner's row holds
            # the related key (what ``related_keys`` would read), no query needed.
            self.link_column = relation.model._meta.get_field(relation.attribute).attname

    def prepare(self, owner_keys: list, owner_rows: list) -> tuple[dict, Any, dict]:
        if self.link is not None:
            link = self.link
            by_owner = {key: row[link] for key, row in zip(owner_keys, owner_rows, strict=True)}
        else:
            by_owner = self.relation.related_keys(owner_keys)
        if any(key not in by_owner for key in owner_keys):
            raise Fallback  # an owner the base manager does not see: Tastypie's own walk
        if not related_may_be_absent(self.field) and any(by_owner[k] is None for k in owner_keys):
            raise Fallback  # the general path raises Tastypie's error for that object
        prepared, positions = self.related_page(
            {key for key in by_owner.values() if key is not None}
        )
        return by_owner, prepared, positions

    def value(self, page: tuple, owner_key: Any, request: Any) -> Any:
        by_owner, prepared, positions = page
        key = by_owner[owner_key]
        if key is None:
            return None
        return self.plan.dehydrate_row(prepared, positions[key], request, fresh=True)
