"""Time every variant in every flavour, interleaved, and print the ratio table.

    python -m benchmarks.inprocess --variants all
    python -m benchmarks.inprocess --variants hooked,full --endpoints list --rounds 20

Every round requests each target (variant x flavour) once, in a freshly
shuffled order, with ``gc.collect()`` between rounds, so no target runs on
caches or a heap the others lack and machine noise hits all of them alike.
``--v2-every K`` times the slow unprefetched ModelResource targets only in
every K-th round (their hundreds to thousands of queries make a round long),
still shuffled among the others.  Ratios are of medians; the bracket after
each is the interquartile range of the per-round ratios (the two requests of a
round ran seconds apart, under the same load), or their range when fewer than
four rounds hold both.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from benchmarks.targets import FLAVOURS, Target, check_variant, get

COMPARED = (("v2", "ModelResource"), ("v2p", "+ prefetch"), ("drf", "DRF + prefetch"))


@dataclass
class Samples:
    """Wall-clock seconds of one target's timed requests, by round."""

    times: dict[int, float] = field(default_factory=dict)

    def median_ms(self) -> float:
        return statistics.median(self.times.values()) * 1000

    def iqr_ms(self) -> tuple[float, float]:
        values = sorted(self.times.values())
        if len(values) < 2:
            return values[0] * 1000, values[0] * 1000
        q = statistics.quantiles(values, n=4)
        return q[0] * 1000, q[2] * 1000


def measure(
    client: Any, targets: list[Target], endpoint: str, rounds: int, v2_every: int = 1
) -> dict[Target, Samples]:
    """``rounds`` interleaved, shuffled rounds of one request per target.

    No warm-up of its own: :func:`run` has just requested every target once to
    check its body."""
    samples = {target: Samples() for target in targets}
    for round_number in range(rounds):
        order = [t for t in targets if t.flavour != "v2" or round_number % max(v2_every, 1) == 0]
        random.shuffle(order)
        gc.collect()
        for target in order:
            start = time.perf_counter()
            response = get(client, target, endpoint)
            samples[target].times[round_number] = time.perf_counter() - start
            if response.status_code != 200:
                raise RuntimeError(f"{target.label()}: HTTP {response.status_code} while timing")
    return samples


def ratio(samples: dict[Target, Samples], over: Target, under: Target) -> tuple[float, str]:
    """``over``'s median / ``under``'s and the IQR of the per-round ratios."""
    value = samples[over].median_ms() / samples[under].median_ms()
    paired = [
        samples[over].times[r] / samples[under].times[r]
        for r in samples[over].times
        if r in samples[under].times
    ]
    if len(paired) < 4:  # too few pairs for quartiles: their range
        return value, f"{min(paired):.1f}-{max(paired):.1f}" if paired else ""
    q = statistics.quantiles(paired, n=4)
    return value, f"{q[0]:.1f}-{q[2]:.1f}"


def print_tables(title: str, variants: list[str], samples: dict[Target, Samples]) -> None:
    """Medians (IQR) per flavour, then v3's ratios, as Markdown tables."""
    print(f"\n### {title}\n")
    print("| variant | " + " | ".join(f"{f} ms (IQR)" for f in FLAVOURS) + " |")
    print("|---|" + "---:|" * len(FLAVOURS))
    for variant in variants:
        cells = []
        for flavour in FLAVOURS:
            s = samples[Target(variant, flavour)]
            low, high = s.iqr_ms()
            cells.append(f"{s.median_ms():.1f} ({low:.1f}-{high:.1f})")
        print(f"| {variant} | " + " | ".join(cells) + " |")
    print(
        "\n| variant | "
        + " | ".join(f"v3 vs {f} ({label})" for f, label in COMPARED)
        + " | v3 / raw floor | rounds (v2) |"
    )
    print("|---|" + "---:|" * (len(COMPARED) + 2))
    for variant in variants:
        v3 = Target(variant, "v3")
        cells = []
        for flavour, _label in COMPARED:
            value, spread = ratio(samples, Target(variant, flavour), v3)
            cells.append(f"{value:.1f}x [{spread}]")
        value, spread = ratio(samples, v3, Target(variant, "raw"))
        cells.append(f"{value:.1f}x [{spread}]")
        rounds = f"{len(samples[v3].times)} ({len(samples[Target(variant, 'v2')].times)})"
        print(f"| {variant} | " + " | ".join(cells) + f" | {rounds} |")


def run(
    client: Any, variants: list[str], endpoints: list[str], rounds: int, v2_every: int
) -> dict[str, dict[Target, Samples]]:
    """Check every variant's bodies, then time them; print and return the samples."""
    results = {}
    for endpoint in endpoints:
        sizes = {v: check_variant(client, v, endpoint, FLAVOURS) for v in variants}
        print(
            f"\n{endpoint}: bodies identical to ModelResource's (DRF: same data) for "
            + ", ".join(f"{v} ({n:,} bytes)" for v, n in sizes.items())
        )
        targets = [Target(v, f) for v in variants for f in FLAVOURS]
        results[endpoint] = measure(client, targets, endpoint, rounds, v2_every)
        path = Target("plain", "v2").url(endpoint)
        print_tables(
            f"{endpoint}: {path.replace('/api/v2/', '/api/<api>/')}", variants, results[endpoint]
        )
    return results
