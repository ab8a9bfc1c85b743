"""The one field walk: what each field of a page shows, planned once per resource.

A plan is built once per resource and page kind (list or detail) from what is known
before any row is read: the fields the page shows, in ``resource.fields`` order, as
Tastypie's ``full_dehydrate`` walks them (:func:`shown_fields`: ``use_in``), and for
each field where its value comes from and how it is converted (one conversion table,
:mod:`tastypie_djony.serve.convert`) with Tastypie's null/default rule.  An optimisation,
never a second opinion: a plan serves a request only when it gives the general path's
bytes, and declines otherwise (:mod:`tastypie_djony.declines`).

Where a field's value comes from:

* a column of the page's one SQL query: a stock scalar field (:data:`SCALAR_FIELDS`)
  whose ``attribute`` names a concrete, non-relation column (``null`` first, then the
  default, as ``ApiField.dehydrate``); ``resource_uri``; a stock to-one without
  ``full`` over a forward key with a database constraint (its URI from the key); a
  stock to-many without ``full`` over a plain relation (the related keys of the whole
  page in one more query);
* a nested plan: a ``full=True`` related field whose related resource has a plan of
  its own (:mod:`tastypie_djony.serve.nested`);
* the object: any other field runs its own ``dehydrate(bundle, for_list)`` on the
  row's object, built only when read (:class:`~tastypie_djony.serve.bundles.PageBundle`).

Two plans walk the fields that way:

* :class:`ListPlan` (the row-built plan): every field from a column and no hook, so a
  page is rows -> dicts of simple values -> JSON, never an object;
* :class:`BundlePlan`: Tastypie's ``full_dehydrate`` order on bundles, for resources
  with hooks (``dehydrate()``, ``dehydrate_<field>()``, ``alter_*_data_to_serialize``)
  or fields only an object gives: ``bundle.data[name]`` is the field's value as its
  ``convert`` leaves it, then ``dehydrate_<name>(bundle)`` replaces it (a hook sees the
  fields before it, and its own), then the resource's ``dehydrate(bundle)``.

Both decline (:class:`~tastypie_djony.declines.NotPlannable`) when the resource
overrides a page-shaping method (:data:`tastypie_djony.stock.HOOKS`; the bundle plan
calls ``dehydrate`` and ``alter_*_data_to_serialize`` where Tastypie does), uses
another serializer than Tastypie's ``Serializer``, sets ``Meta.fast_path = False``, or
for other formats than JSON; URIs are built without objects only where
:func:`tastypie_djony.uris.uris_of` says they are a function of the key.  A detail
is served by :mod:`tastypie_djony.serve.detail` (one lookup, one authorization order),
a list page by :mod:`tastypie_djony.serve.lists`; with ``DJONY_VERIFY_FAST_PATH``
every served answer is compared with the general path's
(:mod:`tastypie_djony.serve.verify`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from tastypie import fields as tastypie_fields
from tastypie.bundle import Bundle

from tastypie_djony.declines import Fallback, NotPlannable
from tastypie_djony.fields import DjonyToOneField, SetField, stock_related_class
from tastypie_djony.nulls import related_may_be_absent, scalar_when_absent
from tastypie_djony.related import Relation
from tastypie_djony.serve.bundles import PageBundle, Prepared
from tastypie_djony.serve.convert import converter, simple_converter
from tastypie_djony.stock import CALLED_HOOKS, overridden_hooks, stock_serializer
from tastypie_djony.uris import DetailUris, uris_of

#: Tastypie field classes whose ``convert`` the plan reproduces.
SCALAR_FIELDS = {
    tastypie_fields.CharField,
    tastypie_fields.IntegerField,
    tastypie_fields.FloatField,
    tastypie_fields.DecimalField,
    tastypie_fields.BooleanField,
    tastypie_fields.DateField,
    tastypie_fields.DateTimeField,
    tastypie_fields.TimeField,
}
TO_ONE_FIELDS = {
    tastypie_fields.ToOneField,
    tastypie_fields.ForeignKey,
    tastypie_fields.OneToOneField,
    DjonyToOneField,
}

#: A value function: the row and its page's context (this request's URI builders by
#: :class:`DetailUris`, each to-many field's related keys by owner) -> the field's value.
Value = Callable[[tuple, dict], Any]


def shown_fields(resource: Any, for_list: bool) -> Iterator[tuple[str, Any]]:
    """The fields a page shows, in the resource's field order, as ``full_dehydrate`` walks them.

    ``use_in`` ``"all"`` or this page's kind; a callable ``use_in`` is yielded too (it is
    asked per bundle).
    """
    kind = "list" if for_list else "detail"
    for name, field in resource.fields.items():
        if callable(field.use_in) or field.use_in in ("all", kind):
            yield name, field


class ListPlan:
    """Columns to select and one value function per resource field.

    Built only from what is known before any row is read; anything it cannot reproduce
    raises :class:`NotPlannable` here, never later.  Reading the rows may raise
    :class:`Fallback` (the caller then takes the general path for that request).
    """

    #: Of :data:`~tastypie_djony.stock.HOOKS`, the overrides this plan calls as Tastypie does.
    ALLOWED_HOOKS: frozenset[str] = frozenset()

    def __init__(self, resource: Any, base: type, for_list: bool = True) -> None:
        self.resource = resource
        #: The class whose methods are Tastypie's own here (``DjonyResource``).
        self.base = base
        self.for_list = for_list
        self.columns: list[str] = []
        self.to_many: list[tuple[str, Relation, DetailUris, str]] = []
        self.values: list[tuple[str, Value]] = []
        self.uris: list[DetailUris] = []
        self._check_resource(base)
        self._plan_fields()
        if self.to_many:
            self._column("pk")

    def _plan_fields(self) -> None:
        """One value function per field shown, in the resource's field order."""
        for name, field in shown_fields(self.resource, self.for_list):
            if callable(field.use_in):
                raise NotPlannable(f"{name}: callable use_in")
            hook = getattr(self.resource, f"dehydrate_{name}", None)
            if hook is not None and name != "resource_uri":
                raise NotPlannable(f"dehydrate_{name}")
            self.values.append((name, self._plan_field(name, field)))

    def converter(self, field: Any) -> Callable[[Any], Any]:
        """A column value -> what the page shows for ``field`` (here: its simple form)."""
        return simple_converter(field, self.resource._meta.serializer)

    def _check_resource(self, base: type) -> None:
        cls = type(self.resource)
        refused = overridden_hooks(cls, base) - self.ALLOWED_HOOKS
        if refused:
            raise NotPlannable(f"{cls.__name__}.{min(refused)} is overridden")
        if not stock_serializer(self.resource):
            raise NotPlannable("custom serializer")

    def _column(self, name: str) -> int:
        if name not in self.columns:
            self.columns.append(name)
        return self.columns.index(name)

    def _model_field(self, attribute: Any) -> Any:
        if not isinstance(attribute, str) or "__" in attribute:
            raise NotPlannable(f"attribute {attribute!r}")
        try:
            field = self.resource._meta.object_class._meta.get_field(attribute)
        except FieldDoesNotExist:
            raise NotPlannable(f"attribute {attribute!r} is not a model field") from None
        if field.name != attribute and getattr(field, "attname", None) != attribute:
            raise NotPlannable(f"attribute {attribute!r} is a query name")
        return field

    def _uris(self, resource: Any) -> DetailUris:
        uris = uris_of(resource)
        if not uris.from_key:
            raise NotPlannable(f"{type(resource).__name__} builds its URIs itself")
        if uris not in self.uris:
            self.uris.append(uris)
        return uris

    def _plan_field(self, name: str, field: Any) -> Value:
        """The value function of one field, or :class:`NotPlannable`."""
        kind = type(field)
        if name == "resource_uri":
            return self._resource_uri_value(field)
        if kind in SCALAR_FIELDS:
            return self._scalar_value(field)
        related = stock_related_class(field)  # also fields.ForeignKey, ManyToManyField ...
        if (kind in TO_ONE_FIELDS or related is DjonyToOneField) and not field.full:
            return self._to_one_value(name, field)
        if related is SetField and not field.full:
            return self._to_many_value(name, field)
        raise NotPlannable(f"{name}: {kind.__name__}")

    # -- value functions ----------------------------------------------------
    def _scalar_value(self, field: Any) -> Value:
        """``field.dehydrate`` of a column: ``null`` first, then the default, then convert."""
        model_field = self._model_field(field.attribute)
        if model_field.is_relation or not model_field.concrete:
            raise NotPlannable(f"{field.instance_name} reads a relation")
        index = self._column(model_field.name)
        convert = self.converter(field)
        absent = scalar_when_absent(field)

        def value(row: tuple, page: dict) -> Any:
            raw = row[index]
            if raw is None:
                raw = absent()
                if raw is None:
                    return None
            return convert(raw)

        return value

    def _resource_uri_value(self, field: Any) -> Value:
        """``dehydrate_resource_uri`` (after the field's own read, which may fail)."""
        check = self._scalar_value(field) if field.attribute is not None else None
        if check is not None and type(field) not in SCALAR_FIELDS:
            raise NotPlannable(f"resource_uri: {type(field).__name__}")
        uris = self._uris(self.resource)
        key_field = uris.key_field()
        if key_field is None:
            raise NotPlannable("resource_uri: detail_uri_name is not a column")
        index = self._column(
            "pk" if key_field == self.resource._meta.object_class._meta.pk.name else key_field
        )

        def value(row: tuple, page: dict) -> Any:
            if check is not None:
                check(row, page)
            return page[uris](row[index])

        return value

    def _to_one_value(self, name: str, field: Any) -> Value:
        model_field = self._model_field(field.attribute)
        if not (model_field.many_to_one or model_field.one_to_one) or not model_field.concrete:
            raise NotPlannable(f"{name} is not a forward relation")
        if not getattr(model_field, "db_constraint", True):
            raise NotPlannable(f"{name}: its key may name no row (db_constraint=False)")
        uris = self._uris(field.get_related_resource(None))
        key_field = uris.key_field(model_field.related_model)
        if key_field is None:
            raise NotPlannable(f"{name}: the related URI's key is not a column")
        link = self._column(model_field.attname)
        index = link
        if key_field != model_field.target_field.name:
            # e.g. a slug: read through a join (the constraint guarantees the row)
            index = self._column(f"{model_field.name}__{key_field}")
        null = related_may_be_absent(field)

        def value(row: tuple, page: dict) -> Any:
            key = row[index]
            if key is None:
                if null and row[link] is None:
                    return None
                raise Fallback
            return page[uris](key)

        return value

    def _to_many_value(self, name: str, field: Any) -> Value:
        """The related URIs of a plain to-many relation, read for the whole page at once."""
        relation = Relation.find(self.resource._meta.object_class, field.attribute)
        if relation is None:
            raise NotPlannable(f"{name}: not a plain relation")
        uris = self._uris(field.get_related_resource(None))
        key_field = uris.key_field(relation.target)
        if key_field is None:
            raise NotPlannable(f"{name}: the related URIs need objects")
        self.to_many.append((name, relation, uris, key_field))
        pk = self._column("pk")

        def value(row: tuple, page: dict) -> Any:
            build = page[uris]
            return [build(key) for key in page[name][row[pk]]]

        return value

    # -- running ------------------------------------------------------------
    def selected(self, object_list: Any) -> list[str]:
        """The columns to read for ``object_list``'s page."""
        columns = list(self.columns)
        if object_list.queryset.query.distinct and "pk" not in columns:
            # DISTINCT over a few columns would merge distinct objects with equal values.
            columns.append("pk")
        return columns

    def page_context(self, rows: list[tuple]) -> dict:
        """What the value functions share on one page: URI builders, related keys by owner."""
        page: dict[Any, Any] = {uris: uris.builder() for uris in self.uris}
        if self.to_many:
            pk_index = self.columns.index("pk")
            keys = [row[pk_index] for row in rows]
            for name, relation, _uris, key_field in self.to_many:
                page[name] = relation.related_keys(keys, key_field)
        return page

    def objects(self, object_list: Any, kept: Any = None) -> list[dict]:
        """The ``objects`` of a page, as Tastypie would serialise them.

        ``kept``: the page's query compiled before (:mod:`tastypie_djony.serve.detail`).
        """
        rows = object_list.values_rows(self.selected(object_list), kept)
        page = self.page_context(rows)
        values = self.values
        return [{name: value(row, page) for name, value in values} for row in rows]


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


class BundlePlan(ListPlan):
    """Tastypie's ``full_dehydrate`` of a page, its values from the page's rows.

    ``depth`` counts the ``full=True`` related resources above this one (a nested
    plan is built for each such field whose related resource has one, up to
    :data:`~tastypie_djony.related.MAX_DEPTH`).
    """

    ALLOWED_HOOKS = CALLED_HOOKS

    def __init__(self, resource: Any, base: type, for_list: bool = True, depth: int = 0) -> None:
        self.depth = depth
        super().__init__(resource, base, for_list=for_list)

    def _plan_fields(self) -> None:
        from tastypie_djony.serve.nested import nested_field

        self.steps: list[Step] = []
        for name, field in shown_fields(self.resource, self.for_list):
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

    def loaders(self, object_list: Any) -> tuple:
        """The loaders of ``object_list``'s objects, run if some code builds them.

        A hook that reads ``bundle.obj`` may read any relation the resource's fields
        name: the page's objects get them all, once, when the first is read.
        """
        return tuple(object_list.loaders)

    def converter(self, field: Any) -> Callable[[Any], Any]:
        """``field.convert``: the value a hook finds in ``bundle.data``."""
        return converter(field)

    def prepare(self, object_list: Any, kept: Any = None) -> Prepared:
        """Read ``object_list``'s page and every value the rows give, before any hook runs.

        Raises :class:`~tastypie_djony.declines.Fallback` when a row (here or in a
        nested field) needs the general path.  ``kept``: the page's query compiled
        before (:mod:`tastypie_djony.serve.detail`).
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

        Raises :class:`~tastypie_djony.declines.Fallback` before any hook ran when a
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
