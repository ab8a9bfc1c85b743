"""Queries per page and peak memory per request, DjonyResource beside ModelResource.

    python -m benchmarks.queries                         # every variant, SQLite file
    python -m benchmarks.queries --variants hooked,related --sizes 20,100
    DATABASE_URL=postgres://postgres@127.0.0.1/djony_bench python -m benchmarks.queries

For each variant of :mod:`benchmarks.targets`, the number of SQL queries one
list request runs at each page size (``?limit=20`` ...) on ModelResource
(``v2``), ModelResource + prefetch (``v2p``) and DjonyResource (``v3``): a
constant count for v3 means a hook's related reads are loaded per page, not per
object.  Each page's v3 body is checked byte-identical to v2's first.  Then
the peak of Python allocations (``tracemalloc``) during one request of the
whole list and of the detail of user 3.  Counts are exact; the peaks move by a
few KiB from run to run.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from typing import Any

from benchmarks.targets import ALL_VARIANTS, COMMON_PREFIX, Target, get

FLAVOURS = ("v2", "v2p", "v3")


def count_queries(client: Any, target: Target, endpoint: str, limit: int = 0) -> tuple[int, bytes]:
    """Queries of one request of ``target`` and its normalised body.  DjonyResource gets a
    warm request first (Pony translates a query once and caches it); ModelResource has
    nothing to warm, and its requests at 1000 rows take thousands of queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if target.flavour != "v2":
        get(client, target, endpoint, limit)
    with CaptureQueriesContext(connection) as captured:
        response = get(client, target, endpoint, limit)
    if response.status_code != 200:
        raise RuntimeError(f"{target.label()}: HTTP {response.status_code}")
    return len(captured), response.content.replace(target.prefix.encode(), COMMON_PREFIX)


def peak_kib(client: Any, target: Target, endpoint: str) -> float:
    """Peak traced allocation during one request of ``target``, in KiB."""
    gc.collect()
    tracemalloc.start()
    try:
        get(client, target, endpoint)
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def query_table(client: Any, variants: list[str], sizes: list[int]) -> None:
    print("\n### Queries per list request, by page size (`?limit=N`)\n")
    header = " | ".join(f"{flavour} @{size}" for size in sizes for flavour in FLAVOURS)
    print(f"| variant | {header} |")
    print("|---|" + "---:|" * (len(sizes) * len(FLAVOURS)))
    for variant in variants:
        cells = []
        for size in sizes:
            bodies = {}
            for flavour in FLAVOURS:
                count, bodies[flavour] = count_queries(
                    client, Target(variant, flavour), "list", size
                )
                cells.append(str(count))
            if len(set(bodies.values())) != 1:
                sys.exit(f"{variant} at limit={size}: the flavours' bodies differ")
        print(f"| {variant} | " + " | ".join(cells) + " |")


def memory_table(client: Any, variants: list[str]) -> None:
    print("\n### Peak memory per request (tracemalloc, KiB)\n")
    print("| variant | endpoint | v2 | v2p | v3 | v3 / v2 |")
    print("|---|---|---:|---:|---:|---:|")
    for variant in variants:
        for endpoint in ("list", "detail"):
            peaks = {f: peak_kib(client, Target(variant, f), endpoint) for f in FLAVOURS}
            print(
                f"| {variant} | {endpoint} | {peaks['v2']:.0f} | {peaks['v2p']:.0f} | "
                f"{peaks['v3']:.0f} | {peaks['v3'] / peaks['v2']:.2f} |"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="database URL (default: DATABASE_URL or a SQLite file)")
    parser.add_argument("--variants", default="all", help="'all' or a comma-separated subset")
    parser.add_argument("--sizes", default="20,100,1000", help="page sizes (?limit=N)")
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc table")
    args = parser.parse_args(argv)

    from benchmarks.inprocess import setup

    setup(args.database)
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=1000, reset=not seeding.is_seeded(1000), progress=None)
    variants = list(ALL_VARIANTS) if args.variants == "all" else args.variants.split(",")
    client = Client()
    print(f"{connection.vendor}, 1000 users (user 3 with 159 permissions)")
    query_table(client, variants, [int(size) for size in args.sizes.split(",")])
    if not args.no_memory:
        memory_table(client, variants)


if __name__ == "__main__":
    main()
