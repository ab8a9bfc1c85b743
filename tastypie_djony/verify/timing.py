"""How fast each side answers, measured so that the figure can be trusted.

After the comparison, each resource's GETs that both sides answered the same with a 200
(at most :data:`PER_RESOURCE` of them, spread over its kinds of request; the command's
``--timed-per-resource`` sets another number, 0 every one of them) are timed in
rounds: in each round every picked request of every resource, in a fresh order, on one
side, then in the same order on the other (which side goes first is drawn per round),
the garbage collected before each side's turn. Each request but a turn's first so
follows other requests of its own base, as on a server that runs one of them: sent
request by request, both sides in turn, the second ran right after the other base's code
had filled the processor's caches, which costs a small request of DjonyResource's (its
code beside Tastypie's) more than ModelResource's (a ``schema/`` of a few fields 0.9x
so, 1.05x each after its own base's requests). A request's ratio is the median over the
rounds of ModelResource's time over DjonyResource's (a round's two turns run moments
apart, so load that comes and goes cancels out); a resource's speed-up is the median of
its requests' ratios, its spread the 10th to 90th percentile of all their per-round
ratios. Fewer than :data:`MIN_ROUNDS` rounds (``--timing-seconds`` ran out first) give
no figure; ``--rounds`` below it is refused by the command. What lived before the
rounds (the project's modules, the comparison's leftovers) is frozen out of the
collector while they run (``gc.freeze()``): each turn's collection then walks only
what the rounds made, milliseconds where a full walk of a large project's heap took a
second of the ``--timing-seconds`` budget, and a collection the allocator starts
inside a turn costs either base the same little.

A third side, where the command gives one, is the same request with the resource's views
answering at once (:func:`tastypie_djony.verify.urlconf.outside_urlconf`): what the
request costs outside the resource's code (Django's request handling, the project's
middleware, URL resolution), which no base changes. Timed in the same rounds, in a turn
of its own, it gives each resource's ceiling: ModelResource's time over that, the most
any base could make these requests faster; and the speed-up inside the resource's code,
each side's time less that outside time (per request, from the medians; a request whose
time on either side is not above it gives none).
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

#: GETs timed per resource.
PER_RESOURCE = 6
#: Rounds below which no speed is told.
MIN_ROUNDS = 5
#: A timed request whose ratio is below this is counted as slower on DjonyResource.
SLOWER_THAN = 0.9


@dataclass(frozen=True)
class Speed:
    """One resource's timed GETs, both sides."""

    #: The median of its requests' median ratios (ModelResource ms / DjonyResource ms).
    speedup: float
    #: The 10th and 90th percentiles of all per-round ratios.
    low: float
    high: float
    #: The medians of each side's times, ms.
    model_ms: float
    djony_ms: float
    requests: int
    rounds: int
    #: Each timed request and its median ratio (for the figures per kind of request).
    by_request: tuple[tuple[Any, float], ...] = ()
    #: With a third side: the median time outside the resource's code, ms.
    outside_ms: float | None = None
    #: Each timed request and its ceiling, ModelResource's time over the outside time
    #: (with a third side).
    ceilings: tuple[tuple[Any, float], ...] = ()
    #: With a third side: the median over the requests of ModelResource's time inside the
    #: resource (its time less the outside time) over DjonyResource's.
    inside: float | None = None

    @property
    def ceiling(self) -> float | None:
        """The median of the requests' ceilings: the most any base makes them faster."""
        return statistics.median(value for _, value in self.ceilings) if self.ceilings else None

    @property
    def slower(self) -> bool:
        """Whether DjonyResource was slower in most rounds of nearly every request."""
        return self.high < 1

    def as_json(self) -> dict[str, Any]:
        return {
            "speedup": round(self.speedup, 3),
            "p10": round(self.low, 3),
            "p90": round(self.high, 3),
            "median_ms": {
                "ModelResource": round(self.model_ms, 3),
                "DjonyResource": round(self.djony_ms, 3),
            },
            "requests": self.requests,
            "rounds": self.rounds,
            "outside_ms": None if self.outside_ms is None else round(self.outside_ms, 3),
            "ceiling": None if self.ceiling is None else round(self.ceiling, 3),
            "inside_speedup": None if self.inside is None else round(self.inside, 3),
        }


def picked(
    outcomes: list[Any], kind_of: Callable[[Any], str], most: int = PER_RESOURCE
) -> list[Any]:
    """Up to ``most`` identical 200 GETs (0: all of them), taken in turn from each kind of
    request."""
    by_kind: dict[str, list[Any]] = {}
    for outcome in outcomes:
        answers = outcome.answers.values()
        if outcome.request.writes or not outcome.identical or outcome.improved:
            continue
        if any(answer.status != 200 for answer in answers):
            continue
        by_kind.setdefault(kind_of(outcome.request), []).append(outcome.request)
    most = most or sum(len(requests) for requests in by_kind.values())
    chosen: list[Any] = []
    while len(chosen) < most and any(by_kind.values()):
        for requests in by_kind.values():
            if requests and len(chosen) < most:
                chosen.append(requests.pop(0))
    return chosen


@contextmanager
def frozen_heap() -> Iterator[None]:
    """What is alive now left out of every garbage collection until the block ends
    (``gc.freeze()``; see the module); nothing done where the process froze objects
    itself (a server's preloaded heap: unfreezing would give them back)."""
    if gc.get_freeze_count():
        yield
        return
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def time_requests(
    send: Callable[[Any, Any], float],
    requests: dict[str, list[tuple[Any, list[Any]]]],
    rounds: int,
    deadline: float,
    seed: int = 1,
    collect: Callable[[], Any] = gc.collect,
) -> dict[str, Speed | None]:
    """The :class:`Speed` of each resource (``None``: too few rounds or requests).

    ``requests``: resource -> ``[(request, sides)]``, ``sides`` being ``[ModelResource
    side, DjonyResource side]`` and, optionally, the side that answers outside the
    resource's code (see the module); ``send(side, request)`` answers the seconds one
    request took; ``collect()`` runs before each turn (a full garbage collection of what
    is not frozen, :func:`frozen_heap` around the call: no turn pays for another's
    garbage).
    """
    rng = random.Random(seed)
    flat = [(resource, request, sides) for resource, pairs in requests.items()
            for request, sides in pairs]  # fmt: skip
    width = min((len(sides) for _, _, sides in flat), default=2)
    times: dict[int, list[list[float]]] = {i: [[] for _ in range(width)] for i in range(len(flat))}
    done = 0
    for _ in range(rounds):
        if time.monotonic() > deadline:
            break
        order = list(range(len(flat)))
        rng.shuffle(order)
        turns = list(range(width))
        rng.shuffle(turns)
        for side_index in turns:
            collect()
            for index in order:
                _resource, request, sides = flat[index]
                times[index][side_index].append(send(sides[side_index], request))
        done += 1
    speeds: dict[str, Speed | None] = {}
    for resource in requests:
        indexes = [i for i, (owner, _, _) in enumerate(flat) if owner == resource]
        speeds[resource] = _speed([times[i] for i in indexes], done, [flat[i][1] for i in indexes])
    return speeds


def _speed(
    samples: list[list[list[float]]], rounds: int, timed: list[Any] | None = None
) -> Speed | None:
    """``samples``: per request, each side's times (ModelResource's, DjonyResource's and,
    if timed, outside the resource's code)."""
    if rounds < MIN_ROUNDS or not samples:
        return None
    per_request, every_round, model, djony, by_request = [], [], [], [], []
    outside, ceilings, inside = [], [], []
    for index, (model_times, djony_times, *outside_times) in enumerate(samples):
        ratios = [m / d for m, d in zip(model_times, djony_times, strict=True) if d > 0]
        if not ratios:
            continue
        per_request.append(statistics.median(ratios))
        if timed is not None:
            by_request.append((timed[index], per_request[-1]))
        every_round.extend(ratios)
        model.append(statistics.median(model_times))
        djony.append(statistics.median(djony_times))
        if outside_times and statistics.median(outside_times[0]) > 0:
            outside.append(statistics.median(outside_times[0]))
            request = timed[index] if timed is not None else index
            ceilings.append((request, model[-1] / outside[-1]))
            if djony[-1] > outside[-1] and model[-1] > outside[-1]:
                inside.append((model[-1] - outside[-1]) / (djony[-1] - outside[-1]))
    if not per_request:
        return None
    deciles = statistics.quantiles(every_round, n=10) if len(every_round) > 1 else every_round * 9
    return Speed(
        speedup=statistics.median(per_request),
        low=deciles[0],
        high=deciles[-1],
        model_ms=1000 * statistics.median(model),
        djony_ms=1000 * statistics.median(djony),
        requests=len(per_request),
        rounds=rounds,
        by_request=tuple(by_request),
        outside_ms=1000 * statistics.median(outside) if outside else None,
        ceilings=tuple(ceilings),
        inside=statistics.median(inside) if inside else None,
    )


def median_speedup(speeds: list[Speed]) -> tuple[float, float, float] | None:
    """The median speed-up over resources, and the 10th and 90th percentiles of them."""
    return _median_and_deciles([speed.speedup for speed in speeds])


class OverRequests(NamedTuple):
    """The figures over every timed request of every resource (:func:`over_requests`)."""

    requests: int
    speedup: float
    p10: float
    p90: float
    #: The share of the requests whose ratio is below :data:`SLOWER_THAN`.
    share_below_0_9x: float


def over_requests(speeds: list[Speed]) -> OverRequests | None:
    """Over every timed request of every resource: how many, the median ratio, its 10th
    and 90th percentiles, and the share of requests below :data:`SLOWER_THAN`."""
    values = [ratio for speed in speeds for _request, ratio in speed.by_request]
    found = _median_and_deciles(values)
    if found is None:
        return None
    slower = sum(1 for value in values if value < SLOWER_THAN) / len(values)
    return OverRequests(len(values), *found, slower)


def _median_and_deciles(values: list[float]) -> tuple[float, float, float] | None:
    """The median of ``values`` and their 10th and 90th percentiles (``None``: none)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0], values[0], values[0]
    deciles = statistics.quantiles(sorted(values), n=10, method="inclusive")
    return statistics.median(values), deciles[0], deciles[-1]


def median_ceiling(speeds: list[Speed]) -> tuple[float, float, float | None] | None:
    """The medians over resources of the time outside their code (ms), of their ceiling
    and of their speed-up inside their code (``None``: no resource has one)."""
    found = [speed for speed in speeds if speed.ceilings]
    if not found:
        return None
    inside = [speed.inside for speed in found if speed.inside is not None]
    return (
        statistics.median(speed.outside_ms for speed in found),
        statistics.median(speed.ceiling for speed in found),
        statistics.median(inside) if inside else None,
    )
