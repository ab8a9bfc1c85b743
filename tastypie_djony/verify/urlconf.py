"""A copy of the project's URLconf with every verified resource replaced by its twin.

The copy keeps every pattern, name, namespace, prefix and non-Tastypie view;
only a view made by a resource's ``wrap_view`` is swapped for the same method
of that resource's twin.  So a request to the twin goes through the same
URL, the same middleware and the same ``reverse()`` results as one to the
original, and the answers can be compared as they are.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver

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

    resolver = get_resolver(urlconf)
    module = types.ModuleType("djony_verify_twin_urls", "The project's URLs, twins mounted.")
    module.urlpatterns = mirror(resolver.url_patterns, replace)
    original = resolver.urlconf_module
    for name in HANDLERS:
        if hasattr(original, name):
            setattr(module, name, getattr(original, name))
    return module
