"""Which Tastypie resources the URLconf serves, found by walking it.

Every URL pattern a Tastypie resource adds is a view made by
``Resource.wrap_view(name)``: a closure over the resource instance and the
method name.  Walking the resolver's tree and opening those closures finds
each resource instance exactly as it is mounted (its ``Api``, its
``api_name``), whatever ``include()``, namespaces or prefixes lie above it, and
the namespace its list URL is reversed through (:mod:`.namespaces`).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver
from tastypie.api import Api
from tastypie.resources import ModelResource, Resource

from tastypie_djony.resources import DjonyResource

#: The name Tastypie gives a resource's list URL.
LIST_URL = "api_dispatch_list"


@dataclass(frozen=True)
class TastypieView:
    """A URL pattern's view that a Tastypie ``Api`` or resource built."""

    owner: Any  # the Resource or Api instance
    method: str  # "dispatch_list", "get_schema", "top_level" ...


def tastypie_view(callback: Any, depth: int = 3) -> TastypieView | None:
    """The resource (or ``Api``) and method behind a view made by ``wrap_view``, if it is one.

    A ``wrap_view`` override that wraps Tastypie's view (``DjonyResource``'s does)
    is looked through, up to ``depth`` levels of closures.
    """
    function = inspect.unwrap(callback)
    code = getattr(function, "__code__", None)
    closure = getattr(function, "__closure__", None)
    if code is None or not closure:
        return None
    contents = {}
    for name, cell in zip(code.co_freevars, closure, strict=True):
        try:
            contents[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    owner, method = contents.get("self"), contents.get("view")
    if isinstance(owner, (Resource, Api)) and isinstance(method, str):
        return TastypieView(owner, method)
    if depth:
        for value in contents.values():
            if inspect.isfunction(value):
                found = tastypie_view(value, depth - 1)
                if found is not None:
                    return found
    return None


def walk(patterns: list, namespace: str = "") -> Iterator[tuple[URLPattern, str]]:
    """Every ``URLPattern`` below ``patterns``, depth first, with the namespace path it
    is reversed through (``"outer:api"``; ``""`` outside every namespaced include)."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = namespace
            if pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
            yield from walk(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            yield pattern, namespace


def is_verifiable(resource: Resource) -> bool:
    """Whether ``resource`` has a twin: a ``ModelResource`` or a ``DjonyResource``."""
    return isinstance(resource, (ModelResource, DjonyResource))


def base_name(resource: Resource) -> str:
    return "DjonyResource" if isinstance(resource, DjonyResource) else "ModelResource"


@dataclass
class Found:
    """What the URLconf serves: resources with a twin, and those without one."""

    resources: list[Resource]
    skipped: list[Resource]
    #: ``id(resource)`` -> the namespace path its list URL (``api_dispatch_list``) is
    #: mounted under (``""``: under no namespaced ``include()``).
    namespaces: dict[int, str] = field(default_factory=dict)


def find_resources(urlconf: Any = None) -> Found:
    """The resource instances mounted in ``urlconf`` (default: ``ROOT_URLCONF``), in URL order."""
    seen: dict[int, Resource] = {}
    namespaces: dict[int, str] = {}
    for pattern, namespace in walk(get_resolver(urlconf).url_patterns):
        view = tastypie_view(pattern.callback)
        if view is not None and isinstance(view.owner, Resource):
            seen.setdefault(id(view.owner), view.owner)
            if pattern.name == LIST_URL:
                namespaces.setdefault(id(view.owner), namespace)
    resources = list(seen.values())
    return Found(
        resources=[r for r in resources if is_verifiable(r)],
        skipped=[r for r in resources if not is_verifiable(r)],
        namespaces=namespaces,
    )
