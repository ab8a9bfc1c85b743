"""What ``djony_verify`` prints: a table per resource, then the first differences.

The table gives, per resource, the requests sent, how many answers were
identical, how many differed, how many were ModelResource 500s that
DjonyResource answers with a 4xx (better, never worse), the median
time of each side and the speed-up (ModelResource's median over
DjonyResource's), and with ``--writes`` how many writes succeeded on both
sides.  :func:`as_json` is the same as data, for ``--json``.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tastypie_djony.verify.differences import answer_difference
from tastypie_djony.verify.running import Outcome

SIDES = ("ModelResource", "DjonyResource")


@dataclass
class ResourceSummary:
    """The outcomes of one resource's requests."""

    uri: str
    base: str  # what the project's resource is built on
    outcomes: list[Outcome] = field(default_factory=list)
    #: Requests the command could not send: (the request, what it raised).
    not_sent: list[tuple[str, str]] = field(default_factory=list)

    @property
    def different(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.identical]

    @property
    def volatile(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.volatile]

    @property
    def improved(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.improved]

    @property
    def writes(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.request.writes]

    @property
    def writes_succeeded(self) -> list[Outcome]:
        """Writes that both sides carried out (a 2xx answer on each)."""
        return [o for o in self.writes if all(a.status < 300 for a in o.answers.values())]

    def median_ms(self, side: str) -> float | None:
        times = [o.answers[side].seconds for o in self.outcomes]
        return 1000 * statistics.median(times) if times else None

    def by_kind(self) -> dict[str, tuple[float, float]]:
        """Median milliseconds of each side per kind of request (list, detail, ...)."""
        kinds: dict[str, list[Outcome]] = {}
        for outcome in self.outcomes:
            kinds.setdefault(request_kind(outcome.request, self.uri), []).append(outcome)
        return {
            kind: tuple(
                1000 * statistics.median(o.answers[side].seconds for o in outcomes)
                for side in SIDES
            )
            for kind, outcomes in kinds.items()
        }

    def where_the_time_goes(self) -> str | None:
        """For a resource DjonyResource serves more slowly: the speed-up per kind of request."""
        speed = self.speedup()
        if speed is None or speed >= 1:
            return None
        parts = [
            f"{kind} {model / djony:.1f}x ({model:.2f} / {djony:.2f} ms)"
            for kind, (model, djony) in sorted(self.by_kind().items())
            if djony
        ]
        return f"{self.uri}: DjonyResource is slower here; by request: " + ", ".join(parts)

    def speedup(self) -> float | None:
        model, djony = self.median_ms("ModelResource"), self.median_ms("DjonyResource")
        return model / djony if model and djony else None

    def as_json(self) -> dict[str, Any]:
        return {
            "resource": self.uri,
            "base": self.base,
            "requests": len(self.outcomes),
            "identical": len(self.outcomes)
            - len(self.different)
            - len(self.improved)
            - len(self.volatile),
            "different": len(self.different),
            "improved": len(self.improved),
            "volatile": len(self.volatile),
            "writes": len(self.writes),
            "writes_succeeded_on_both_sides": len(self.writes_succeeded),
            "not_sent": len(self.not_sent),
            "median_ms": {side: _round(self.median_ms(side)) for side in SIDES},
            "speedup": _round(self.speedup()),
            "median_ms_by_request": {
                kind: dict(zip(SIDES, map(_round, times), strict=True))
                for kind, times in sorted(self.by_kind().items())
            },
        }


def request_kind(request: Any, uri: str) -> str:
    """``list``, ``detail``, ``schema``, ``set`` or ``write``."""
    if request.writes:
        return "write"
    path = request.path.split("?", 1)[0]
    if path.endswith("/schema/"):
        return "schema"
    if "/set/" in path[len(uri) - 1 :]:
        return "set"
    return "list" if path == uri else "detail"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def table(summaries: Iterable[ResourceSummary], writes: bool = False) -> str:
    """One line per resource, with a header; ``writes``: how many writes succeeded on both
    sides, of how many sent."""
    rows = [
        ("resource", "requests", "identical", "different", "improved", "volatile",
         *(("writes ok",) if writes else ()), "ModelResource ms", "DjonyResource ms",
         "speed-up"),
    ]  # fmt: skip
    for summary in summaries:
        data = summary.as_json()
        speed = data["speedup"]
        rows.append(
            (
                f"{summary.uri} ({summary.base})",
                str(data["requests"]),
                str(data["identical"]),
                str(data["different"]),
                str(data["improved"]),
                str(data["volatile"]),
                *(
                    (f"{data['writes_succeeded_on_both_sides']}/{data['writes']}",)
                    if writes
                    else ()
                ),
                _ms(data["median_ms"]["ModelResource"]),
                _ms(data["median_ms"]["DjonyResource"]),
                f"{speed:.1f}x" if speed else "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells))
    return "\n".join(lines)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def difference_text(outcome: Outcome, limit: int = 600) -> str:
    """The request, the differing part and both answers."""
    model, djony = outcome.answers["ModelResource"], outcome.answers["DjonyResource"]
    lines = [
        f"{outcome.request}",
        f"  differs: {outcome.difference}",
        f"  ModelResource: {model.status} {model.content_type}",
        _indent(model.text(limit)),
        f"  DjonyResource: {djony.status} {djony.content_type}",
        _indent(djony.text(limit)),
    ]
    return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in (text or "(empty body)").splitlines())


def as_json(summaries: list[ResourceSummary], meta: dict[str, Any]) -> dict[str, Any]:
    """Everything: per resource the figures, and every difference and improvement."""
    return {
        **meta,
        "resources": [s.as_json() for s in summaries],
        "differences": [_outcome_json(o) for s in summaries for o in s.different],
        "improved": [_outcome_json(o) for s in summaries for o in s.improved],
        "writes": [
            {
                "resource": o.request.resource,
                "method": o.request.method,
                "path": o.request.path,
                "body": o.request.body,
                "identical": o.identical,
                **{side: o.answers[side].status for side in SIDES},
            }
            for s in summaries
            for o in s.writes
        ],  # fmt: skip
    }


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    model, djony = outcome.answers["ModelResource"], outcome.answers["DjonyResource"]
    return {
        "resource": outcome.request.resource,
        "method": outcome.request.method,
        "path": outcome.request.path,
        "body": outcome.request.body,
        "difference": outcome.difference or answer_difference(model, djony),
        "ModelResource": {"status": model.status, "body": model.text(4000)},
        "DjonyResource": {"status": djony.status, "body": djony.text(4000)},
    }
