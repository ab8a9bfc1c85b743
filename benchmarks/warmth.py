"""How much of a speed-up a request keeps when it does not run hot, in a loop of its own.

    python -m benchmarks.warmth                              # tutorial cases, SQLite
    python -m benchmarks.warmth --cases plain-detail --between author-page --rounds 1000

Each case of :mod:`benchmarks.tutorial` is timed on ModelResource (``v2``) and
DjonyResource (``v3``) three ways, after the bodies are checked identical:

* ``hot``: a loop of the one request on one side, then on the other (what a profile of
  one request sees);
* ``alternating``: the two sides in turn, in a random order each round;
* ``after another``: each timed request preceded by the ``--between`` requests (on either
  side at random), as a server answers a mix of endpoints and as ``djony_verify`` and the
  interleaved benchmarks time them.

Both sides pay the same cost for running cold (the interpreter's and the processor's
caches, memory given back to the system and asked for again), so the ratio of a small
request shrinks from ``hot`` to ``after another``: the figure to expect from a mix of
requests is the last column.  Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from benchmarks import tutorial
from benchmarks.harness import NotIdentical


def timed(client: Any, flavour: str, case: Any, extra: dict) -> float:
    started = time.perf_counter()
    tutorial.get(client, flavour, case, extra)
    return time.perf_counter() - started


def hot(client: Any, case: Any, extra: dict, rounds: int) -> dict[str, float]:
    """Median seconds of each side, each in a loop of its own."""
    return {
        flavour: statistics.median(timed(client, flavour, case, extra) for _ in range(rounds))
        for flavour in ("v2", "v3")
    }


def mixed(client: Any, case: Any, extra: dict, rounds: int, between: list) -> dict[str, float]:
    """Median seconds of each side, the sides in turn, ``between`` requests before each."""
    samples: dict[str, list[float]] = {"v2": [], "v3": []}
    for _ in range(rounds):
        for flavour in random.sample(("v2", "v3"), 2):
            for other in between:
                tutorial.get(client, random.choice(("v2", "v3")), other, extra)
            samples[flavour].append(timed(client, flavour, case, extra))
    return {flavour: statistics.median(times) for flavour, times in samples.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="database URL (default: the tutorial's SQLite file)")
    parser.add_argument("--cases", default="entry-detail,plain-detail,entry-page,plain-page")
    parser.add_argument("--between", default="author-page", help="requests before each timed one")
    parser.add_argument("--rounds", type=int, default=500)
    args = parser.parse_args(argv)
    tutorial.prepare(args.database, 50, 500)
    from django.test import Client

    client = Client()
    extra = tutorial.headers()
    cases = [tutorial.CASES_BY_NAME[name] for name in args.cases.split(",")]
    between = [tutorial.CASES_BY_NAME[name] for name in args.between.split(",") if name]
    try:
        for case in cases:
            tutorial.check(client, case, ("v2", "v3"), extra)
    except NotIdentical as error:
        raise SystemExit(f"not timing: {error}") from None
    print(f"v2 / v3 (medians, ms), {args.rounds} rounds; between: {args.between or 'nothing'}\n")
    print("| case | hot | alternating | after another |")
    print("|---|---:|---:|---:|")
    for case in cases:
        for _ in range(50):  # warm both sides up
            tutorial.get(client, "v2", case, extra)
            tutorial.get(client, "v3", case, extra)
        figures = [
            hot(client, case, extra, args.rounds),
            mixed(client, case, extra, args.rounds, []),
            mixed(client, case, extra, args.rounds, between),
        ]
        cells = [
            f"{f['v2'] / f['v3']:.2f}x ({f['v2'] * 1e3:.2f} / {f['v3'] * 1e3:.2f})" for f in figures
        ]
        print(f"| {case.what} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
