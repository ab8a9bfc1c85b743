"""Sources of ``full=True`` related fields on the bundle plan: the related rows, dehydrated.

On Tastypie's path a ``full=True`` field dehydrates each related object with its
resource's ``full_dehydrate``: for every owner, every related object gets a fresh
bundle, the related resource's fields and hooks, in detail mode (Tastypie's
``dehydrate_related`` calls ``full_dehydrate(bundle)`` without ``for_list``).  Here a
nested bundle plan of the related resource does the same for the whole page at once: the
related keys of every owner in one query, the related rows in one more
(``_default_manager.filter(pk__in=...)``), then, for each owner when its field comes, one
dehydrated bundle per related key, in the related manager's order.  A to-one over a plain
foreign key reads the related row's columns through the relation in the owners' own
query instead (a join, as ``select_related`` makes: :meth:`NestedOneSource._joinable`).
The related objects themselves are built (with their own page loaders) only if some code
reads a nested ``bundle.obj``.

For a stock ``SetField`` or ``DjonyToOneField`` whose ``full`` is ``True`` (and
``full_list``/``full_detail`` for this page a plain ``True``, no callable) over a plain
relation to a model that is no proxy, whose related resource (the instance
``get_related_resource`` would give) is a ``DjonyResource`` with a bundle plan of its
own, at most :data:`~tastypie_djony.related.MAX_DEPTH` levels deep.  A related key whose
row the second query does not return (a to-one outside the default manager, a row
deleted in between), or a missing to-one that the field does not allow, sends the
request to the general path before any hook ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import router
from django.db.models.constants import LOOKUP_SEP
from django.db.models.fields.reverse_related import ManyToOneRel

from djony.serving import instance_builder, load_together, plain_manager, track_peers
from tastypie_djony.afterwrites import forget
from tastypie_djony.declines import Fallback
from tastypie_djony.nulls import related_may_be_absent
from tastypie_djony.objectlist import DjonyObjectList
from tastypie_djony.onevalue import KeptForValue, NotServedByKept
from tastypie_djony.related import MAX_DEPTH, Relation, ToOneRelation, chain_loaders
from tastypie_djony.sources.base import Page, Plan, Source
from tastypie_djony.stock import plannable


class Prepared:
    """One page of a plan, before any hook ran: each row's values, its objects on demand."""

    __slots__ = ("values", "objects", "keys", "page", "read", "stale")

    def __init__(
        self, values: list, objects: Callable[[], list], keys: list, page: Any, read: Any = None
    ) -> None:
        self.values = values
        self.objects = objects
        #: Each row's primary key (when a source needs it).
        self.keys = keys
        #: The :class:`~tastypie_djony.sources.base.Page` the values were read from.
        self.page = page
        #: Whether anything wrote since the values were read (``djony.serving.writes_since``;
        #: ``None`` outside a watched read).
        self.read = read
        #: Set once a write was seen: the rows left are dehydrated from their objects.
        self.stale = False

    def wrote(self) -> bool:
        """Whether a hook wrote since the values were read (then, once, the objects of the
        rows not yet dehydrated forget what the page read of their relations)."""
        if self.stale:
            return True
        if self.read is None or not self.read.wrote():
            return False
        self.stale = True
        objects = self.objects()  # (built after the write, from the rows read before it)
        forget(objects, self.objects.queryset, self.objects.keep)
        return True


def _always_true(choice: Any) -> bool:
    """Whether ``full_list``/``full_detail`` is Tastypie's wrapper of a plain ``True``.

    ``RelatedField`` turns ``full_list=True`` into ``lambda bundle: full_list``; a
    callable of the user's may answer per bundle, and is left to the field's dehydrate.
    """
    code = getattr(choice, "__code__", None)
    cells = getattr(choice, "__closure__", None) or ()
    return code in _TASTYPIE_CHOICES and len(cells) == 1 and cells[0].cell_contents is True


def _tastypie_choices() -> tuple:
    from tastypie.fields import ToManyField

    sample = ToManyField(to="self", attribute="x")
    return sample.full_list.__code__, sample.full_detail.__code__


#: The code of the two lambdas ``RelatedField.__init__`` wraps a plain value in.
_TASTYPIE_CHOICES = _tastypie_choices()


def related_resource(field: Any, related_class: type) -> Any:
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


class NestedSource(Source):
    """A ``full=True`` field of a page: the related rows, dehydrated per owner.

    Subclasses give :meth:`prepare` (the page's related rows, before any hook runs) and
    :meth:`nested_value` (one owner's field value, dehydrated when its field comes).
    """

    needs_pk = True
    #: The relation class the field's attribute names.
    relation_kind: type = Relation

    def __init__(self, plan: Plan, name: str, field: Any) -> None:
        super().__init__(plan, name, field)
        self.pk = -1
        self.nested: Any = None
        self.loaders: tuple = ()
        self.relation = None
        self.declined = self._plan_nested()

    def _plan_nested(self) -> str | None:
        plan, field = self.plan, self.field
        if plan.nested_plan is None:
            return f"{self.name}: full=True (not served from rows here)"
        full_here = field.full_list if plan.for_list else field.full_detail
        if field.full is not True or not _always_true(full_here):
            return f"{self.name}: full is decided per bundle"
        if plan.depth >= MAX_DEPTH:
            return f"{self.name}: nested deeper than {MAX_DEPTH}"
        model = plan.resource._meta.object_class
        self.relation = self.relation_kind.find(model, field.attribute)
        if self.relation is None:
            return f"{self.name}: not a plain relation"
        if self.relation.target._meta.proxy:
            return f"{self.name}: its related model is a proxy"
        resource = related_resource(field, self.relation.target)
        if not isinstance(resource, plan.base) or not plannable(resource):
            return f"{self.name}: its related resource is not served by plans"
        nested = plan.nested_plan(resource, plan.depth + 1)
        reason = getattr(nested, "reason", None)
        if reason is not None:
            return f"{self.name}: {reason}"
        self.nested = nested
        nested.need("pk")
        inner = resource.page_loaders(plan.depth + 1)
        self.loaders = (chain_loaders([*inner, load_together]),)
        self._kept = KeptForValue()
        target = self.relation.target
        #: The related rows' origin, kept so their SQL is kept per recipe (the number of
        #: keys): only for Django's plain default manager, whose queryset no request changes.
        self._origin = target._default_manager.all() if plain_manager(target) else None
        return None

    def bind(self, position: Callable[[str], int]) -> None:
        self.pk = position("pk")

    def related_page(self, keys: set, joined: list | None = None) -> tuple[Any, dict[Any, int]]:
        """The related rows of ``keys`` (one query; none when ``joined`` holds their objects,
        joined into the owners' query) and each key's position."""
        if not keys:
            return Prepared([], list, [], None), {}
        prepared = self._one_related(keys) if len(keys) == 1 and joined is None else None
        if prepared is None:
            rows = self._rows_of(keys)
            rows.loaders = self.loaders
            if joined is not None:
                rows.prefetched = lambda: joined
            prepared = self.nested.prepare(rows)
        positions = {key: position for position, key in enumerate(prepared.keys)}
        if not keys <= positions.keys():
            raise Fallback  # a related row the default manager leaves out, or gone
        return prepared, positions

    def _rows_of(self, keys: set) -> DjonyObjectList:
        """The related rows of ``keys``: ``_default_manager.filter(pk__in=keys)``."""
        origin = self._origin
        if origin is None:
            return DjonyObjectList(self.relation.target._default_manager.filter(pk__in=keys))
        return DjonyObjectList.made_from(origin).filter(pk__in=keys)

    def _one_related(self, keys: set) -> Any:
        """The one related row's page by SQL compiled once (``pk=key`` gives the rows
        ``pk__in=[key]`` gives), or ``None``."""
        (key,) = keys
        return self.kept_prepare("pk", key)

    def kept_prepare(self, name: str, value: Any) -> Any:
        """The nested plan's page of ``_default_manager.filter(<name>=value)``, or ``None``.

        Compiled once per lookup, database and columns (:mod:`tastypie_djony.onevalue`),
        only when the related model's default manager is Django's plain one
        (:func:`~djony.objects.compiled.plain_manager`: its SQL cannot change between
        requests); ``None`` (before any SQL ran) when the kept SQL does not serve ``value``.
        """
        target = self.relation.target
        if not plain_manager(target):
            return None
        object_list = DjonyObjectList(target._default_manager.all(), self.loaders)
        kept_sql = self._kept

        def kept(selected: list[str]) -> Any:
            found = kept_sql.query_for(
                (name, object_list.db, tuple(selected)),
                target,
                lambda: DjonyObjectList(target._default_manager.all()).queryset,
                name,
                value,
                lambda queryset: queryset.values_list(*selected),
                object_list.db,
            )
            if found is None:
                raise NotServedByKept  # before any SQL ran: the filtered list is read instead
            return found

        try:
            return self.nested.prepare(object_list, kept)
        except NotServedByKept:
            return None


class NestedCaches:
    """A page loader: the owners' relation caches from the nested rows the page read.

    When code builds a bundle plan's objects (a hook reads ``bundle.obj``), each
    ``full=True`` field's related objects are built from the related rows its nested plan
    read, and put in the owners' relation caches as ``prefetch_related`` puts them: the
    page loaders that follow find them there and read nothing again.  ``page`` is set
    once the page's values are read.
    """

    def __init__(self, sources: list[NestedSource]) -> None:
        self.sources = sources
        self.page: Page | None = None

    def __call__(self, owners: list[Any]) -> None:
        if self.page is None or not owners:
            return
        for source in self.sources:
            source.fill(owners, self.page)


def _keep_owner_side(prepared: Prepared, relation: Relation) -> None:
    """Along a reverse foreign key, a nested page's objects keep their owner after a write
    (``book.author`` of an author's books is the author Django's related manager read them
    for, before the write), as they are (``tastypie_djony.afterwrites``)."""
    field = relation.field
    keep = getattr(prepared.objects, "keep", None)
    if keep is not None and isinstance(field, ManyToOneRel):  # (not a many-to-many's)
        keep[field.field.name] = None


class NestedManySource(NestedSource):
    """A ``full=True`` to-many: one dehydrated bundle per related key, in manager order."""

    def prepare(self, page: Page) -> None:
        owner_keys = page.keys
        plain_path = self.relation.path is not None and not self.relation.generic
        if len(owner_keys) == 1 and plain_path:
            # One owner (a detail): its related rows in one query, the related manager's
            # (``filter(<path>=owner)`` on the default manager, in its order), which gives
            # the keys and the rows at once.  A third-party manager of its own (no path:
            # taggit, sortedm2m) is read through it below.
            (owner,) = owner_keys
            prepared = self.kept_prepare(self.relation.path, owner)
            if prepared is not None:
                _keep_owner_side(prepared, self.relation)
                positions = {key: position for position, key in enumerate(prepared.keys)}
                page.data[self] = ({owner: list(prepared.keys)}, prepared, positions)
                return
        by_owner = self.relation.related_keys(owner_keys)
        prepared, positions = self.related_page({k for keys in by_owner.values() for k in keys})
        _keep_owner_side(prepared, self.relation)
        page.data[self] = (by_owner, prepared, positions)

    def fill(self, owners: list[Any], page: Page) -> None:
        """The owners' related managers' caches from the related rows (:class:`NestedCaches`)."""
        by_owner, prepared, positions = page.data[self]
        related = prepared.objects()
        for owner in owners:
            keys = by_owner.get(owner.pk)
            if keys is not None:
                self.relation.fill_prefetched(owner, [related[positions[k]] for k in keys])

    def nested_value(self, page: Page, row: tuple, request: Any) -> list:
        by_owner, prepared, positions = page.data[self]
        dehydrate = self.nested.dehydrate_row
        return [
            dehydrate(prepared, positions[key], request, fresh=True)
            for key in by_owner[row[self.pk]]
        ]


class NestedOneSource(NestedSource):
    """A ``full=True`` to-one: the related object's dehydrated bundle, or ``None``."""

    relation_kind = ToOneRelation

    def _plan_nested(self) -> str | None:
        reason = super()._plan_nested()
        self.link_column = None
        self.link = -1
        #: The related model's columns selected through the relation in the owners' query
        #: (a join, as ``select_related`` makes), or none: the related rows' own query.
        self.joined: list[str] = []
        self.joined_at: list[int] = []
        if reason is None and self.relation.plain_forward:
            # A ForeignKey to the primary key, with its constraint: the owner's row holds
            # the related key (what ``related_keys`` would read), no query needed.
            self.link_column = self.relation.model_field.attname
            self.joined = self._joinable()
        return reason

    def _joinable(self) -> list[str]:
        """The related model's concrete columns as the owners' query selects them through
        the relation, when the nested plan reads only those columns, the related model's
        default manager is Django's plain one (its rows are what the relation holds), both
        models are read from one database, and ``Meta.queryset`` does not join the
        relation itself (``select_related``: its objects are taken from the owners).
        """
        target, owner = self.relation.target, self.plan.resource._meta.object_class
        queryset = getattr(self.plan.resource._meta, "queryset", None)
        if queryset is None or queryset.query.select_related or queryset.query.combinator:
            return []
        if not plain_manager(target) or router.db_for_read(target) != router.db_for_read(owner):
            return []
        attnames = [field.attname for field in target._meta.concrete_fields]
        index = []
        for column in self.nested.columns:
            try:
                field = target._meta.pk if column == "pk" else target._meta.get_field(column)
            except FieldDoesNotExist:
                return []
            if not getattr(field, "concrete", False):
                return []  # a reverse relation's name, a private field: not a column
            index.append(attnames.index(field.attname))
        #: Where each of the nested plan's columns is among the joined ones.
        self.nested_index = index
        self.pk_index = attnames.index(target._meta.pk.attname)
        self.init_list = attnames
        prefix = self.relation.model_field.name
        return [f"{prefix}{LOOKUP_SEP}{attname}" for attname in attnames]

    def columns(self) -> list[str]:
        if self.link_column is None:
            return ["pk"]
        return ["pk", self.link_column, *self.joined]

    def bind(self, position: Callable[[str], int]) -> None:
        super().bind(position)
        if self.link_column is not None:
            self.link = position(self.link_column)
            self.joined_at = [position(column) for column in self.joined]

    def prepare(self, page: Page) -> None:
        owner_keys = page.keys
        if self.link_column is not None:
            link = self.link
            by_owner = {key: row[link] for key, row in zip(owner_keys, page.rows, strict=True)}
        else:
            by_owner = self.relation.related_keys(owner_keys)
        if any(key not in by_owner for key in owner_keys):
            raise Fallback  # an owner the base manager does not see: Tastypie's own walk
        if not related_may_be_absent(self.field) and any(by_owner[k] is None for k in owner_keys):
            raise Fallback  # the general path raises Tastypie's error for that object
        keys = {key for key in by_owner.values() if key is not None}
        if self.joined_at:
            prepared, positions = self._from_joined(page)
        else:
            prepared, positions = self.related_page(keys, self._joined(page, keys))
        page.data[self] = (by_owner, prepared, positions)

    def _from_joined(self, page: Page) -> tuple[Prepared, dict[Any, int]]:
        """The related rows from the owners' rows (their joined columns), their objects
        built from those columns only if code reads them (no query)."""
        found: dict[Any, tuple] = {}
        for row in page.rows:
            key = row[self.link]
            if key is not None and key not in found:
                found[key] = joined = tuple(row[at] for at in self.joined_at)
                if joined[self.pk_index] != key:
                    raise Fallback  # no related row (a dangling key): Tastypie's own walk
        index = self.nested_index
        rows = [tuple(joined[at] for at in index) for joined in found.values()]
        nested = self.nested
        caches = NestedCaches([step.source for step in nested.steps if step.nested])
        loaders = (caches, *nested.object_loaders(self.loaders))
        target = self.relation.target
        built: list[Any] = []

        def objects() -> list[Any]:
            if not built and found:
                queryset = target._default_manager.all()
                build, db = instance_builder(queryset), queryset.db
                built.extend(build(db, self.init_list, joined) for joined in found.values())
                track_peers(queryset, built)
                for loader in loaders:
                    loader(built)
            return built

        objects.built = None
        prepared = nested.values(rows, objects, caches)
        return prepared, {key: position for position, key in enumerate(prepared.keys)}

    def _joined(self, page: Page, keys: set) -> list | None:
        """The related objects of ``keys`` that the owners' query joined in
        (``select_related``), as Tastypie's walk would find them, else ``None``."""
        owners = page.built
        if owners is None or self.link_column is None:
            return None
        field, target = self.relation.model_field, self.relation.target
        found: dict[Any, Any] = {}
        for owner in owners:
            if not field.is_cached(owner):
                return None
            related = field.get_cached_value(owner)
            if related is not None:
                if type(related) is not target:
                    return None
                found.setdefault(related.pk, related)
        return list(found.values()) if found.keys() == keys else None

    def fill(self, owners: list[Any], page: Page) -> None:
        """The owners' related-object caches from the related rows (:class:`NestedCaches`)."""
        by_owner, prepared, positions = page.data[self]
        related = prepared.objects()
        for owner in owners:
            if owner.pk in by_owner:
                key = by_owner[owner.pk]
                self.relation.fill_cached(owner, None if key is None else related[positions[key]])

    def nested_value(self, page: Page, row: tuple, request: Any) -> Any:
        by_owner, prepared, positions = page.data[self]
        key = by_owner[row[self.pk]]
        if key is None:
            return None
        return self.nested.dehydrate_row(prepared, positions[key], request, fresh=True)
