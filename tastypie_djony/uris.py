"""Detail URIs built from a prefix resolved once, not one ``reverse()`` per object.

Django's ``reverse()`` costs tens of microseconds; a list of 1000 users with
their permissions calls it thousands of times.  For an integer key the URI
is ``prefix + str(pk) + suffix``: :class:`DetailUriTemplate` reverses once
with a sentinel key (per script prefix and URLconf, so ``SCRIPT_NAME`` and
per-request ``urlconf`` keep working) and splits the result around it.
Resources that override how URIs are built keep calling ``reverse()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import NoReverseMatch, get_script_prefix, get_urlconf

_SENTINEL = 7919_0000_0000_0000_7919


class DetailUriTemplate:
    """``prefix``/``suffix`` around the key in one resource's detail URI."""

    def __init__(self, reverse_detail: Callable[[Any], str]) -> None:
        self._reverse_detail = reverse_detail
        self._parts: dict[tuple, tuple[str, str] | None] = {}

    def parts(self) -> tuple[str, str] | None:
        key = (get_script_prefix(), get_urlconf())
        try:
            return self._parts[key]
        except KeyError:
            pass
        try:
            uri = self._reverse_detail(_SENTINEL)
        except NoReverseMatch:
            uri = ""
        marker = str(_SENTINEL)
        parts = None
        if uri.count(marker) == 1:
            prefix, suffix = uri.split(marker)
            parts = (prefix, suffix)
        self._parts[key] = parts
        return parts

    def builder(self) -> Callable[[int], str] | None:
        """A function key -> URI for this request's prefix, or ``None``."""
        parts = self.parts()
        if parts is None:
            return None
        prefix, suffix = parts
        return lambda pk: f"{prefix}{pk}{suffix}"

    def uri(self, pk: int) -> str | None:
        """The detail URI for integer ``pk``, or ``None`` to fall back to ``reverse()``."""
        parts = self.parts()
        if parts is None:
            return None
        return f"{parts[0]}{pk}{parts[1]}"
