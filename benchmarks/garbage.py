"""What a request leaves to the garbage collector, and the memory it holds at its peak.

    python -m benchmarks.garbage                                  # realshapes' pin page and detail
    python -m benchmarks.garbage --cases pin-page,pin-submitters --requests 100
    python -m benchmarks.garbage --benchmark tutorial --cases author-all
    python -m benchmarks.garbage --keep-cycles                    # DjonyResource without letting go

For each case and flavour (``v2`` ModelResource, ``v3`` DjonyResource): the objects a
request leaves in reference cycles (found by a collection after requests run with the
collector off: what only the collector frees), and tracemalloc's peak over requests run
with the collector on, as a server runs them.  ``--keep-cycles`` serves DjonyResource
without :func:`djony.serving.letting_go` (what its pages set and loaded stays in their
objects until the collector finds them), to show what letting go changes.  Nothing here
is a pass/fail test.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gc
import tracemalloc
from typing import Any


def cyclic_garbage(get: Any, requests: int) -> tuple[float, list[tuple[str, int]]]:
    """Objects left in reference cycles per request, and the commonest types among them."""
    gc.collect()
    gc.disable()
    try:
        for _ in range(requests):
            get()
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect()
        kinds = collections.Counter(type(obj).__qualname__ for obj in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    return found / requests, [(kind, count // requests) for kind, count in kinds.most_common(4)]


def traced_peak(get: Any, requests: int) -> float:
    """tracemalloc's peak over ``requests`` requests with the collector on, in MB."""
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(requests):
            get()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", default="realshapes", choices=("tutorial", "realshapes"))
    parser.add_argument("--cases", default="pin-page,pin-detail")
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--database")
    parser.add_argument("--keep-cycles", action="store_true")
    args = parser.parse_args(argv)

    if args.benchmark == "tutorial":
        from benchmarks import tutorial as benchmark

        benchmark.prepare(args.database, 50, 500)
        cases = [benchmark.CASES_BY_NAME[name] for name in args.cases.split(",")]
    else:
        from benchmarks import realshapes as benchmark

        benchmark.prepare(args.database)
        chosen = [benchmark.CASES_BY_NAME[name] for name in args.cases.split(",")]
        cases = benchmark.concrete(chosen)
    from django.test import Client

    import tastypie_djony.resources

    if args.keep_cycles:
        tastypie_djony.resources.letting_go = contextlib.nullcontext
    client, extra = Client(), benchmark.headers()
    print(f"{args.benchmark}, {args.requests} requests a case and flavour", end="")
    print(", DjonyResource without letting go" if args.keep_cycles else "")
    print("| case | flavour | objects left in cycles a request | commonest | peak traced MB |")
    print("|---|---|---:|---|---:|")
    for case in cases:
        for flavour in ("v2", "v3"):

            def get(flavour: str = flavour, case: Any = case) -> None:
                benchmark.get(client, flavour, case, extra)

            for _ in range(20):
                get()
            left, kinds = cyclic_garbage(get, args.requests)
            peak = traced_peak(get, args.requests)
            named = ", ".join(f"{kind} {count}" for kind, count in kinds)
            print(f"| {case.name} | {flavour} | {left:.0f} | {named} | {peak:.1f} |")


if __name__ == "__main__":
    main()
