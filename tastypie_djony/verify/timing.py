"""How fast each side answers, measured so that the figure can be trusted.

After the comparison, each resource's GETs that both sides answered the same with a 200
(at most :data:`PER_RESOURCE` of them, spread over its kinds of request) are timed in
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
no figure; ``--rounds`` below it is refused by the command.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: GETs timed per resource.
PER_RESOURCE = 6
#: Rounds below which no speed is told.
MIN_ROUNDS = 5


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
        }


def picked(outcomes: list[Any], kind_of: Callable[[Any], str]) -> list[Any]:
    """Up to :data:`PER_RESOURCE` identical 200 GETs, taken in turn from each kind of request."""
    by_kind: dict[str, list[Any]] = {}
    for outcome in outcomes:
        answers = outcome.answers.values()
        if outcome.request.writes or not outcome.identical or outcome.improved:
            continue
        if any(answer.status != 200 for answer in answers):
            continue
        by_kind.setdefault(kind_of(outcome.request), []).append(outcome.request)
    chosen: list[Any] = []
    while len(chosen) < PER_RESOURCE and any(by_kind.values()):
        for requests in by_kind.values():
            if requests and len(chosen) < PER_RESOURCE:
                chosen.append(requests.pop(0))
    return chosen


def time_requests(
    send: Callable[[Any, Any], float],
    requests: dict[str, list[tuple[Any, list[Any]]]],
    rounds: int,
    deadline: float,
    seed: int = 1,
    collect: Callable[[], Any] = gc.collect,
) -> dict[str, Speed | None]:
    """The :class:`Speed` of each resource (``None``: too few rounds or requests).

    ``requests``: resource -> ``[(request, [ModelResource side, DjonyResource side])]``;
    ``send(side, request)`` answers the seconds one request took; ``collect()`` runs
    before each turn (a full garbage collection: no turn pays for another's garbage).
    """
    rng = random.Random(seed)
    flat = [(resource, request, sides) for resource, pairs in requests.items()
            for request, sides in pairs]  # fmt: skip
    times: dict[int, tuple[list[float], list[float]]] = {i: ([], []) for i in range(len(flat))}
    done = 0
    for _ in range(rounds):
        if time.monotonic() > deadline:
            break
        order = list(range(len(flat)))
        rng.shuffle(order)
        for side_index in (0, 1) if rng.random() < 0.5 else (1, 0):
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
    samples: list[tuple[list[float], list[float]]], rounds: int, timed: list[Any] | None = None
) -> Speed | None:
    if rounds < MIN_ROUNDS or not samples:
        return None
    per_request, every_round, model, djony, by_request = [], [], [], [], []
    for index, (model_times, djony_times) in enumerate(samples):
        ratios = [m / d for m, d in zip(model_times, djony_times, strict=True) if d > 0]
        if not ratios:
            continue
        per_request.append(statistics.median(ratios))
        if timed is not None:
            by_request.append((timed[index], per_request[-1]))
        every_round.extend(ratios)
        model.append(statistics.median(model_times))
        djony.append(statistics.median(djony_times))
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
    )


def median_speedup(speeds: list[Speed]) -> tuple[float, float, float] | None:
    """The median speed-up over resources, and the 10th and 90th percentiles of them."""
    values = sorted(speed.speedup for speed in speeds)
    if not values:
        return None
    if len(values) == 1:
        return values[0], values[0], values[0]
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    return statistics.median(values), deciles[0], deciles[-1]
