"""What ``djony_verify`` prints: a table per resource, then the first differences.

The table gives, per resource, the requests sent, how many answers were
identical, how many differed, how many were ModelResource 500s that
DjonyResource answers with a 4xx (better, never worse), with ``--writes`` how
many writes succeeded on both sides, each side's median time and the speed-up
with its spread, from the interleaved rounds of :mod:`tastypie_djony.verify.timing`
(``-`` where too few rounds ran, and for a resource no GET reads:
:mod:`tastypie_djony.verify.refusals`), the most any base could make it faster, the share
of DjonyResource's time in the project's own code (:mod:`tastypie_djony.verify.owners`),
and which path serves the DjonyResource side's
JSON lists and details (:func:`served_line`: the plans, or Tastypie's general path
and why).  :func:`as_json` is the same as data, for ``--json``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tastypie_djony.verify.differences import answer_difference
from tastypie_djony.verify.refusals import NotReadable
from tastypie_djony.verify.running import Outcome
from tastypie_djony.verify.timing import (
    SLOWER_THAN,
    Speed,
    median_ceiling,
    median_speedup,
    over_requests,
)

SIDES = ("ModelResource", "DjonyResource")


@dataclass
class ResourceSummary:
    """The outcomes of one resource's requests."""

    uri: str
    base: str  # what the project's resource is built on
    outcomes: list[Outcome] = field(default_factory=list)
    #: Requests the command could not send: (the request, what it raised).
    not_sent: list[tuple[str, str]] = field(default_factory=list)
    #: The timed rounds' figures (``None``: too few rounds, or none timed).
    speed: Speed | None = None
    #: Page kind -> the path serving the DjonyResource side's JSON pages of it.
    served_by: dict[str, str] = field(default_factory=dict)
    #: The GETs both sides refuse with a 405 (``None``: its lists and details are read).
    not_readable: NotReadable | None = None
    #: The share of DjonyResource's time in the project's own code, sampled
    #: (:mod:`tastypie_djony.verify.owners`; ``None``: not sampled).
    own_code: float | None = None

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
        """The timed rounds' median ms of ``side`` (``None`` without enough rounds)."""
        if self.speed is None:
            return None
        return self.speed.model_ms if side == "ModelResource" else self.speed.djony_ms

    def by_kind(self) -> dict[str, tuple[float, float]]:
        """Median milliseconds of each side per kind of request (list, detail, ...), of the
        comparison's one answer to each request: the first, cold, never a speed figure
        (those are the timed rounds': :func:`speedup_by_kind`)."""
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
        """For a resource DjonyResource served more slowly in nine rounds of ten: where."""
        if self.speed is None or not self.speed.slower:
            return None
        paths = "; ".join(f"{page}s: {path}" for page, path in self.served_by.items())
        return (
            f"{self.uri}: DjonyResource is slower here ({self.speed.speedup:.2f}x, "
            f"{self.speed.low:.2f}-{self.speed.high:.2f} over {self.speed.rounds} rounds)"
            + (f"; {paths}" if paths else "")
        )

    def speedup(self) -> float | None:
        return self.speed.speedup if self.speed is not None else None

    def own_code_ceiling(self) -> float | None:
        """The most any base could make this resource faster with the project's own code
        in it and the time outside it as they are: ModelResource's time over the outside
        time plus that code's share of DjonyResource's time (``None``: not both measured)."""
        speed = self.speed
        if speed is None or speed.outside_ms is None or self.own_code is None:
            return None
        floor = speed.outside_ms + self.own_code * speed.djony_ms
        return speed.model_ms / floor if floor > 0 else None

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
            "not_readable": str(self.not_readable) if self.not_readable else None,
            "median_ms": {side: _round(self.median_ms(side)) for side in SIDES},
            "speedup": _round(self.speedup()),
            "timing": self.speed.as_json() if self.speed is not None else None,
            "own_code_share": _round(self.own_code),
            "own_code_ceiling": _round(self.own_code_ceiling()),
            "timed": self._timed_json(),
            "served_by": dict(self.served_by),
            "speedup_by_kind": {
                kind: {"speedup": round(speedup, 3), "requests": count}
                for kind, (speedup, count) in sorted(speedup_by_kind([self]).items())
            },
            "first_answer_ms_by_kind": {
                kind: dict(zip(SIDES, map(_round, times), strict=True))
                for kind, times in sorted(self.by_kind().items())
            },
        }

    def _timed_json(self) -> list[dict[str, Any]]:
        if self.speed is None:
            return []
        ceilings = {id(request): ceiling for request, ceiling in self.speed.ceilings}
        return [
            {
                "path": request.path,
                "speedup": round(ratio, 3),
                "ceiling": _round(ceilings.get(id(request))),
            }
            for request, ratio in self.speed.by_request
        ]


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
         "speed-up", "p10-p90", "at most", "own code", "lists / details by"),
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
                _times(speed),
                f"{summary.speed.low:.1f}-{summary.speed.high:.1f}" if summary.speed else "-",
                _times(summary.speed.ceiling if summary.speed else None),
                _percent(summary.own_code),
                " / ".join(_short(summary.served_by.get(page, "")) for page in ("list", "detail")),
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


#: A path's name in the table (the full text, with the reason, in :func:`served_line`).
SHORT = {"the row-built plan": "rows", "the bundle plan": "bundles"}


def _short(path: str) -> str:
    if not path:
        return "-"
    return SHORT.get(path, "general")


def served_line(summary: ResourceSummary) -> str | None:
    """Why the DjonyResource side's lists or details take Tastypie's general path, if they do."""
    general = [
        f"{page}s: {path.split(': ', 1)[1]}"
        for page, path in summary.served_by.items()
        if _short(path) == "general"
    ]
    if not general:
        return None
    return f"general path: {summary.uri}: " + "; ".join(general)


def speedup_line(summaries: Iterable[ResourceSummary]) -> str | None:
    """The median speed-up over the resources timed, with their 10th-90th percentile."""
    speeds = [summary.speed for summary in summaries if summary.speed is not None]
    found = median_speedup(speeds)
    if found is None:
        return None
    median, low, high = found
    return (
        f"DjonyResource's median speed-up over {len(speeds)} resources timed: {median:.2f}x "
        f"(10th-90th percentile of the resources: {low:.2f}x-{high:.2f}x; each resource's "
        f"from {speeds[0].rounds} rounds, each base in its own turn)"
    )


def requests_line(summaries: Iterable[ResourceSummary]) -> str | None:
    """The median speed-up over every timed request of every resource, its spread, and
    the share of requests DjonyResource answered below 0.9x ModelResource's speed."""
    found = over_requests([s.speed for s in summaries if s.speed is not None])
    if found is None:
        return None
    return (
        f"Over the {found.requests} timed requests: a median speed-up of {found.speedup:.2f}x "
        f"(10th-90th percentile {found.p10:.2f}x-{found.p90:.2f}x), "
        f"{100 * found.share_below_0_9x:.1f}% of them below "
        f"{SLOWER_THAN}x (--timed-per-resource 0 times every identical 200 GET)"
    )


def ceiling_line(summaries: Iterable[ResourceSummary]) -> str | None:
    """What the timed requests cost outside the resources' code, and so the most any base
    could make them faster (the table's "at most"), and how much faster DjonyResource
    answered inside the resources' code, medians over the resources."""
    found = median_ceiling([summary.speed for summary in summaries if summary.speed is not None])
    if found is None:
        return None
    outside_ms, ceiling, inside = found
    inside_text = (
        f"; inside the resources' code DjonyResource answered {inside:.2f}x faster"
        if inside is not None
        else ""
    )
    return (
        f"Outside the resources' code (the same requests with each resource's views answering "
        f"at once: Django's request handling, the middleware, URL resolution; the same on both "
        f"bases): {outside_ms:.2f} ms a request, so no base could answer them more than "
        f"{ceiling:.2f}x faster than ModelResource{inside_text} (medians over the resources; "
        'the table\'s "at most")'
    )


def own_code_line(summaries: Iterable[ResourceSummary]) -> str | None:
    """How much of DjonyResource's time the project's own code in the resources took (the
    table's "own code"): the median over the resources sampled, the most of them, and the
    most any base could make them faster with that code and the time outside them as
    they are (:meth:`ResourceSummary.own_code_ceiling`)."""
    sampled = [summary for summary in summaries if summary.own_code is not None]
    if not sampled:
        return None
    median = statistics.median(summary.own_code for summary in sampled)
    most = max(sampled, key=lambda summary: summary.own_code)
    ceilings = [c for c in (summary.own_code_ceiling() for summary in sampled) if c is not None]
    bound = (
        ": with it and the time outside them as they are, no base could answer them more "
        f"than {statistics.median(ceilings):.2f}x faster than ModelResource (median over "
        "the resources)"
        if ceilings
        else ""
    )
    return (
        "The project's own code in the resources (its hooks, authorization, get_object_list, "
        "model methods and managers, with the queries they build and run), sampled on "
        f"DjonyResource: {_percent(median)} of a request's time (median over {len(sampled)} "
        f"resources; the most, {_percent(most.own_code)}, {most.uri}). It runs as on "
        f"ModelResource{bound}"
    )


#: The kinds of timed request the summary gives a figure for, in this order.
TIMED_KINDS = (
    ("list", "list pages"),
    ("every row", "limit=0"),
    ("detail", "details"),
    ("set", "set/"),
    ("schema", "schema/"),
)


def timed_kind(request: Any, uri: str) -> str:
    """:func:`request_kind`, a list of every row (``limit=0``) a kind of its own."""
    kind = request_kind(request, uri)
    if kind == "list" and "limit=0" in request.path.partition("?")[2].split("&"):
        return "every row"
    return kind


def speedup_by_kind(summaries: Iterable[ResourceSummary]) -> dict[str, tuple[float, int]]:
    """Per kind of request, the median of every timed request's ratio, and how many."""
    return _median_by_kind(summaries, lambda speed: speed.by_request)


def ceiling_by_kind(summaries: Iterable[ResourceSummary]) -> dict[str, tuple[float, int]]:
    """Per kind of request, the median of every timed request's ceiling, and how many."""
    return _median_by_kind(summaries, lambda speed: speed.ceilings)


def _median_by_kind(
    summaries: Iterable[ResourceSummary], figures: Callable[[Speed], Iterable[tuple[Any, float]]]
) -> dict[str, tuple[float, int]]:
    found: dict[str, list[float]] = {}
    for summary in summaries:
        if summary.speed is None:
            continue
        for request, value in figures(summary.speed):
            found.setdefault(timed_kind(request, summary.uri), []).append(value)
    return {kind: (statistics.median(values), len(values)) for kind, values in found.items()}


def speedup_by_kind_line(summaries: Iterable[ResourceSummary]) -> str | None:
    """The median speed-up per kind of request over every resource's timed requests: a
    resource's figure is the median of its few timed requests, which a cheap detail and
    its ``schema/`` decide even where its list pages are many times faster. Where the
    requests were timed outside the resources' code too, each kind's median ceiling."""
    summaries = list(summaries)
    found = speedup_by_kind(summaries)
    if not found:
        return None
    ceilings = ceiling_by_kind(summaries)
    parts = [
        f"{label} {found[kind][0]:.2f}x ({found[kind][1]}"
        + (f", at most {ceilings[kind][0]:.2f}x)" if kind in ceilings else ")")
        for kind, label in TIMED_KINDS
        if kind in found
    ]
    return "By kind of request (median over the timed requests, how many): " + ", ".join(parts)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _times(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}x"


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
    ceilings = ceiling_by_kind(summaries)
    requests = over_requests([s.speed for s in summaries if s.speed is not None])
    return {
        **meta,
        "resources": [s.as_json() for s in summaries],
        "speedup_over_requests": None
        if requests is None
        else {name: _round(value) for name, value in requests._asdict().items()},
        "speedup_by_kind": {
            kind: {
                "speedup": round(ratio, 3),
                "requests": count,
                "ceiling": _round(ceilings[kind][0]) if kind in ceilings else None,
            }
            for kind, (ratio, count) in speedup_by_kind(summaries).items()
        },
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
