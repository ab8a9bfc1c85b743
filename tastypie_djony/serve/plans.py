"""Two runners over a resource's field sources: the row-built plan and the bundle plan.

A plan is built once per resource and page kind (list or detail) from what is known
before any row is read: the fields the page shows, in ``resource.fields`` order, as
Tastypie's ``full_dehydrate`` walks them (:func:`shown_fields`: ``use_in``), each with
its source (:func:`tastypie_djony.sources.source_for`: its columns, its value from a row
and the page, its null/default rule).  An optimisation, never a second opinion: a plan
serves a request only when it gives the general path's bytes, and otherwise is not
built at all, saying why (:class:`~tastypie_djony.declines.Declined`).

* :class:`RowPlan` (the row-built plan, for lists and details): every field from the
  rows and no hook, so a page is rows -> dicts of simple values -> JSON, never an
  object;
* :class:`BundlePlan`: Tastypie's ``full_dehydrate`` order on bundles, for resources
  with hooks (``dehydrate()``, ``dehydrate_<field>()``, ``alter_*_data_to_serialize``) or
  fields only an object gives: ``bundle.data[name]`` is the field's value as its
  ``convert`` leaves it (from the rows, a nested plan, or its own ``dehydrate`` on the
  object, built only when read: :class:`~tastypie_djony.serve.bundles.PageBundle`), then
  ``dehydrate_<name>(bundle)`` replaces it (a hook sees the fields before it, and its
  own), then the resource's ``dehydrate(bundle)``.

Both decline when the resource overrides a page-shaping method
(:data:`tastypie_djony.stock.HOOKS`; the bundle plan calls ``dehydrate`` and
``alter_*_data_to_serialize`` where Tastypie does; a list page, and a related
resource's nested rows, never reach a detail's ``obj_get``:
:data:`~tastypie_djony.stock.DETAIL_HOOKS`); the row-built plan also declines another
serializer than Tastypie's ``Serializer``.  Which format and which ``Meta`` options a
request may be served with is :class:`~tastypie_djony.resources.DjonyResource`'s to
decide.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from tastypie.bundle import Bundle
from tastypie.resources import Resource

from djony.serving import load_together, loads_together, writes_since
from tastypie_djony.declines import Declined
from tastypie_djony.objectlist import own_prefetches
from tastypie_djony.serve.bundles import PageBundle
from tastypie_djony.sources import ObjectSource, Page, Plan, Prepared, ToManyKeySource, source_for
from tastypie_djony.sources.nested import NestedCaches, NestedSource
from tastypie_djony.stock import (
    CALLED_HOOKS,
    DETAIL_HOOKS,
    LIST_HOOKS,
    overridden_hooks,
    stock_serializer,
)
from tastypie_djony.uris import reverse_environment


def shown_fields(resource: Any, for_list: bool) -> Iterator[tuple[str, Any]]:
    """The fields a page shows, in the resource's field order, as ``full_dehydrate`` walks them.

    ``use_in`` ``"all"`` or this page's kind; a callable ``use_in`` is yielded too (it is
    asked per bundle).
    """
    kind = "list" if for_list else "detail"
    for name, field in resource.fields.items():
        if callable(field.use_in) or field.use_in in ("all", kind):
            yield name, field


class FieldPlan:
    """A resource's shown fields with their sources, and the columns they read together."""

    #: Of :data:`~tastypie_djony.stock.HOOKS`, the overrides this plan calls as Tastypie does.
    ALLOWED_HOOKS: frozenset[str] = frozenset()
    #: Values as ``to_simple`` makes them (else as ``convert`` leaves them).
    SIMPLE = True

    def __init__(self, resource: Any, base: type, for_list: bool = True, depth: int = 0) -> None:
        self.resource = resource
        self.base = base
        self.for_list = for_list
        self.depth = depth
        self.plan = Plan(resource, base, for_list, self.SIMPLE, depth, self.nested_plans())
        self.columns: list[str] = []
        self.fields = [
            (name, field, source_for(self.plan, name, field))
            for name, field in shown_fields(resource, for_list)
        ]
        self.reason = self.refusal()
        served = [source for _, _, source in self.fields if not isinstance(source, ObjectSource)]
        for source in served:
            for column in source.columns():
                self.need(column)
            if source.needs_pk:
                self.need("pk")
        for source in served:
            source.bind(self.columns.index)
        self.prepared = served
        self.uris = list(dict.fromkeys(u for source in served for u in source.uris()))

    @classmethod
    def build(cls, resource: Any, base: type, for_list: bool = True, depth: int = 0) -> Any:
        """The plan of ``resource``'s pages of this kind, or why there is none."""
        refused = overridden_hooks(type(resource), base) - cls.ALLOWED_HOOKS
        if for_list or depth:  # not a detail request: its hooks are never called
            refused -= DETAIL_HOOKS
        if not for_list:  # a detail, or a related resource's nested rows
            refused -= LIST_HOOKS
        if refused:
            return Declined(f"{type(resource).__name__}.{min(refused)} is overridden")
        if cls.SIMPLE and not stock_serializer(resource):
            # Its values are Tastypie's Serializer.to_simple's, which another may not share.
            return Declined("a serializer of its own class")
        plan = cls(resource, base, for_list, depth)
        return Declined(plan.reason) if plan.reason else plan

    def nested_plans(self) -> Any:
        """How a ``full=True`` field gets the nested plan of its related resource (``None``:
        this plan serves no nested field from rows)."""
        return None

    def refusal(self) -> str | None:
        """Why this plan cannot serve the page kind, once its sources are known."""
        return None

    def need(self, column: str) -> int:
        """The position of ``column`` in the rows, selecting it if it is not yet."""
        if column not in self.columns:
            self.columns.append(column)
        return self.columns.index(column)

    def selected(self, object_list: Any, also: tuple[str, ...] = ()) -> list[str]:
        """The columns to read for ``object_list``'s page, then ``also`` (columns a
        caller reads of the rows itself, after the plan's own)."""
        columns = list(self.columns)
        if object_list.queryset.query.distinct and "pk" not in columns:
            # DISTINCT over a few columns would merge distinct objects with equal values.
            columns.append("pk")
        columns.extend(name for name in also if name not in columns)
        return columns

    def page(self, rows: list[tuple], built: list[Any] | None = None) -> Page:
        """The page of ``rows`` (``built``: their objects, if built already): this request's
        URI builders, what each source reads once."""
        keys = []
        if "pk" in self.columns:
            pk = self.columns.index("pk")
            keys = [row[pk] for row in rows]
        environment = reverse_environment()  # (read once: nothing runs between the builders)
        builders = {uris: uris.builder(environment) for uris in self.uris}
        page = Page(rows, keys, builders, built=built)
        for source in self.prepared:
            source.prepare(page)
        return page


class RowPlan(FieldPlan):
    """A page's simple values straight from its rows: every field from a column, no hook."""

    def refusal(self) -> str | None:
        for name, field, source in self.fields:
            if callable(field.use_in):
                return f"{name}: use_in is decided per bundle"
            if name != "resource_uri" and hasattr(self.resource, f"dehydrate_{name}"):
                return f"dehydrate_{name}"
            if isinstance(source, ObjectSource):
                return source.declined
        queryset = getattr(self.resource._meta, "queryset", None)
        if queryset is not None and own_prefetches(queryset):
            return "Meta.queryset prefetches through a queryset of its own"
        return None

    def rows(self, object_list: Any, kept: Any = None, also: tuple[str, ...] = ()) -> list[tuple]:
        """The page's rows (``kept``: its query compiled before, see ``serve.detail``;
        ``also``: as for :meth:`selected`)."""
        return object_list.values_rows(self.selected(object_list, also), kept)

    def render(self, rows: list[tuple]) -> list[dict]:
        """The ``objects`` of a page of ``rows``, as Tastypie would serialise them."""
        page = self.page(rows)
        fields = [(name, source.value) for name, _, source in self.fields]
        return [{name: value(row, page) for name, value in fields} for row in rows]

    def objects(self, object_list: Any, kept: Any = None) -> list[dict]:
        """:meth:`render` of :meth:`rows`."""
        return self.render(self.rows(object_list, kept))


class Step:
    """One field of ``full_dehydrate``: its source, and its hook."""

    __slots__ = (
        "name",
        "field",
        "source",
        "object",
        "nested",
        "hook",
        "own_hook",
        "use_in",
        "related",
    )

    def __init__(self, name: str, field: Any, source: Any, hook: Any, own_hook: Any) -> None:
        self.name = name
        self.field = field
        self.source = source
        #: Left to ``field.dehydrate(bundle, for_list)`` on the object.
        self.object = isinstance(source, ObjectSource)
        self.nested = isinstance(source, NestedSource)
        #: What is called after the value (``None``: the value is the hook's already).
        self.hook = hook
        #: The resource's ``dehydrate_<name>``, called when the value is the object's.
        self.own_hook = own_hook
        self.use_in = field.use_in if callable(field.use_in) else None
        self.related = field.dehydrated_type == "related"


class BundlePlan(FieldPlan):
    """Tastypie's ``full_dehydrate`` of a page, its values from the page's rows.

    ``depth`` counts the ``full=True`` related resources above this one (a nested
    plan is built for each such field whose related resource has one, up to
    :data:`~tastypie_djony.related.MAX_DEPTH`).
    """

    ALLOWED_HOOKS = CALLED_HOOKS
    SIMPLE = False

    def nested_plans(self) -> Any:
        base = self.base
        return lambda resource, depth: BundlePlan.build(resource, base, for_list=False, depth=depth)

    def refusal(self) -> str | None:
        self.steps = []
        #: (field name, relation) -> its cache name: a to-many field whose values the
        #: page's keys give; its objects load when code first uses them, not with the page.
        self.on_first_use: dict[tuple[str, str], str] = {}
        model = self.resource._meta.object_class
        for name, field, source in self.fields:
            own_hook = hook = getattr(self.resource, f"dehydrate_{name}", None)
            if name == "resource_uri" and not isinstance(source, ObjectSource):
                hook = None  # the row's URI is what the stock hook returns
            self.steps.append(Step(name, field, source, hook, own_hook))
            if isinstance(source, ToManyKeySource) and source.relation is not None:
                cache_name = loads_together(model, source.relation.attribute)
                if cache_name is not None:
                    self.on_first_use[(name, source.relation.attribute)] = cache_name
        #: Whether dehydrating a row runs code of the project's (a hook, an attribute
        #: callable, a nested resource's): only then may a row's dehydration write.
        self.may_write = type(self.resource).dehydrate is not Resource.dehydrate or any(
            step.hook is not None or step.object or step.nested for step in self.steps
        )
        return None

    def object_loaders(self, loaders: tuple) -> tuple:
        """``loaders`` for the page's objects, built when code reads them: a to-many
        field's own prefetch (its values come from the page's keys) becomes a load of the
        whole page on the relation's first use (:func:`djony.serving.load_together`), so a
        hook reading only the object's columns reads no related rows."""
        if not self.on_first_use or load_together not in loaders:
            return loaders
        names = frozenset(self.on_first_use.values())
        together = functools.partial(load_together, any_order=names)
        kept = []
        for loader in loaders:
            key = (getattr(loader, "djony_field", None), getattr(loader, "lookup", None))
            if key in self.on_first_use:
                continue
            kept.append(together if loader is load_together else loader)
        return tuple(kept)

    def read(
        self, object_list: Any, kept: Any = None, also: tuple[str, ...] = ()
    ) -> tuple[list[tuple], Any, Any]:
        """The page's rows, its objects later, and what fills their relation caches.

        The objects, built only if some code reads ``bundle.obj``, get the relations of
        ``full=True`` fields from the nested rows (``sources.nested.NestedCaches``), then
        ``object_list``'s loaders: a hook may read any relation the resource's fields
        name.  ``kept`` and ``also`` as for :meth:`RowPlan.rows`.
        """
        caches = NestedCaches([step.source for step in self.steps if step.nested])
        listed = object_list.with_loaders((caches, *self.object_loaders(object_list.loaders)))
        rows, objects = listed.rows_and_objects(self.selected(listed, also), kept)
        return rows, objects, caches

    def values(self, rows: list[tuple], objects: Any, caches: Any = None) -> Prepared:
        """Every value the rows give, for the whole page, before any hook runs.

        Raises :class:`~tastypie_djony.declines.Fallback` when a row (here or in a nested
        field) needs the general path.
        """
        page = self.page(rows, getattr(objects, "built", None))
        if caches is not None:
            caches.page = page
        steps = [None if step.object or step.nested else step.source.value for step in self.steps]
        values = [[None if get is None else get(row, page) for get in steps] for row in rows]
        # (no objects' queryset: a page of no rows, which no hook reads after a write)
        read = writes_since() if getattr(objects, "queryset", None) is not None else None
        return Prepared(values, objects, page.keys, page, read)

    def prepare(self, object_list: Any, kept: Any = None) -> Prepared:
        """:meth:`values` of :meth:`read`."""
        return self.values(*self.read(object_list, kept))

    def bundles(self, object_list: Any, request: Any) -> list[Bundle]:
        """The page's dehydrated bundles, as ``full_dehydrate`` of each object gives them.

        Raises :class:`~tastypie_djony.declines.Fallback` before any hook ran when a
        row needs the general path.
        """
        prepared = self.prepare(object_list)
        return [
            self.dehydrate_row(prepared, position, request)
            for position in range(len(prepared.values))
        ]

    def dehydrate_row(
        self, prepared: Prepared, position: int, request: Any, fresh: bool = False
    ) -> Bundle:
        """``full_dehydrate`` of row ``position``'s bundle; ``fresh``: copy its lists first.

        A nested row may be dehydrated for several owners: each gets lists of its own.
        Once a hook wrote (:meth:`Prepared.wrote`), the fields left are dehydrated from the
        object, as Tastypie dehydrates them: what the page read before may have changed.
        """
        bundle = PageBundle(prepared.objects, position, request)
        data = bundle.data
        meta = self.resource._meta
        row = prepared.page.rows[position] if prepared.page is not None else None
        # (What runs before the first row, an authorization, may write too.)
        watch = prepared.read is not None and (self.may_write or position == 0)
        from_object = watch and prepared.wrote()
        for step, value in zip(self.steps, prepared.values[position], strict=True):
            if step.use_in is not None and not step.use_in(bundle):
                continue
            field = step.field
            if step.related:  # as full_dehydrate does ("a touch leaky")
                field.api_name = meta.api_name
                field.resource_name = meta.resource_name
            if from_object:
                data[step.name] = field.dehydrate(bundle, for_list=self.for_list)
                if step.own_hook is not None:
                    data[step.name] = step.own_hook(bundle)
                continue
            if step.object:  # (the project's code may write: an attribute callable)
                value = field.dehydrate(bundle, for_list=self.for_list)
                from_object = watch and prepared.wrote()
            elif step.nested:  # (a nested resource's hooks may write)
                value = step.source.nested_value(prepared.page, row, request)
                from_object = watch and prepared.wrote()
            elif fresh and type(value) is list:
                value = list(value)
            data[step.name] = value
            if step.hook is not None:
                data[step.name] = step.hook(bundle)
                from_object = watch and prepared.wrote()
        return self.resource.dehydrate(bundle)
