"""Tastypie's ``Paginator``, its ``next``/``previous`` links written without copying the query.

Tastypie's ``Paginator._generate_uri`` deep-copies the request's ``QueryDict`` (each of
its lists), deletes ``limit`` and ``offset``, appends the new ones and asks the copy for
its ``urlencode()``: on a small page that is a noticeable part of the request.
:class:`StockPaginator` writes the same string from the request's pairs directly, in the
same order and with the same encoding (``QueryDict.urlencode``'s: each pair encoded by
``urllib.parse.urlencode``).  It is used only in place of Tastypie's own ``Paginator``
(:func:`paginator_class`); a resource's own paginator class is used as it is.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict
from tastypie.paginator import Paginator

#: The parameters a page link sets itself.
PAGE_PARAMETERS = ("limit", "offset")


class StockPaginator(Paginator):
    """Tastypie's ``Paginator`` with :meth:`_generate_uri` writing its string directly."""

    def _generate_uri(self, limit: int, offset: int) -> str | None:
        data = self.request_data
        if self.resource_uri is None or type(data) is not QueryDict:
            return super()._generate_uri(limit, offset)
        pairs = [
            (name, value)
            for name, values in data.lists()
            if name not in PAGE_PARAMETERS
            for value in values
        ]
        pairs += (("limit", str(limit)), ("offset", str(offset)))
        encoding = data.encoding
        encoded = "&".join(
            urlencode({name.encode(encoding): str(value).encode(encoding)}) for name, value in pairs
        )
        return "%s?%s" % (self.resource_uri, encoded)  # noqa: UP031 (Tastypie's formatting)


def paginator_class(meta: Any) -> type:
    """The class to paginate with for a resource's ``Meta``: :class:`StockPaginator` in
    place of Tastypie's own ``Paginator``, any other class as it is."""
    kind = meta.paginator_class
    return StockPaginator if kind is Paginator else kind
