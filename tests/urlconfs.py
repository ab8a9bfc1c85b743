"""One URLconf per mounted API for each request, as a project that mounts one API has.

The test URLconfs mount the same API several times (``tests.urls``: ``/v2/``,
``/v3/``, ``/v3o/`` beside the zoo and the patterns corpus; ``tests.security.urls``,
``tests.write.urls``: ModelResource and DjonyResource twins).  Tastypie names every
detail URL ``api_dispatch_detail``, and Django's ``reverse()`` tries each pattern of
that name in turn: in ``tests.urls`` more than 200 per URI, and ModelResource's
``full=True`` pages spent most of the suite's time there.  This middleware (the test
settings' first) gives each request a URLconf holding only the top-level include of
the root URLconf its path resolves under, plus the root's plain patterns (the pages a
model's ``get_absolute_url`` reverses): the same patterns under the same paths, so
the answers do not change, only the cost of building them.  ``reverse()`` outside a
request still sees the whole root URLconf.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.urls import URLResolver
from django.urls.exceptions import Resolver404
from django.utils.module_loading import import_string


class URLconf:
    """A URLconf made of a list of patterns (what ``request.urlconf`` may name)."""

    def __init__(self, urlpatterns: list) -> None:
        self.urlpatterns = urlpatterns


@cache
def _urlconfs(root: str) -> list[tuple[URLResolver, URLconf]]:
    patterns = import_string(f"{root}.urlpatterns")
    plain = [entry for entry in patterns if not isinstance(entry, URLResolver)]
    return [
        (entry, URLconf([entry, *plain])) for entry in patterns if isinstance(entry, URLResolver)
    ]


def urlconf_for(root: str, path: str) -> URLconf | None:
    """The URLconf of the part of ``root`` that serves ``path``, or ``None``."""
    for entry, urlconf in _urlconfs(root):
        try:
            entry.resolve(path.lstrip("/"))
        except Resolver404:
            continue
        return urlconf
    return None


class URLconfPerAPIMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if not hasattr(request, "urlconf"):  # one chosen before (djony_verify's) is kept
            urlconf = urlconf_for(settings.ROOT_URLCONF, request.path_info)
            if urlconf is not None:
                request.urlconf = urlconf
        return self.get_response(request)
