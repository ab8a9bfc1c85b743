"""The JSON list page without objects: rows -> dicts -> ``json.dumps``.

For a plain resource (stock Tastypie field classes over model columns, no
``dehydrate*`` hooks, stock URIs and serializer) Tastypie's work per object
is mechanical: read each attribute, ``convert()`` it, turn it into a simple
type (``Serializer.to_simple``) and serialise.  :class:`ListPlan` does the
same from the columns of one SQL query, never building an ORM object: each
field becomes a small function from the row to the value Tastypie would have
written, related URIs come from the page loaders' keys, and the page is
encoded with the serializer's own JSON settings.  The bytes are the same as
the general path's; the differential tests compare them.

A resource that does anything the plan cannot reproduce (a hook, a custom
field class, ``full=True``, a callable or ``a__b`` attribute, another
format) takes the general path, where every Tastypie extension point runs.
"""

from __future__ import annotations

import datetime
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

from tastypie_djony.fields import DjonyToOneField, SetField
from tastypie_djony.related import Relation


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
INTEGER_KEYS = {
    "AutoField",
    "BigAutoField",
    "SmallAutoField",
    "IntegerField",
    "BigIntegerField",
    "SmallIntegerField",
    "PositiveIntegerField",
    "PositiveBigIntegerField",
    "PositiveSmallIntegerField",
}

#: Resource methods that, when overridden, change what a list page contains.
HOOKS = (
    "full_dehydrate",
    "dehydrate",
    "dehydrate_resource_uri",
    "alter_list_data_to_serialize",
    "alter_detail_data_to_serialize",
    "obj_get",
    "cached_obj_get",
    "get_resource_uri",
    "detail_uri_kwargs",
    "create_response",
    "serialize",
    "build_bundle",
)


class Fallback(Exception):
    """A row needs Tastypie's own handling (e.g. a missing non-null value)."""


class ListPlan:
    """Columns to select and one value function per resource field."""

    def __init__(self, resource: Any, base: type, for_list: bool = True) -> None:
        self.resource = resource
        self.columns: list[str] = []
        self.to_many: list[tuple[str, Relation, Any]] = []
        self.values: list[tuple[str, Callable]] = []
        self._check_resource(base)
        for name, field in resource.fields.items():
            if field.use_in not in ("all", "list" if for_list else "detail"):
                if callable(field.use_in):
                    raise NotPlannable(f"{name}: callable use_in")
                continue
            if getattr(resource, f"dehydrate_{name}", None) is not None and name != "resource_uri":
                raise NotPlannable(f"dehydrate_{name}")
            self._plan_field(name, field)
        if self.to_many:
            self._column("pk")

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
            return self.resource._meta.object_class._meta.get_field(attribute)
        except FieldDoesNotExist:
            raise NotPlannable(f"attribute {attribute!r} is not a model field") from None

    def _plan_field(self, name: str, field: Any) -> None:
        kind = type(field)
        if name == "resource_uri" and field.attribute is None:
            _require_integer_key(self.resource._meta.object_class)
            self.values.append((name, self._uri_value(self._column("pk"), self.resource)))
        elif kind in SCALAR_FIELDS:
            model_field = self._model_field(field.attribute)
            if model_field.is_relation or not model_field.concrete:
                raise NotPlannable(f"{name} reads a relation")
            self.values.append((name, self._scalar_value(self._column(model_field.name), field)))
        elif kind in TO_ONE_FIELDS and not field.full:
            model_field = self._model_field(field.attribute)
            if not (model_field.many_to_one or model_field.one_to_one) or not model_field.concrete:
                raise NotPlannable(f"{name} is not a forward relation")
            if model_field.target_field != model_field.related_model._meta.pk:
                raise NotPlannable(f"{name} uses to_field")
            _require_integer_key(model_field.related_model)
            related = field.get_related_resource(None)
            index = self._column(model_field.attname)
            self.values.append((name, self._to_one_value(index, related, field)))
        elif kind is SetField and not field.full:
            relation = Relation.find(self.resource._meta.object_class, field.attribute)
            if relation is None:
                raise NotPlannable(f"{name}: not a plain relation")
            _require_integer_key(relation.target)
            _require_integer_key(self.resource._meta.object_class)
            self.to_many.append((name, relation, field.get_related_resource(None)))
        else:
            raise NotPlannable(f"{name}: {kind.__name__}")

    # -- value functions ----------------------------------------------------
    def _scalar_value(self, index: int, field: Any) -> Callable:
        convert = simple_converter(field, self.resource._meta.serializer)
        null, has_default = field.null, field.has_default()

        def value(row: tuple) -> Any:
            raw = row[index]
            if raw is None:
                if has_default:
                    raw = field._default() if callable(field._default) else field._default
                elif null:
                    return None
                else:
                    raise Fallback
            return convert(raw)

        return value

    def _to_one_value(self, index: int, related: Any, field: Any) -> Callable:
        builder = _uri_builder(related)
        null = field.null

        def value(row: tuple) -> Any:
            key = row[index]
            if key is None:
                if null:
                    return None
                raise Fallback
            if type(key) is not int:
                raise Fallback
            return builder(key)

        return value

    def _uri_value(self, index: int, resource: Any) -> Callable:
        builder = _uri_builder(resource)

        def value(row: tuple) -> Any:
            key = row[index]
            if type(key) is not int:
                raise Fallback
            return builder(key)

        return value

    # -- running ------------------------------------------------------------
    def objects(self, object_list: Any) -> list[dict]:
        """The ``objects`` of a page, as Tastypie would serialise them."""
        rows = object_list.values_rows(self.columns)
        pk_index = self.columns.index("pk") if "pk" in self.columns else None
        keys = [row[pk_index] for row in rows] if pk_index is not None else []
        to_many = []
        for name, relation, related in self.to_many:
            if pk_index is None:
                raise Fallback
            build = _uri_builder(related)
            related_by_owner = relation.related_keys(keys)
            to_many.append((name, related_by_owner, build))
        result = []
        for position, row in enumerate(rows):
            data = {name: value(row) for name, value in self.values}
            for name, related_by_owner, build in to_many:
                related = related_by_owner[keys[position]]
                if any(type(key) is not int for key in related):
                    raise Fallback
                data[name] = [build(key) for key in related]
            result.append(data)
        return result


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


def _require_integer_key(model: type) -> None:
    """URIs come from a template for integer keys only (others need ``reverse()``)."""
    if model._meta.pk.get_internal_type() not in INTEGER_KEYS:
        raise NotPlannable(f"{model._meta.label} has a {model._meta.pk.get_internal_type()} key")


def _uri_builder(resource: Any) -> Callable[[int], str]:
    builder = getattr(resource, "detail_uri_builder", None)
    build = builder() if builder is not None else None
    if build is None:
        raise Fallback
    return build


def render_json(data: Any) -> str:
    """What ``Serializer.to_json`` writes for data that is already simple."""
    return django_json.json.dumps(
        data, cls=django_json.DjangoJSONEncoder, sort_keys=True, ensure_ascii=False
    )
