"""The requests to send, generated from a resource's definition and its rows.

For each resource: list pages (default, ``limit=0``, offsets, past the end,
a malformed limit), details of a sample of rows and of a missing one,
``schema/``, ``set/``, every filter ``Meta.filtering`` allows with every term
allowed on it (values sampled from the rows, plus values that match nothing
and malformed ones), every ``Meta.ordering`` field both ways, and each format
the serializer offers.  :func:`write_requests` adds POSTs built from the
resource's fields and PUT/PATCH/DELETE on copies of a row; :func:`from_log`
reads GET paths from a file.

Values are sampled with Django's ORM on the database being verified, in a
fixed random order (``seed``), so two runs send the same requests.
"""

from __future__ import annotations

import datetime
import decimal
import json
import random
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.resources import Resource

from tastypie_djony.verify import copies
from tastypie_djony.verify.trouble import on_field

NO_MATCH = "djony-verify-no-match"
MALFORMED = "not-a-value-%"
TEXT_TERMS = {"exact", "iexact", "contains", "icontains", "startswith", "istartswith",
              "endswith", "iendswith", "regex", "iregex"}  # fmt: skip
DATE_PARTS = {"year", "month", "day", "week_day", "iso_week_day", "week", "quarter",
              "iso_year", "hour", "minute", "second"}  # fmt: skip


@dataclass(frozen=True)
class Request:
    """One request, to be sent to a resource and to its twin."""

    resource: str  # the resource's list URI, for the report
    method: str
    path: str  # with the query string
    body: str | None = None  # JSON, for writes
    model: type | None = None  # whose rows a write may change
    key: Any = None  # the row a write names
    copy_of: Any = None  # the row copied as ``key`` before the write (see .copies)

    @property
    def writes(self) -> bool:
        return self.method not in ("GET", "HEAD", "OPTIONS")

    def __str__(self) -> str:
        text = f"{self.method} {self.path}"
        if self.body is not None:
            body = self.body if len(self.body) <= 200 else self.body[:200] + "..."
            text += f" {body}"
        return text


def text(value: Any) -> str:
    """A filter value as a client writes it in a query string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    return str(value)


def _query(path: str, params: dict[str, str] | list[tuple[str, str]]) -> str:
    return f"{path}?{urlencode(params)}" if params else path


class ResourceRequests:
    """The requests for one mounted resource (the original, on ``using``) at its list URI
    ``uri`` (default: its ``get_resource_uri()``)."""

    def __init__(
        self, resource: Resource, using: str, sample: int = 5, seed: int = 2013, uri: str = ""
    ) -> None:
        self.resource = resource
        self.meta = resource._meta
        self.model = self.meta.object_class
        self.using = using
        self.sample = sample
        self.random = random.Random(seed)
        self.uri = uri or resource.get_resource_uri()
        queryset = self.meta.queryset
        if queryset is None:  # Meta.object_class only: its rows through the default manager
            queryset = self.model._default_manager.all()
        self.queryset = queryset._clone().using(using)

    def request(self, path: str, **extra: Any) -> Request:
        return Request(self.uri, extra.pop("method", "GET"), path, model=self.model, **extra)

    # -- rows ------------------------------------------------------------------------
    def keys(self) -> list[Any]:
        """A sample of detail keys: the first, the last and a few at random."""
        name = self.meta.detail_uri_name
        attribute = "pk" if name == "pk" else name
        try:
            values = list(self.queryset.order_by("pk").values_list(attribute, flat=True)[:500])
        except Exception:  # noqa: BLE001 - a detail_uri_name that is not a column
            return []
        if len(values) <= self.sample:
            return values
        middle = self.random.sample(values[1:-1], max(0, self.sample - 2))
        return [values[0], *middle, values[-1]]

    def values(self, lookup: str, count: int = 2) -> list[Any]:
        """A few distinct non-null values of ``lookup`` in the resource's rows."""
        try:
            found = list(
                self.queryset.exclude(**{f"{lookup}__isnull": True})
                .order_by()
                .values_list(lookup, flat=True)
                .distinct()[:50]
            )
        except Exception:  # noqa: BLE001 - not a path Django can query
            return []
        self.random.shuffle(found)
        return found[:count]

    # -- the requests ------------------------------------------------------------------
    def all(self) -> Iterator[Request]:
        yield from self.pages()
        yield from self.details()
        yield from self.filters()
        yield from self.orderings()
        yield from self.formats()

    def pages(self) -> Iterator[Request]:
        count = self.queryset.count()
        for params in ({}, {"limit": "0"}, {"offset": "1"}, {"limit": "5", "offset": "3"},
                       {"offset": str(count)}, {"offset": str(count + 10)}, {"limit": "-1"},
                       {"limit": "many"}):  # fmt: skip
            yield self.request(_query(self.uri, params))
        yield self.request(f"{self.uri}schema/")

    def details(self) -> Iterator[Request]:
        keys = self.keys()
        for key in keys:
            yield self.request(f"{self.uri}{key}/")
        missing = (max(keys) + 1000) if keys and all(type(k) is int for k in keys) else NO_MATCH
        yield self.request(f"{self.uri}{missing}/")
        if keys:
            yield self.request(f"{self.uri}set/{';'.join(str(k) for k in keys[:3])}/")
            yield self.request(f"{self.uri}set/{keys[0]};{missing}/")

    def filters(self) -> Iterator[Request]:
        for name, allowed in self.meta.filtering.items():
            with on_field(name):
                yield from self.field_filters(name, allowed)

    def field_filters(self, name: str, allowed: Any) -> Iterator[Request]:
        """The filters ``Meta.filtering`` allows on field ``name``."""
        field = self.resource.fields.get(name)
        if field is None or not isinstance(field.attribute, str) or "__" in field.attribute:
            return
        if getattr(field, "is_related", False):
            yield from self.related_filters(name, field, allowed)
            return
        try:
            model_field = self.model._meta.get_field(field.attribute)
        except FieldDoesNotExist:
            return
        if allowed in (ALL, ALL_WITH_RELATIONS):
            terms = sorted(model_field.get_lookups())
        else:
            terms = list(allowed)
        samples = self.values(field.attribute)
        for term in terms:
            for value in term_values(term, samples, model_field):
                yield self.request(_query(self.uri, {f"{name}__{term}": value}))
        yield self.request(_query(self.uri, {f"{name}__djony_verify_unknown": "1"}))

    def related_filters(self, name: str, field: Any, allowed: Any) -> Iterator[Request]:
        keys = [text(v) for v in self.values(f"{field.attribute}__pk")]
        terms = ["exact", "in", "isnull"] if allowed in (ALL, ALL_WITH_RELATIONS) else allowed
        for term in terms:
            if term == "isnull":
                values = ["true", "false"]
            elif term == "in":
                values = [",".join(keys)] if keys else []
            else:
                values = keys[:1]
            for value in values:
                yield self.request(_query(self.uri, {f"{name}__{term}": value}))
        if allowed == ALL_WITH_RELATIONS and not isinstance(field.to, dict):
            # (Across a GenericForeignKeyField, whose ``to`` is {Model: Resource}, Django
            # cannot filter: no such requests.)
            related = field.get_related_resource(None)
            for related_name in list(related._meta.filtering)[:3]:
                related_field = related.fields.get(related_name)
                attribute = getattr(related_field, "attribute", None)
                if not isinstance(attribute, str) or getattr(related_field, "is_related", False):
                    continue
                for value in self.values(f"{field.attribute}__{attribute}", 1):
                    yield self.request(_query(self.uri, {f"{name}__{related_name}": text(value)}))

    def orderings(self) -> Iterator[Request]:
        for name in self.meta.ordering:
            for direction in ("", "-"):
                yield self.request(_query(self.uri, {"order_by": f"{direction}{name}"}))
        yield self.request(_query(self.uri, {"order_by": "djony_verify_unknown"}))

    def formats(self) -> Iterator[Request]:
        keys = self.keys()[:1]
        for fmt in self.resource._meta.serializer.formats:
            params = {"format": fmt}
            if fmt == "jsonp":
                params["callback"] = "verify"
            yield self.request(_query(self.uri, params))
            for key in keys:
                yield self.request(_query(f"{self.uri}{key}/", params))


def term_values(term: str, samples: list[Any], field: models.Field) -> list[str]:
    """Query-string values for ``field__term``: from ``samples``, one matching nothing and,
    where the field is not text, one malformed."""
    is_text = isinstance(field, (models.CharField, models.TextField))
    values: list[str] = []
    if term == "isnull":
        return ["true", "false", "maybe"]
    if term in ("in", "range"):
        pair = [text(v) for v in samples[:2]]
        if term == "range":
            pair = sorted(pair)
            if len(pair) == 1:
                pair = pair * 2
        return [",".join(pair)] if pair else []
    for sample in samples:
        if term in DATE_PARTS and hasattr(sample, "year"):
            values.append(str(date_part(sample, term)))
        elif term == "date" and isinstance(sample, datetime.datetime):
            values.append(sample.date().isoformat())
        elif term in TEXT_TERMS:
            values.append(text_term_value(term, text(sample)))
        else:
            values.append(text(sample))
    values.append(NO_MATCH if is_text or term in TEXT_TERMS else "0")
    if not is_text and term not in TEXT_TERMS:
        values.append(MALFORMED)
    return values


def text_term_value(term: str, value: str) -> str:
    if term in ("contains", "icontains"):
        value = value[1:4] or value
    elif term in ("startswith", "istartswith"):
        value = value[:2]
    elif term in ("endswith", "iendswith"):
        value = value[-2:]
    elif term in ("regex", "iregex"):
        value = "^" + re.escape(value[:2])
    return value.upper() if term.startswith("i") else value


def date_part(value: Any, term: str) -> int:
    iso = value.isocalendar() if hasattr(value, "isocalendar") else None
    parts: dict[str, Callable[[], int]] = {
        "week_day": lambda: value.isoweekday() % 7 + 1,
        "iso_week_day": lambda: value.isoweekday(),
        "week": lambda: iso.week,
        "iso_year": lambda: iso.year,
        "quarter": lambda: (value.month - 1) // 3 + 1,
    }
    return parts[term]() if term in parts else getattr(value, term, 0)


# -- writes -------------------------------------------------------------------------------
def write_requests(
    resource: Resource, using: str, fetch_json: Callable[[str], Any], uri: str = ""
) -> Iterator[Request]:
    """Writes built from the resource's fields and one existing row (what the resource allows).

    POSTs of new objects: with the required fields only (every optional one
    left out), with every field (every to-one and to-many given), with blank
    values where fields allow them; then PUT, PATCH and DELETE (detail and
    list) on a copy of the row (:mod:`.copies`), made in the request's
    transaction.  ``fetch_json(path)`` returns a detail as the API shows it; ``uri`` is
    the list URI (default: ``get_resource_uri()``).
    """
    generator = ResourceRequests(resource, using, sample=1, uri=uri)
    keys = generator.keys()
    if not keys:
        return
    key = keys[0]
    shown = fetch_json(f"{generator.uri}{key}/?format=json")
    if not isinstance(shown, dict):
        return
    model = generator.model
    full = writable_body(resource, shown)
    for name, value in related_values(resource, using).items():
        if not full.get(name):
            full[name] = value  # every to-one and to-many given
    full = {name: as_uri(value) for name, value in full.items()}
    list_methods = set(resource._meta.list_allowed_methods)
    detail_methods = set(resource._meta.detail_allowed_methods)

    def write(method: str, path: str, data: Any, **extra: Any) -> Request:
        return generator.request(path, method=method, body=json.dumps(data, default=str), **extra)

    if "post" in list_methods:
        bodies = [
            {n: v for n, v in full.items() if required(resource.fields[n])},
            full,
            {**{n: v for n, v in full.items() if required(resource.fields[n])},
             **blank_values(resource)},
        ]  # fmt: skip
        seen = []
        for body in bodies:
            body = uniquified(resource, body)
            if body is not None and body not in seen:
                seen.append(body)
                yield write("POST", generator.uri, body)
    if copies.copyable(model):
        target, copy = copies.free_key(model, using), {"copy_of": key}
    else:
        target, copy = key, {}  # no copy can be made: the row itself (rolled back alike)
    detail = f"{generator.uri}{target}/"
    changed_name = first_text_field(resource, unique=False) or first_text_field(resource, True)
    if changed_name:
        new = f"{shown.get(changed_name) or ''} (verify)"
        if "put" in detail_methods:
            body = uniquified(resource, {**full, changed_name: new})
            if body is not None:
                yield write("PUT", detail, body, key=target, **copy)
        if "patch" in detail_methods:
            yield write("PATCH", detail, {changed_name: new}, key=target, **copy)
    if "delete" in detail_methods:
        yield generator.request(detail, method="DELETE", key=target, **copy)
    pk_filter = generator.meta.filtering.get("id")
    if "delete" in list_methods and pk_filter is not None:
        path = _query(generator.uri, {"id": str(target)})
        yield generator.request(path, method="DELETE", key=target, **copy)


def required(field: Any) -> bool:
    """Whether Tastypie refuses a new object without ``field`` (no default, not null, not blank)."""
    return not (field.readonly or field.blank or field.null or field.has_default())


def blank_values(resource: Resource) -> dict[str, Any]:
    """An empty value for each writable text field that allows blank values."""
    values = {}
    for name, field in resource.fields.items():
        model_field = _model_field(resource, name)
        if (
            not field.readonly
            and isinstance(model_field, (models.CharField, models.TextField))
            and model_field.blank
            and not model_field.unique
        ):
            values[name] = ""
    return values


def related_values(resource: Resource, using: str, count: int = 2) -> dict[str, Any]:
    """For each writable related field, URIs of existing related rows (a list for a to-many)."""
    values: dict[str, Any] = {}
    for name, field in resource.fields.items():
        if not getattr(field, "is_related", False) or field.readonly:
            continue
        try:
            related = field.to_class()
            queryset = related._meta.queryset
            if queryset is None:
                continue
            objects = list(queryset._clone().using(using).order_by("pk")[:count])
            uris = [related.get_resource_uri(obj) for obj in objects]
        except Exception:  # noqa: BLE001 - a related resource without rows or URIs
            continue
        uris = [uri for uri in uris if uri]
        if uris:
            values[name] = uris if field.is_m2m else uris[0]
    return values


def as_uri(value: Any) -> Any:
    """A ``full=True`` related object shown as data, given back as its URI."""
    if isinstance(value, dict) and "resource_uri" in value:
        return value["resource_uri"]
    if isinstance(value, list):
        return [as_uri(v) for v in value]
    return value


def writable_body(resource: Resource, shown: dict) -> dict:
    """``shown`` without read-only fields and the key."""
    pk = resource._meta.object_class._meta.pk
    fields = resource.fields
    return {
        name: value
        for name, value in shown.items()
        if name in fields and not fields[name].readonly and fields[name].attribute != pk.name
    }


def _model_field(resource: Resource, name: str) -> models.Field | None:
    """The model field behind resource field ``name``: ``None`` for a computed field and
    for a reverse relation (a ``OneToOneRel``, which has no column of this model)."""
    attribute = getattr(resource.fields.get(name), "attribute", None)
    if not isinstance(attribute, str):
        return None
    try:
        found = resource._meta.object_class._meta.get_field(attribute)
    except FieldDoesNotExist:
        return None
    return found if isinstance(found, models.Field) else None


def first_text_field(resource: Resource, unique: bool) -> str | None:
    """The first writable text field (unique or not, as asked)."""
    for name, field in resource.fields.items():
        model_field = _model_field(resource, name)
        if (
            not field.readonly
            and isinstance(model_field, (models.CharField, models.TextField))
            and bool(model_field.unique) == unique
            and not model_field.choices
        ):
            return name
    return None


def uniquified(resource: Resource, body: dict) -> dict | None:
    """``body`` with every unique value changed, or ``None`` if one cannot be."""
    result = dict(body)
    for name in body:
        model_field = _model_field(resource, name)
        if model_field is None or not model_field.unique or model_field.primary_key:
            continue
        if not isinstance(model_field, (models.CharField, models.TextField)):
            return None
        suffix = "-verify"
        value = str(body[name] or "")
        limit = getattr(model_field, "max_length", None) or len(value) + len(suffix)
        result[name] = value[: limit - len(suffix)] + suffix
    return result


# -- a log file ------------------------------------------------------------------------------
LOG_PATH = re.compile(r'"GET (\S+) HTTP/[\d.]+"')


def from_log(path: Path, uris: dict[str, str]) -> Iterator[Request]:
    """GET paths from ``path``: one per line, or an access log's ``"GET /path HTTP/1.1"``.

    Only paths below a verified resource (``uris``: list URI -> itself) are kept.
    """
    for line in path.read_text(errors="replace").splitlines():
        match = LOG_PATH.search(line)
        target = match.group(1) if match else line.strip()
        if not target.startswith("/"):
            continue
        owner = max((uri for uri in uris if target.startswith(uri)), key=len, default=None)
        if owner is not None:
            yield Request(owner, "GET", target)
