"""The format a request asks for, as Tastypie decides it, its ``Accept`` header matched once.

Tastypie's ``determine_format`` (``tastypie.utils.mime``) takes the ``format``
parameter, else JSONP for a ``callback``, else the best of the serializer's formats for
the ``Accept`` header (``mimeparse.best_match``), else the resource's default format.
Matching a browser's or an HTTP library's header (``application/json, text/plain,
*/*``) costs more than the rest of a small detail's format handling.  For a resource
whose ``determine_format`` is Tastypie's own, :func:`determine_format` takes the same
steps in the same order, and the match, a function of the serializer's formats and the
header alone, is kept per pair (a :class:`~djony.objects.kept.BoundedCache`; a header
``mimeparse`` refuses is the same 400 every time, never kept).  Anything else (an
override of ``determine_format``, on the class or the instance) is asked as Tastypie
asks it.
"""

from __future__ import annotations

from typing import Any

import mimeparse
import tastypie.resources
from tastypie.exceptions import BadRequest
from tastypie.resources import Resource
from tastypie.utils import mime

from djony.serving import BoundedCache

#: (the serializer's formats, best first reversed; an ``Accept`` header) -> the best
#: match, ``""`` when none.
_BEST_MATCH: BoundedCache = BoundedCache()


def determine_format(resource: Any, request: Any) -> str:
    """``resource.determine_format(request)`` (see the module)."""
    if (
        type(resource).determine_format is not Resource.determine_format
        or "determine_format" in vars(resource)
        or tastypie.resources.determine_format is not mime.determine_format
    ):
        return resource.determine_format(request)
    serializer = resource._meta.serializer
    requested = request.GET.get("format")
    if requested and requested in serializer.formats:
        return serializer.get_mime_for_format(requested)
    if "callback" in request.GET and "jsonp" in serializer.formats:
        return serializer.get_mime_for_format("jsonp")
    accept = request.META.get("HTTP_ACCEPT", "*/*")
    if accept != "*/*":
        best = best_match(serializer.supported_formats_reversed, accept)
        if best:
            return best
    return resource._meta.default_format


def best_match(supported: list[str], accept: str) -> str:
    """``mimeparse.best_match(supported, accept)``, once per pair; Tastypie's 400 for a
    header it refuses."""
    key = (tuple(supported), accept)
    try:
        return _BEST_MATCH[key]
    except KeyError:
        pass
    try:
        best = mimeparse.best_match(supported, accept)
    except ValueError:
        raise BadRequest("Invalid Accept header") from None
    _BEST_MATCH[key] = best
    return best
