"""The order requests are sent in, and what ``--max-requests`` and ``--seconds`` leave out.

Each resource's requests (its writes first, then its GETs, then the paths of
``--from-log``) are interleaved, one of each resource in turn, so that a cap cuts
every resource's tail rather than the last resources whole.  The requests the cap
cuts off, and those the clock leaves unsent when ``--seconds`` runs out, are
counted per resource (:class:`LeftOut`): the report says how many were not sent
and of which resources.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

#: Resources named on the report's ``left out`` line (the JSON report has them all).
NAMED = 8


def interleaved(plans: Iterable[list[Any]]) -> list[Any]:
    """The first request of each plan, then the second of each, ..."""
    return [request for group in zip_longest(*plans) for request in group if request is not None]


@dataclass(frozen=True)
class LeftOut:
    """The requests one bound of the run kept from being sent."""

    option: str  # "--max-requests" or "--seconds"
    limit: float
    #: resource -> requests not sent.
    by_resource: dict[str, int]
    #: resource -> requests made for it (sent or not).
    planned: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.by_resource.values())

    def line(self) -> str:
        """``not sent: N of M requests (--max-requests 7): /api/a/ 5 of 9, ...``."""
        worst = sorted(self.by_resource.items(), key=lambda item: (-item[1], item[0]))
        named = [f"{uri} {count} of {self.planned[uri]}" for uri, count in worst[:NAMED]]
        if len(worst) > NAMED:
            named.append(f"and {len(worst) - NAMED} more resources (all in --json)")
        return (
            f"not sent: {self.total} of {sum(self.planned.values())} requests, cut off by "
            f"{self.option} {_number(self.limit)}: {', '.join(named)}"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "option": self.option,
            "limit": self.limit,
            "requests": self.total,
            "by_resource": dict(sorted(self.by_resource.items())),
        }


def left_out(option: str, limit: float, unsent: list[Any], queue: list[Any]) -> LeftOut | None:
    """What ``unsent`` (requests of ``queue``, the whole plan) leaves out, or ``None``."""
    if not unsent:
        return None
    planned = Counter(request.resource for request in queue)
    by_resource = Counter(request.resource for request in unsent)
    return LeftOut(option, limit, dict(by_resource), dict(planned))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
