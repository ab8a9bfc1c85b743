"""The JSON list and detail pages without objects: rows -> dicts -> ``json.dumps``.

An optimisation, never a second opinion: it serves a request only when it gives the
general path's bytes, and declines otherwise.  For a plain resource Tastypie's work per
object is mechanical: read each attribute, ``convert()`` it, turn it into a simple type
(``Serializer.to_simple``) and serialise.  :class:`ListPlan` does the same from the
columns of one SQL query, never building an ORM object.

Resources with hooks, or with fields only an object can give, are served by
:class:`tastypie_djony.hooked.BundlePlan`, which reuses these value functions.

Served (``DjonyResource.list_plan`` / ``detail_plan`` return a plan) when all of these hold:

* the request asks for JSON, and the resource does not set ``Meta.fast_path = False``;
* the resource overrides none of :data:`HOOKS`, nor ``dehydrate_<field>`` for any field,
  and uses Tastypie's own ``Serializer`` class;
* every field it shows (``use_in`` ``"all"`` or this page's kind; a callable ``use_in``
  declines) is one of:

  - a stock scalar field (:data:`SCALAR_FIELDS`) whose ``attribute`` names a concrete,
    non-relation column of the model (its ``null`` and ``default`` applied as Tastypie
    applies them: ``null`` first);
  - ``resource_uri`` (with or without an ``attribute``);
  - a stock ``ToOneField``/``ForeignKey``/``OneToOneField`` without ``full``, over a
    concrete forward key with a database constraint (``db_constraint=False`` declines:
    the key may name no row);
  - a stock ``ToManyField``/``SetField`` without ``full`` over a relation named by the model's
    field or Django accessor (forward or reverse many-to-many, reverse ForeignKey, also
    over ``to_field``, ``GenericRelation``); ``a__b`` paths and callables decline;

* the resource's own and every related resource's URIs are a function of the
  ``detail_uri_name`` value alone (:func:`tastypie_djony.uris.uris_of`: no override of
  ``get_resource_uri``, ``detail_uri_kwargs``, ``resource_uri_kwargs``, ``prepend_urls``
  or ``_build_reverse_url`` other than ``NamespacedModelResource``'s), and
  ``detail_uri_name`` is a column;
* for a detail also: ``Authorization`` or ``ReadOnlyAuthorization`` exactly (their
  ``read_detail`` never looks at the object), Tastypie's own ``authorized_read_detail``
  (it still runs), and no cache.

``authorized_read_list`` and the authorization class's ``read_list`` run on every list
page, served or not: the page is built from ``obj_get_list``'s object list.  Refusals found
while planning are :class:`NotPlannable` (the resource takes the general path); a row the
plan cannot reproduce (a NULL where the field allows none, a paginator returning a list)
raises :class:`Fallback` and that request takes the general path.  Neither reaches the
client.  With ``settings.DJONY_VERIFY_FAST_PATH = True`` every served request is rendered
by the general path too and any difference raises :class:`FastPathMismatch`.
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.core.serializers import json as django_json
from django.utils import timezone
from tastypie import fields as tastypie_fields
from tastypie.resources import Resource
from tastypie.serializers import Serializer

from tastypie_djony.fields import DjonyToOneField, SetField, stock_related_class
from tastypie_djony.related import Relation
from tastypie_djony.uris import DetailUris, uris_of


class NotPlannable(Exception):
    """This resource or request needs Tastypie's general path."""


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

#: Resource methods that, when overridden, change what a page contains.  The URI methods
#: are decided by :func:`tastypie_djony.uris.uris_of`.
HOOKS = (
    "full_dehydrate",
    "dehydrate",
    "dehydrate_resource_uri",
    "alter_list_data_to_serialize",
    "alter_detail_data_to_serialize",
    "obj_get",
    "cached_obj_get",
    "create_response",
    "serialize",
    "build_bundle",
)


class Fallback(Exception):
    """A row needs Tastypie's own handling (e.g. a missing non-null value)."""


#: A value function: the row and its page's context (this request's URI builders by
#: :class:`DetailUris`, each to-many field's related keys by owner) -> the field's value.
Value = Callable[[tuple, dict], Any]


class ListPlan:
    """Columns to select and one value function per resource field.

    Built only from what is known before any row is read; anything it cannot reproduce
    raises :class:`NotPlannable` here, never later.  Reading the rows may raise
    :class:`Fallback` (the caller then takes the general path for that request).
    """

    def __init__(self, resource: Any, base: type, for_list: bool = True) -> None:
        self.resource = resource
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
        for name, field in self.resource.fields.items():
            if callable(field.use_in):
                raise NotPlannable(f"{name}: callable use_in")
            if field.use_in not in ("all", "list" if self.for_list else "detail"):
                continue
            hook = getattr(self.resource, f"dehydrate_{name}", None)
            if hook is not None and name != "resource_uri":
                raise NotPlannable(f"dehydrate_{name}")
            self.values.append((name, self._plan_field(name, field)))

    def converter(self, field: Any) -> Callable[[Any], Any]:
        """A column value -> what the page shows for ``field`` (here: its simple form)."""
        return simple_converter(field, self.resource._meta.serializer)

    def _check_resource(self, base: type) -> None:
        cls = type(self.resource)
        for hook in HOOKS:
            if getattr(cls, hook) is not getattr(base, hook):
                raise NotPlannable(f"{cls.__name__}.{hook} is overridden")
        if type(self.resource._meta.serializer) is not Serializer:
            raise NotPlannable("custom serializer")
        if cls.dehydrate_resource_uri is not Resource.dehydrate_resource_uri:
            raise NotPlannable("custom dehydrate_resource_uri")

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
        null, has_default = field.null, field.has_default()

        def value(row: tuple, page: dict) -> Any:
            raw = row[index]
            if raw is None:
                if null:
                    return None
                if not has_default:
                    raise Fallback
                raw = field._default() if callable(field._default) else field._default
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
        null = field.null

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

        ``kept``: the page's query compiled before (:mod:`tastypie_djony.detailsql`).
        """
        rows = object_list.values_rows(self.selected(object_list), kept)
        page = self.page_context(rows)
        values = self.values
        return [{name: value(row, page) for name, value in values} for row in rows]


def simple_converter(field: Any, serializer: Serializer) -> Callable[[Any], Any]:
    """``serializer.to_simple(field.convert(value))``, specialised for the common types."""
    kind = type(field)
    if kind is tastypie_fields.CharField:
        return str
    if kind is tastypie_fields.IntegerField:
        return int
    if kind is tastypie_fields.FloatField:
        return float
    if kind is tastypie_fields.BooleanField:
        return bool
    if kind is tastypie_fields.DecimalField:
        return lambda value: str(Decimal(value))
    generic = lambda value: serializer.to_simple(field.convert(value), None)  # noqa: E731
    if kind is tastypie_fields.DateTimeField and serializer.datetime_formatting == "iso-8601":
        zone = timezone.get_default_timezone() if settings.USE_TZ else None

        def iso_datetime(value: Any) -> Any:
            if type(value) is not datetime.datetime:
                return generic(value)
            if zone is not None and value.utcoffset() is not None:
                value = value.astimezone(zone).replace(tzinfo=None)
            return value.isoformat()

        return iso_datetime
    return generic


def render_json(data: Any) -> str:
    """What ``Serializer.to_json`` writes for data that is already simple."""
    return django_json.json.dumps(
        data, cls=django_json.DjangoJSONEncoder, sort_keys=True, ensure_ascii=False
    )


class FastPathMismatch(AssertionError):
    """``DJONY_VERIFY_FAST_PATH``: the fast path's answer is not the general path's."""


def verifying() -> bool:
    """Whether ``settings.DJONY_VERIFY_FAST_PATH`` asks to check every fast answer."""
    return bool(getattr(settings, "DJONY_VERIFY_FAST_PATH", False))


def _same_rows_in_another_order(mine: bytes, theirs: bytes) -> bool:
    """Whether two JSON pages differ only in the order of their objects.

    Rows the ordering does not decide between (``order_by=country__name`` with
    two authors of one country) come in whatever order the database picks for
    each query, for ModelResource too: not a difference between the paths.
    """
    try:
        fast, general = json.loads(mine), json.loads(theirs)
    except ValueError:
        return False
    if not (isinstance(fast, dict) and isinstance(general, dict)):
        return False
    fast_objects, general_objects = fast.pop("objects", None), general.pop("objects", None)
    lists = isinstance(fast_objects, list) and isinstance(general_objects, list)
    if not lists or fast != general:
        return False
    key = functools.partial(json.dumps, sort_keys=True)
    return sorted(map(key, fast_objects)) == sorted(map(key, general_objects))


def _ordering_decides(resource: Any, request: Any) -> bool:
    """Whether a client's ``order_by`` decides the order of every row (ends on a key)."""
    requested = [value.lstrip("-") for value in request.GET.getlist("order_by")]
    if not requested:
        return True  # the resource's own ordering: the same query on both paths
    pk = resource._meta.object_class._meta.pk
    return any(name in ("pk", pk.name, pk.attname) for name in requested)


def check_same_answer(resource: Any, request: Any, fast: Any, general: Any) -> None:
    """Raise :class:`FastPathMismatch`, naming the first difference, unless both are equal."""
    for part, mine, theirs in (
        ("status", fast.status_code, general.status_code),
        ("Content-Type", fast.get("Content-Type"), general.get("Content-Type")),
        ("body", fast.content, general.content),
    ):
        if mine == theirs or (part == "body" and _same_rows_in_another_order(mine, theirs)):
            continue
        if part == "body" and not _ordering_decides(resource, request):
            continue  # ties may fall on either side of a page boundary, as for ModelResource
        detail = f"{mine!r} != {theirs!r}"
        if part == "body":
            at = next(
                (i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                min(len(mine), len(theirs)),
            )
            start = max(0, at - 60)
            detail = (
                f"at byte {at}: fast ...{mine[start : at + 60]!r}... general "
                f"...{theirs[start : at + 60]!r}..."
            )
        raise FastPathMismatch(
            f"{type(resource).__name__} {request.method} {request.get_full_path()}: the fast "
            f"path's {part} differs from the general path's: {detail}. Set Meta.fast_path = "
            "False on this resource and report the difference."
        )
