"""``DJONY_VERIFY_FAST_PATH``: every answer a plan served, compared with the general path's.

With ``settings.DJONY_VERIFY_FAST_PATH = True`` each served request is rendered by
Tastypie's general path too, and :func:`check_same_answer` raises
:class:`FastPathMismatch` naming the first difference (status, ``Content-Type`` or
the byte of the body where they part).  A request whose hooks wrote is not rendered
again (:class:`Verification`): the second rendering would write a second time and show
the first one's writes.  For tests and staging, never for speed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from django.conf import settings

from djony.serving import writes_since


class FastPathMismatch(AssertionError):
    """``DJONY_VERIFY_FAST_PATH``: the fast path's answer is not the general path's."""


def verifying() -> bool:
    """Whether ``settings.DJONY_VERIFY_FAST_PATH`` asks to check every fast answer."""
    return bool(getattr(settings, "DJONY_VERIFY_FAST_PATH", False))


class Verification:
    """The moment a served request began, to compare its answer with the general path's
    unless something wrote since (a hook that saves, creates or updates)."""

    __slots__ = ("_since",)

    def __init__(self) -> None:
        self._since = writes_since()

    def check(self, resource: Any, request: Any, fast: Any, general: Callable[[], Any]) -> None:
        """:func:`check_same_answer` with ``general()``'s answer, unless the request wrote."""
        if self._since is not None and self._since.wrote():
            return  # running the hooks again would write again, and see the first writes
        check_same_answer(resource, request, fast, general())


def verification() -> Verification | None:
    """A :class:`Verification` from now when ``DJONY_VERIFY_FAST_PATH`` is on, else ``None``."""
    return Verification() if verifying() else None


def _same_rows_in_another_order(mine: bytes, theirs: bytes) -> bool:
    """Whether two JSON pages differ only in the order of their objects.

    Rows the ordering does not decide between (``order_by=country__name`` with
    two authors of one country) come in whatever order the database picks for
    each query, for ModelResource too: not a difference between the paths.
    """
    try:
        fast, general = json.loads(mine), json.loads(theirs)
    except ValueError:
        return False
    if not (isinstance(fast, dict) and isinstance(general, dict)):
        return False
    fast_objects, general_objects = fast.pop("objects", None), general.pop("objects", None)
    lists = isinstance(fast_objects, list) and isinstance(general_objects, list)
    if not lists or fast != general:
        return False
    key = functools.partial(json.dumps, sort_keys=True)
    return sorted(map(key, fast_objects)) == sorted(map(key, general_objects))


def _ordering_decides(resource: Any, request: Any) -> bool:
    """Whether a client's ``order_by`` decides the order of every row (ends on a key)."""
    requested = [value.lstrip("-") for value in request.GET.getlist("order_by")]
    if not requested:
        return True  # the resource's own ordering: the same query on both paths
    pk = resource._meta.object_class._meta.pk
    return any(name in ("pk", pk.name, pk.attname) for name in requested)


def check_same_answer(resource: Any, request: Any, fast: Any, general: Any) -> None:
    """Raise :class:`FastPathMismatch`, naming the first difference, unless both are equal."""
    for part, mine, theirs in (
        ("status", fast.status_code, general.status_code),
        ("Content-Type", fast.get("Content-Type"), general.get("Content-Type")),
        ("body", fast.content, general.content),
    ):
        if mine == theirs or (part == "body" and _same_rows_in_another_order(mine, theirs)):
            continue
        if part == "body" and not _ordering_decides(resource, request):
            continue  # ties may fall on either side of a page boundary, as for ModelResource
        detail = f"{mine!r} != {theirs!r}"
        if part == "body":
            at = next(
                (i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                min(len(mine), len(theirs)),
            )
            start = max(0, at - 60)
            detail = (
                f"at byte {at}: fast ...{mine[start : at + 60]!r}... general "
                f"...{theirs[start : at + 60]!r}..."
            )
        raise FastPathMismatch(
            f"{type(resource).__name__} {request.method} {request.get_full_path()}: the fast "
            f"path's {part} differs from the general path's: {detail}. Set Meta.fast_path = "
            "False on this resource and report the difference."
        )
