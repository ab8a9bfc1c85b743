"""Sources of values a column of the resource's own row holds: scalars, files, the URI.

* :class:`ScalarSource`: Tastypie's scalar fields (``CharField`` ... ``TimeField``) over a
  concrete column Django reads as it is (no descriptor of its own): Tastypie's null, then
  default, rule, then the field's ``convert`` (and ``to_simple``);
* :class:`FileSource`: Tastypie's ``FileField`` over a model ``FileField``/``ImageField``:
  the stored name's URL from the field's storage, as ``FieldFile.url`` gives it;
* :class:`ResourceUriSource`: ``resource_uri``, from the column holding the detail URI's
  key (:func:`~tastypie_djony.uris.uris_of`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from django.db.models.fields.files import FileField as ModelFileField
from django.db.models.query_utils import DeferredAttribute

from tastypie_djony.convert import converter, simple_converter
from tastypie_djony.nulls import scalar_when_absent
from tastypie_djony.sources.base import Page, Plan, Source, key_uris, model_field
from tastypie_djony.uris import DetailUris


class ScalarSource(Source):
    """A scalar field over a column (see the module)."""

    def __init__(self, plan: Plan, name: str, field: Any) -> None:
        super().__init__(plan, name, field)
        self.model_field, self.declined = model_field(plan, field.attribute)
        if self.declined is None:
            self.declined = _column_reason(plan, name, self.model_field)
        resource = plan.resource
        self.convert: Callable[[Any], Any] = (
            simple_converter(field, resource._meta.serializer) if plan.simple else converter(field)
        )
        self.absent = scalar_when_absent(field)
        self.index = -1

    def columns(self) -> list[str]:
        return [self.model_field.name]

    def bind(self, position: Callable[[str], int]) -> None:
        self.index = position(self.model_field.name)

    def value(self, row: tuple, page: Page) -> Any:
        raw = row[self.index]
        if raw is None:
            raw = self.absent()  # None when null, else the default; no default: Fallback
            if raw is None:
                return None
        return self.convert(raw)


def _column_reason(plan: Plan, name: str, found: Any) -> str | None:
    """Why a column's row value is not what the object's attribute gives, or ``None``."""
    if found.is_relation or not found.concrete:
        return f"{name} reads a relation"
    model = plan.resource._meta.object_class
    descriptor = inspect.getattr_static(model, found.attname, None)
    if type(descriptor) is not DeferredAttribute:
        reader = type(descriptor).__name__
        return f"{name}: {model._meta.object_name}.{found.attname} is read through {reader}"
    return None


class FileSource(Source):
    """Tastypie's ``FileField`` over a model file field: the stored name's URL."""

    def __init__(self, plan: Plan, name: str, field: Any) -> None:
        super().__init__(plan, name, field)
        self.model_field, self.declined = model_field(plan, field.attribute)
        if self.declined is None and not isinstance(self.model_field, ModelFileField):
            self.declined = f"{name}: a FileField over {type(self.model_field).__name__}"
        self.index = -1

    def columns(self) -> list[str]:
        return [self.model_field.name]

    def bind(self, position: Callable[[str], int]) -> None:
        self.index = position(self.model_field.name)

    def value(self, row: tuple, page: Page) -> Any:
        name = row[self.index]
        if not name:
            return None  # FieldFile.url raises ValueError: Tastypie's FileField shows None
        return self.model_field.attr_class(None, self.model_field, name).url


class ResourceUriSource(Source):
    """``resource_uri``: the resource's detail URI from the key column."""

    def __init__(self, plan: Plan, name: str, field: Any) -> None:
        super().__init__(plan, name, field)
        self.check = ScalarSource(plan, name, field) if field.attribute is not None else None
        if self.check is not None and self.check.declined is not None:
            self.declined = f"resource_uri: {self.check.declined}"
        self.detail_uris, reason = key_uris(plan.resource)
        self.declined = self.declined or reason
        self.column = None
        if self.detail_uris is not None:
            key_field = self.detail_uris.key_field()
            pk = plan.resource._meta.object_class._meta.pk
            if key_field is None:
                self.declined = self.declined or "resource_uri: detail_uri_name is not a column"
            else:
                self.column = "pk" if key_field == pk.name else key_field
        self.index = -1

    def columns(self) -> list[str]:
        return [*(self.check.columns() if self.check else ()), self.column]

    def bind(self, position: Callable[[str], int]) -> None:
        if self.check is not None:
            self.check.bind(position)
        self.index = position(self.column)

    def uris(self) -> list[DetailUris]:
        return [self.detail_uris]

    def value(self, row: tuple, page: Page) -> Any:
        if self.check is not None:
            self.check.value(row, page)  # the field's own read, which may fail
        return page.builders[self.detail_uris](row[self.index])
