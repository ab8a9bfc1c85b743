"""Pages of resources with hooks: the fast path's values, in Tastypie's bundles.

Real resources have hooks (a ``dehydrate()``, a ``dehydrate_<field>()``) or fields the
row-built plan cannot compute (``full=True``, a ``FileField``, a callable ``attribute``).
:class:`BundlePlan` serves their JSON pages with Tastypie's own order of work, only
cheaper where nothing can tell the difference.  For each row of the page, as
Tastypie's ``full_dehydrate`` does for each object:

* for each field in ``resource.fields`` order that this page shows (``use_in``; a
  callable ``use_in`` is asked with the bundle): ``bundle.data[name]`` is the field's
  value, then ``dehydrate_<name>(bundle)`` replaces it when the resource has that hook
  (so a hook sees the fields before it, and its own);

  - the value of a field the row-built plan covers (:class:`~tastypie_djony.fastpath.
    ListPlan`) comes from the page's rows, as the field's ``convert`` leaves it
    (``datetime``, ``Decimal`` ...: what ``field.dehydrate`` returns, not yet simple);
  - a ``full=True`` related field whose related resource has a plan of its own gets
    that resource's dehydrated bundles from rows too (:mod:`tastypie_djony.nested`);
  - any other field runs its own ``dehydrate(bundle, for_list)``;

* then the resource's ``dehydrate(bundle)``, whose result is the page's item.

``bundle.obj`` (see :class:`PageBundle`) is the row's Pony object, exactly the one the
general path hands out: the first time any code reads a ``bundle.obj`` of the page,
every object of the page is built from the rows already read (no second query), as
iterating the object list builds them, with the page loaders of the fields left to
their own ``dehydrate`` (:meth:`BundlePlan.needed_loaders`).  A page whose hooks never
read ``bundle.obj`` builds none.  Then ``alter_list_data_to_serialize`` (or
``alter_detail_data_to_serialize``) and the JSON: :func:`simple` is Tastypie's
``to_simple`` for plain values and hands every other value to the serializer's own.
A detail runs the authorization hooks as ``obj_get`` does, between the lookup and the
first dehydrate hook (``DjonyResource.get_detail``).

Every value a field gets from the rows is computed for the whole page before any hook
runs, so a row the plan cannot reproduce (:class:`~tastypie_djony.fastpath.Fallback`)
sends the request to the general path before user code ran.  Declined
(:class:`~tastypie_djony.fastpath.NotPlannable`: the general path) when the resource
overrides ``full_dehydrate``, ``dehydrate_resource_uri``, ``build_bundle``,
``create_response``, ``serialize``, ``obj_get``/``cached_obj_get``, or uses a serializer
other than Tastypie's own ``Serializer``; other formats than JSON, ``Meta.fast_path =
False`` and ``DJONY_VERIFY_FAST_PATH`` apply as on the row-built path.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from tastypie import fields as tastypie_fields
from tastypie.bundle import Bundle
from tastypie.resources import Resource
from tastypie.serializers import Serializer

from tastypie_djony.fastpath import HOOKS, ListPlan, NotPlannable, Value
from tastypie_djony.nested import nested_field

#: Resource methods this path calls where Tastypie calls them (overrides welcome).
CALLED_HOOKS = frozenset(
    {"dehydrate", "alter_list_data_to_serialize", "alter_detail_data_to_serialize"}
)

#: ``field.convert`` of the stock fields whose conversion is one builtin.
CONVERSIONS: dict[type, Callable[[Any], Any]] = {
    tastypie_fields.CharField: str,
    tastypie_fields.IntegerField: int,
    tastypie_fields.FloatField: float,
    tastypie_fields.BooleanField: bool,
    tastypie_fields.DecimalField: Decimal,
}


class Step:
    """One field of ``full_dehydrate``: where its value comes from, and its hook."""

    __slots__ = ("name", "field", "value", "nested", "hook", "use_in", "related")

    def __init__(self, name: str, field: Any, value: Value | None, nested: Any, hook: Any) -> None:
        self.name = name
        self.field = field
        #: From the rows; else from a nested plan; else ``field.dehydrate(bundle, for_list)``.
        self.value = value
        self.nested = nested
        self.hook = hook
        self.use_in = field.use_in if callable(field.use_in) else None
        self.related = field.dehydrated_type == "related"


class Prepared:
    """One page of a plan, before any hook ran: each row's values, its objects on demand."""

    __slots__ = ("values", "objects", "keys", "nested")

    def __init__(self, values: list, objects: Callable[[], list], keys: list, nested: dict):
        self.values = values
        self.objects = objects
        #: Each row's primary key (when a nested field needs it).
        self.keys = keys
        #: Step name -> that nested field's page (see :mod:`tastypie_djony.nested`).
        self.nested = nested


class BundlePlan(ListPlan):
    """Tastypie's ``full_dehydrate`` of a page, its values from the page's rows.

    ``depth`` counts the ``full=True`` related resources above this one (a nested
    plan is built for each such field whose related resource has one, up to
    :data:`~tastypie_djony.nested.MAX_DEPTH`).
    """

    def __init__(self, resource: Any, base: type, for_list: bool = True, depth: int = 0) -> None:
        self.depth = depth
        super().__init__(resource, base, for_list=for_list)

    def _check_resource(self, base: type) -> None:
        cls = type(self.resource)
        for hook in HOOKS:
            if hook not in CALLED_HOOKS and getattr(cls, hook) is not getattr(base, hook):
                raise NotPlannable(f"{cls.__name__}.{hook} is overridden")
        if type(self.resource._meta.serializer) is not Serializer:
            raise NotPlannable("custom serializer")
        if cls.dehydrate_resource_uri is not Resource.dehydrate_resource_uri:
            raise NotPlannable("custom dehydrate_resource_uri")

    def _plan_fields(self) -> None:
        self.steps: list[Step] = []
        kind = "list" if self.for_list else "detail"
        for name, field in self.resource.fields.items():
            if not callable(field.use_in) and field.use_in not in ("all", kind):
                continue
            nested = None
            try:
                value = self._plan_field(name, field)
            except NotPlannable:
                value = None
                nested = nested_field(self, field)
            hook = getattr(self.resource, f"dehydrate_{name}", None)
            if name == "resource_uri" and value is not None:
                hook = None  # the row's URI is what the stock hook returns
            self.steps.append(Step(name, field, value, nested, hook))
        if any(step.nested is not None for step in self.steps):
            self._column("pk")
        for step in self.steps:
            if step.nested is not None and step.nested.link_column is not None:
                step.nested.link = self._column(step.nested.link_column)

    def object_fields(self) -> set[str]:
        """The fields left to their own ``dehydrate`` (they read ``bundle.obj``)."""
        return {step.name for step in self.steps if step.value is None and step.nested is None}

    def needed_loaders(self, loaders: Any) -> tuple:
        """Of a page's loaders, those its objects may need, if built.

        A loader of ``page_loaders`` (it names its field: ``djony_field``) only for a
        field left to its own ``dehydrate``; the others' values come from rows, and
        related managers read through ``bundle.obj`` load for the page by themselves.
        Loaders of the resource's own are kept.
        """
        keep = self.object_fields()
        return tuple(
            loader
            for loader in loaders
            if getattr(loader, "djony_field", None) in keep or not hasattr(loader, "djony_field")
        )

    def loaders(self, object_list: Any) -> tuple:
        """:meth:`needed_loaders` of ``object_list``'s loaders."""
        return self.needed_loaders(object_list.loaders)

    def converter(self, field: Any) -> Callable[[Any], Any]:
        """``field.convert``: the value a hook finds in ``bundle.data``."""
        return CONVERSIONS.get(type(field), field.convert)

    def prepare(self, object_list: Any, kept: Any = None) -> Prepared:
        """Read ``object_list``'s page and every value the rows give, before any hook runs.

        Raises :class:`~tastypie_djony.fastpath.Fallback` when a row (here or in a
        nested field) needs the general path.  ``kept``: the page's query compiled
        before (:mod:`tastypie_djony.detailsql`).
        """
        rows, objects = object_list.rows_and_objects(self.selected(object_list), kept)
        page = self.page_context(rows)
        steps = self.steps
        values = [
            [None if step.value is None else step.value(row, page) for step in steps]
            for row in rows
        ]
        keys: list = []
        nested = {}
        if "pk" in self.columns:
            pk = self.columns.index("pk")
            keys = [row[pk] for row in rows]
        for step in steps:
            if step.nested is not None:
                nested[step.name] = step.nested.prepare(keys, rows)
        return Prepared(values, objects, keys, nested)

    def bundles(self, object_list: Any, request: Any) -> list[Bundle]:
        """The page's dehydrated bundles, as ``full_dehydrate`` of each object gives them.

        Raises :class:`~tastypie_djony.fastpath.Fallback` before any hook ran when a
        row needs the general path.
        """
        prepared = self.prepare(object_list)
        return [
            self.dehydrate_row(prepared, position, request)
            for position in range(len(prepared.values))
        ]

    def dehydrate_row(
        self,
        prepared: Prepared,
        position: int,
        request: Any,
        fresh: bool = False,
    ) -> Bundle:
        """``full_dehydrate`` of row ``position``'s bundle; ``fresh``: copy its lists first.

        A nested row may be dehydrated for several owners: each gets lists of its own.
        """
        bundle = PageBundle(prepared.objects, position, request)
        data = bundle.data
        meta = self.resource._meta
        for step, value in zip(self.steps, prepared.values[position], strict=True):
            if step.use_in is not None and not step.use_in(bundle):
                continue
            field = step.field
            if step.related:  # as full_dehydrate does ("a touch leaky")
                field.api_name = meta.api_name
                field.resource_name = meta.resource_name
            if step.nested is not None:
                owner = prepared.keys[position]
                value = step.nested.value(prepared.nested[step.name], owner, request)
            elif step.value is None:
                value = field.dehydrate(bundle, for_list=self.for_list)
            elif fresh and type(value) is list:
                value = list(value)
            data[step.name] = value
            if step.hook is not None:
                data[step.name] = step.hook(bundle)
        return self.resource.dehydrate(bundle)


class PageBundle(Bundle):
    """The ``Bundle`` ``build_bundle(obj=..., request=...)`` gives, its ``obj`` built on first read.

    Reading ``bundle.obj`` builds the objects of the whole page (once) and returns this
    row's: the same Pony object, in the same session, as the general path's bundle
    holds (its related managers load for the whole page, as there).  Assigning
    ``bundle.obj`` works as on a ``Bundle``.
    """

    def __init__(self, objects: Callable[[], list[Any]], position: int, request: Any) -> None:
        super().__init__(obj=None, request=request, via_uri=None)
        self._page_objects = objects
        self._position = position
        self._obj: Any = _UNBUILT

    def holds_its_row(self) -> bool:
        """Whether ``obj`` is (or, unread, will be) its row's object: nobody assigned another."""
        return self._obj is _UNBUILT or self._obj is self._page_objects()[self._position]

    @property
    def obj(self) -> Any:
        obj = self._obj
        if obj is _UNBUILT:
            obj = self._obj = self._page_objects()[self._position]
        return obj

    @obj.setter
    def obj(self, value: Any) -> None:
        self._obj = value


_UNBUILT = object()


#: The types ``to_simple`` returns as they are (``str`` through ``force_str``, which keeps it).
PLAIN = frozenset({str, int, float, bool, type(None)})


def simple(data: Any, serializer: Serializer, options: Any = None) -> Any:
    """``serializer.to_simple(data, options)``; plain values without its type dispatch.

    Exact ``str``/``int``/``float``/``bool``/``None`` come back as they are, exact
    ``dict``/``list``/``tuple`` and bundles are walked here; any other value (a
    ``datetime``, a ``Decimal``, a subclass of anything) is the serializer's.
    """
    kind = type(data)
    if kind in PLAIN:
        return data
    if kind is dict:
        return _simple_items(data, serializer, options)
    if kind is list or kind is tuple:
        return [item if type(item) in PLAIN else simple(item, serializer, options) for item in data]
    if kind is PageBundle or kind is Bundle:
        return _simple_items(data.data, serializer, options)
    return serializer.to_simple(data, options)


def _simple_items(data: dict, serializer: Serializer, options: Any) -> dict:
    return {
        key: value if type(value) in PLAIN else simple(value, serializer, options)
        for key, value in data.items()
    }
