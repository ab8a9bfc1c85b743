"""What every field's source answers, and the page its values are read from.

A :class:`Source` is one shown field of a resource, built once per plan (resource, page
kind) from what is known before any row is read.  It answers:

* :attr:`Source.declined`: why the page's rows cannot give this field's value (then it is
  an :class:`ObjectSource`: the bundle plan leaves the field to its own ``dehydrate`` on
  the object, and the row-built plan cannot serve the resource), or ``None``;
* :meth:`Source.columns`: the columns of the page's one query it reads (Django names;
  ``pk`` for the primary key), and :attr:`Source.needs_pk` when it needs each row's key;
* :meth:`Source.prepare`: what it reads once for the whole page (the related keys of
  every owner, nested related rows), kept in the :class:`Page`;
* :meth:`Source.value`: its value for one row, as Tastypie's ``full_dehydrate`` leaves it
  (``simple``: as the serializer's ``to_simple`` then makes it), its null/default rule
  applied; raises :class:`~tastypie_djony.declines.Fallback` before any hook ran when a row
  needs the general path;
* :meth:`Source.lookups`: what ``prefetch_related`` needs for the field on the page's
  objects (the object path, :mod:`tastypie_djony.related`);
* :meth:`Source.uris`: the related resources' detail URIs it builds, so the page makes
  each builder once.

A new field kind is a subclass here and one entry in :data:`tastypie_djony.sources.SOURCES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import FieldDoesNotExist

from tastypie_djony.uris import DetailUris, uris_of


@dataclass
class Plan:
    """What a plan tells the sources it builds (one resource, one page kind)."""

    resource: Any
    #: The class whose methods are Tastypie's own here (``DjonyResource``).
    base: type
    for_list: bool
    #: Values as ``to_simple`` makes them (the row-built plan), else as ``convert`` leaves
    #: them (the bundle plan: what hooks find in ``bundle.data``).
    simple: bool
    #: ``full=True`` related resources above this one.
    depth: int = 0
    #: Builds the nested bundle plan of a related resource (``for_list=False``, ``depth``),
    #: or answers why there is none; ``None``: nested fields are not served from rows.
    nested_plan: Callable[[Any, int], Any] | None = None


@dataclass
class Page:
    """One page of rows and what its sources read once for it."""

    rows: list[tuple]
    #: Each row's primary key, when a source needs it.
    keys: list[Any]
    #: This request's URI builders, by the resource whose URIs they build.
    builders: dict[DetailUris, Callable[[Any], str]] = field(default_factory=dict)
    #: What each source prepared for the page, by source.
    data: dict[Any, Any] = field(default_factory=dict)
    #: The rows' objects when the page's one query built them already (``select_related``:
    #: their joined related objects too), else ``None``.
    built: list[Any] | None = None


class Source:
    """Where one shown field's value comes from (see the module)."""

    #: Why the page's rows cannot give this field's value, or ``None``.
    declined: str | None = None
    #: Whether :meth:`value` reads the row's primary key.
    needs_pk: bool = False

    def __init__(self, plan: Plan, name: str, field: Any) -> None:
        self.plan = plan
        self.name = name
        self.field = field

    def columns(self) -> list[str]:
        """The columns it reads from the page's query."""
        return []

    def bind(self, position: Callable[[str], int]) -> None:
        """Learn where its :meth:`columns` are in the plan's rows."""

    def uris(self) -> list[DetailUris]:
        """The detail URIs it builds (the page makes one builder of each)."""
        return []

    def prepare(self, page: Page) -> None:
        """Read what the whole page needs, once (into ``page.data[self]``)."""

    def value(self, row: tuple, page: Page) -> Any:
        """Its value for ``row``."""
        raise NotImplementedError(f"{type(self).__name__} serves no rows: {self.declined}")

    def lookups(self, depth: int) -> list[str]:
        """What ``prefetch_related`` loads for this field on the page's objects."""
        return []


class ObjectSource(Source):
    """A field the rows cannot give: its own ``dehydrate`` on the object (the bundle plan's)."""

    def __init__(self, plan: Plan, name: str, field: Any, reason: str) -> None:
        super().__init__(plan, name, field)
        self.declined = reason


def model_field(plan: Plan, attribute: Any) -> tuple[Any, str | None]:
    """The concrete model field ``attribute`` names, or ``(None, why not)``."""
    if attribute is None:
        return None, "no attribute (the value is its default or a hook's)"
    if callable(attribute):
        return None, "a callable attribute (only an object can give its value)"
    if not isinstance(attribute, str) or "__" in attribute:
        return None, f"attribute {attribute!r} follows a relation"
    try:
        found = plan.resource._meta.object_class._meta.get_field(attribute)
    except FieldDoesNotExist:
        return None, f"attribute {attribute!r} is not a model field"
    if found.name != attribute and getattr(found, "attname", None) != attribute:
        return None, f"attribute {attribute!r} is a query name"
    return found, None


def key_uris(resource: Any) -> tuple[DetailUris | None, str | None]:
    """``resource``'s :class:`DetailUris` when they are a function of the key, or why not."""
    uris = uris_of(resource)
    if not uris.from_key:
        return None, f"{type(resource).__name__} builds its URIs itself"
    return uris, None
