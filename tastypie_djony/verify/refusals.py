"""Requests refused as 405 Method Not Allowed on both sides, and resources no GET reads.

A resource whose ``Meta.allowed_methods`` (or ``list_allowed_methods``,
``detail_allowed_methods``) leaves out ``get`` (a sign-up, a tracker that only
takes POSTs) answers its list or detail GETs with a 405 on either base.  Both
sides saying the same 405 is an answer compared, not an error that proves
nothing: :func:`refused_on_both` tells those answers apart, so they do not make
a resource "mostly errors on both sides".  :func:`not_readable` says which GETs
(lists, details or both) every answer refused; a resource none of whose list and
detail GETs is read is reported as "not readable" and is not timed (what Tastypie
still serves it for, ``schema/`` and ``set/``, would stand for the resource in the
median speed-up).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

NOT_ALLOWED = 405
#: The kinds of request (see ``report.request_kind``) that read the resource's rows.
READS = ("list", "detail")


def refused_on_both(outcome: Any) -> bool:
    """Whether both sides answered ``outcome``'s request 405 Method Not Allowed."""
    return all(answer.status == NOT_ALLOWED for answer in outcome.answers.values())


@dataclass(frozen=True)
class NotReadable:
    """The kinds of GET a resource refuses on both sides, and the methods it allows."""

    kinds: tuple[str, ...]  # "list", "detail" or both
    allow: str  # the 405's Allow header ("" when it had none)

    @property
    def whole(self) -> bool:
        """Whether neither its lists nor its details are read."""
        return set(self.kinds) == set(READS)

    def __str__(self) -> str:
        what = "GET" if self.whole else f"GET of a {self.kinds[0]}"
        allowed = f" (Allow: {self.allow})" if self.allow else ""
        return f"{what} answers {NOT_ALLOWED} on both sides{allowed}"


def not_readable(outcomes: list[Any], kind_of: Callable[[Any], str]) -> NotReadable | None:
    """The GETs (:data:`READS`) of ``outcomes`` that both sides refused every time, or
    ``None`` when each kind sent was read at least once."""
    by_kind: dict[str, list[Any]] = {}
    for outcome in outcomes:
        kind = kind_of(outcome.request)
        if outcome.request.method == "GET" and kind in READS:
            by_kind.setdefault(kind, []).append(outcome)
    refused = [
        kind for kind in READS if kind in by_kind and all(map(refused_on_both, by_kind[kind]))
    ]
    if not refused:
        return None
    first = by_kind[refused[0]][0].answers["ModelResource"]
    return NotReadable(tuple(refused), first.headers.get("Allow", ""))
