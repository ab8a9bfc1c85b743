"""One URLconf per API, so no API pays for the others' URL patterns.

Tastypie builds every URI with ``reverse("api_dispatch_detail", ...)``, a name
that every Tastypie API shares; Django's ``reverse`` tries that name's patterns
one by one, so with the benchmark's 20-odd APIs in one URLconf a ModelResource
would spend its time scanning the other APIs' patterns (up to 4x slower on
the detail), which no real project with one API does.  This middleware gives
each request the URLconf of its API alone, as ``request.urlconf``, which
Django uses to resolve the request and for every ``reverse()`` during it:

* ``/api/<name>/...``: the patterns of API ``<name>`` only;
* ``/raw/...``: the raw floors with the ModelResource API whose URIs they write.

Anything else keeps ``benchmarks.urls`` (every API, for a person browsing).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from types import ModuleType

from django.http import HttpRequest, HttpResponseBase


@cache
def _urlconf(first: str, second: str) -> ModuleType | None:
    """The URLconf serving ``/<first>/<second>/``, built once (a hashable module object,
    as Django caches resolvers by URLconf)."""
    from benchmarks import urls

    patterns = urls.URLCONFS.get((first, second))
    if patterns is None:
        return None
    module = ModuleType(f"benchmarks.urlconfs.{first}.{second}")
    module.urlpatterns = patterns
    return module


class OneApiPerUrlconf:
    """Middleware: set ``request.urlconf`` to the URLconf of the requested API alone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        parts = request.path_info.split("/")
        if len(parts) > 3:
            urlconf = _urlconf(parts[1], parts[2])
            if urlconf is not None:
                request.urlconf = urlconf
        return self.get_response(request)
