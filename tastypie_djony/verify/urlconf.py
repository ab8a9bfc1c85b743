"""A copy of the project's URLconf with every verified resource replaced by its twin.

The copy keeps every pattern, name, namespace, prefix and non-Tastypie view;
only a view made by a resource's ``wrap_view`` is swapped for the same method
of that resource's twin.  So a request to the twin goes through the same
URL, the same middleware and the same ``reverse()`` results as one to the
original, and the answers can be compared as they are.

:func:`outside_urlconf` is another copy, for the timing: each verified resource's views
answer at once with an empty 200, so that a request to it costs only what lies outside
the resource (Django's request handling, the middleware, URL resolution).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from django.urls import URLPattern, URLResolver, get_resolver
from django.views.decorators.csrf import csrf_exempt

from tastypie_djony.verify.discovery import tastypie_view

HANDLERS = ("handler400", "handler403", "handler404", "handler500")


def mirror(patterns: list, replace: Callable[[Any], Any | None]) -> list:
    """``patterns`` rebuilt, with each view ``replace(view)`` returns something for replaced."""
    mirrored: list = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            mirrored.append(
                URLResolver(
                    pattern.pattern,
                    mirror(pattern.url_patterns, replace),
                    pattern.default_kwargs,
                    pattern.app_name,
                    pattern.namespace,
                )
            )
        elif isinstance(pattern, URLPattern):
            view = replace(pattern.callback)
            mirrored.append(
                pattern
                if view is None
                else URLPattern(pattern.pattern, view, pattern.default_args, pattern.name)
            )
        else:
            mirrored.append(pattern)
    return mirrored


def twin_urlconf(stand_ins: dict[int, Any], urlconf: Any = None) -> types.ModuleType:
    """A URLconf module where resource ``r`` is served by ``stand_ins[id(r)]``.

    ``urlconf`` is the project's (default ``ROOT_URLCONF``); its error handlers are kept.
    """

    def replace(callback: Any) -> Any | None:
        view = tastypie_view(callback)
        if view is None or id(view.owner) not in stand_ins:
            return None
        return stand_ins[id(view.owner)].wrap_view(view.method)

    return _copy("djony_verify_twin_urls", "The project's URLs, twins mounted.", replace, urlconf)


def outside_urlconf(resources: set[int], urlconf: Any = None) -> types.ModuleType:
    """A URLconf module where every view of the resources whose ``id()`` is in
    ``resources`` answers at once (an empty 200), exempt from CSRF as ``wrap_view``'s are."""

    def replace(callback: Any) -> Any | None:
        view = tastypie_view(callback)
        if view is None or id(view.owner) not in resources:
            return None
        return answer_at_once

    return _copy(
        "djony_verify_outside_urls", "The project's URLs, resources answering at once.",
        replace, urlconf,
    )  # fmt: skip


@csrf_exempt
def answer_at_once(request: Any, *args: Any, **kwargs: Any) -> HttpResponse:
    """A resource's view that does nothing: an empty 200."""
    return HttpResponse(b"")


def _copy(
    name: str, doc: str, replace: Callable[[Any], Any | None], urlconf: Any
) -> types.ModuleType:
    """A module holding ``urlconf``'s patterns, each view ``replace()`` answers for replaced,
    and its error handlers."""
    resolver = get_resolver(urlconf)
    module = types.ModuleType(name, doc)
    module.urlpatterns = mirror(resolver.url_patterns, replace)
    original = resolver.urlconf_module
    for handler in HANDLERS:
        if hasattr(original, handler):
            setattr(module, handler, getattr(original, handler))
    return module
