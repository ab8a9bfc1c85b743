"""Building sources and rows of their own columns the way a plan does."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from tastypie_djony.resources import DjonyResource
from tastypie_djony.sources import Page, Plan, Source, source_for
from tests.serve.unit_api import API_NAME, resource


def plan_of(resource_class: type, **options: Any) -> Plan:
    """A plan of a fresh ``resource_class`` instance (a list page of bundle-plan values)."""
    options = {"for_list": True, "simple": False, **options}
    return Plan(resource=resource(resource_class), base=DjonyResource, **options)


def source_of(plan: Plan, name: str) -> Source:
    """The source :func:`~tastypie_djony.sources.source_for` gives the field ``name``."""
    return source_for(plan, name, plan.resource.fields[name])


def bind(source: Source) -> list[str]:
    """Bind ``source`` to rows holding its own columns, in order; those columns."""
    columns = list(dict.fromkeys(source.columns()))
    source.bind(columns.index)
    return columns


def page_for(source: Source, rows: list[tuple], keys: list | None = None) -> Page:
    """A page of ``rows`` with this request's builder of each URI the source builds."""
    return Page(
        rows=rows,
        keys=keys or [],
        builders={uris: uris.builder() for uris in source.uris()},
    )


def detail_uri(resource_name: str, **key: Any) -> str:
    """Django's ``reverse()`` of a unit API resource's detail URL for ``key``."""
    kwargs = {"api_name": API_NAME, "resource_name": resource_name, **key}
    return reverse("api_dispatch_detail", kwargs=kwargs)


class NestedStub:
    """A nested plan (``Plan.nested_plan``'s answer), reduced to what a nested source asks."""

    def __init__(self, related: Any, depth: int) -> None:
        self.related = related
        self.depth = depth
        self.needed: list[str] = []

    @property
    def columns(self) -> list[str]:
        return self.needed

    def need(self, column: str) -> int:
        self.needed.append(column)
        return len(self.needed) - 1
