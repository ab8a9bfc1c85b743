"""In-process benchmark: the same user API through every variant, side by side.

    python -m benchmarks.inprocess                      # SQLite file, 1000 users
    DATABASE_URL=postgres://postgres@127.0.0.1/bench python -m benchmarks.inprocess
    python -m benchmarks.inprocess --scale 100,1000,10000
    python -m benchmarks.inprocess --variants all       # hooks, full=True, ... (benchmarks.matrix)

Variants (the example project's APIs plus ``benchmarks.resources``):
``v2`` ModelResource, ``v2p`` ModelResource + prefetch_related, ``v3``
DjonyResource (2013 spelling), ``v3q`` DjonyResource (drop-in spelling),
``drf`` Django REST framework + prefetch, ``raw`` hand-written SQL.

Before timing, every Tastypie variant and the raw floor must return the same
bytes as ``v2`` (DRF's JSON has another shape and is only checked for
status and object count); a wrong answer has no speed.  Requests go through
Django's test client (URL routing, middleware, the view; each API in a URLconf
of its own, :mod:`benchmarks.urlconfs`), in rounds that
interleave the variants, so machine noise hits all of them alike; the report
gives medians with the interquartile range, queries per request and ratios
measured in the same run.  Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from tastypie_djony.verify.differences import byte_difference

ENDPOINTS = {
    "list": "auth/user/?format=json&limit=0",
    "detail": "auth/user/3/?format=json",
}
VARIANTS = {
    "v2": "/api/v2/{path}",
    "v2p": "/api/v2p/{path}",
    "v3": "/api/v3/{path}",
    "v3q": "/api/v3q/{path}",
    "drf": "/api/drf/{path}",
    "raw": "/raw/{path}",
}
SCALING_VARIANTS = {"v2ps": "/api/v2ps/{path}", "v3qs": "/api/v3qs/{path}"}
RAW_PATHS = {"list": "auth/user/", "detail": "auth/user/3/"}


def setup(database_url: str | None) -> None:
    default = f"sqlite:///{Path(__file__).resolve().parent / 'bench.sqlite3'}"
    os.environ["DATABASE_URL"] = database_url or os.environ.get("DATABASE_URL") or default
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")
    import django
    from django.conf import settings

    django.setup()
    settings.ROOT_URLCONF = "benchmarks.urls"
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "benchmarks.urlconfs.OneApiPerUrlconf"]
    settings.ALLOWED_HOSTS = ["*"]


def url(variant: str, endpoint: str) -> str:
    if variant == "raw0":  # the floor without Tastypie's max_limit, for the scaling run
        return "/raw/auth/user/?max_limit=0"
    path = RAW_PATHS[endpoint] if variant == "raw" else ENDPOINTS[endpoint]
    return {**VARIANTS, **SCALING_VARIANTS}[variant].format(path=path)


def check_identical(
    client, endpoint: str, variants: list[str], reference_variant: str = "v2"
) -> None:
    reference = client.get(url(reference_variant, endpoint))
    expected = reference.content
    objects = json.loads(expected)
    count = len(objects["objects"]) if "objects" in objects else 1
    for variant in variants:
        response = client.get(url(variant, endpoint))
        if response.status_code != 200:
            sys.exit(
                f"{variant} {endpoint}: HTTP {response.status_code}; not benchmarking a failure."
            )
        if variant == "drf":
            data = json.loads(response.content)
            got = len(data["objects"]) if "objects" in data else 1
            if got != count:
                sys.exit(f"drf {endpoint}: {got} objects, v2 has {count}.")
            continue
        body = response.content.replace(
            f"/api/{variant}/".encode(), f"/api/{reference_variant}/".encode()
        )
        if variant.startswith("raw"):
            body = body.replace(b"/api/v2/", f"/api/{reference_variant}/".encode())
        if body != expected:
            sys.exit(
                f"{variant} {endpoint}: body differs from v2's; "
                + byte_difference(expected, body, context=80, labels=(reference_variant, variant))
            )


def measure(client, endpoint: str, variants: list[str], rounds: int) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    samples = {v: [] for v in variants}
    queries, peak = {}, {}
    for variant in variants:  # warm up, count queries, peak memory of one request
        client.get(url(variant, endpoint))
        with CaptureQueriesContext(connection) as captured:
            client.get(url(variant, endpoint))
        queries[variant] = len(captured)
        gc.collect()
        tracemalloc.start()
        client.get(url(variant, endpoint))
        peak[variant] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    order = list(variants)
    for _ in range(rounds):
        random.shuffle(order)
        for variant in order:
            target = url(variant, endpoint)
            start = time.perf_counter()
            client.get(target)
            samples[variant].append(time.perf_counter() - start)
    result = {}
    for variant, times in samples.items():
        q = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
        result[variant] = {
            "median_ms": statistics.median(times) * 1000,
            "p25_ms": q[0] * 1000,
            "p75_ms": q[2] * 1000,
            "queries": queries[variant],
            "peak_kib": peak[variant] / 1024,
        }
    return result


def print_table(title: str, result: dict) -> None:
    print(f"\n{title}")
    print(
        f"  {'variant':8} {'median ms':>10} {'IQR ms':>17} {'queries':>8} "
        f"{'peak KiB':>9} {'v2 / this':>10}"
    )
    base = result["v2"]["median_ms"]
    for variant, r in result.items():
        iqr = f"{r['p25_ms']:.2f}-{r['p75_ms']:.2f}"
        print(
            f"  {variant:8} {r['median_ms']:10.2f} {iqr:>17} {r['queries']:8d} "
            f"{r['peak_kib']:9.0f} {base / r['median_ms']:9.1f}x"
        )
    v3 = result["v3"]["median_ms"]
    ratios = {
        "v3 vs v2 (ModelResource)": result["v2"]["median_ms"] / v3,
        "v3 vs v2p (ModelResource + prefetch)": result["v2p"]["median_ms"] / v3,
        "v3 vs drf (DRF + prefetch)": result["drf"]["median_ms"] / v3,
        "v3 / raw floor (lower is better)": v3 / result["raw"]["median_ms"],
    }
    for label, ratio in ratios.items():
        print(f"  {label:40} {ratio:6.1f}x")


def scaling(client, sizes: list[int], rounds: int) -> None:
    from example_project.showcase import seeding

    print("\nScaling of the list (limit=0, max_limit lifted) with the number of users")
    print(
        f"  {'users':>7} {'v2p ms':>10} {'v3 ms':>10} {'raw ms':>10} {'v3 us/user':>12} "
        f"{'v3 queries':>12} {'v3/raw':>8}"
    )
    for size in sizes:
        seeding.seed(users=size, reset=True, progress=None)
        variants = ["v2ps", "v3qs", "raw0"]
        check_identical(client, "list", ["v3qs", "raw0"], reference_variant="v2ps")
        result = measure(client, "list", variants, rounds if size <= 2000 else max(3, rounds // 5))
        v3 = result["v3qs"]
        print(
            f"  {size:7d} {result['v2ps']['median_ms']:10.1f} {v3['median_ms']:10.1f} "
            f"{result['raw0']['median_ms']:10.1f} {v3['median_ms'] * 1000 / size:12.1f} "
            f"{v3['queries']:12d} {v3['median_ms'] / result['raw0']['median_ms']:7.1f}x"
        )


def run_variants(client, args: argparse.Namespace) -> None:
    from benchmarks import matrix, targets

    chosen = list(targets.ALL_VARIANTS) if args.variants == "all" else args.variants.split(",")
    unknown = set(chosen) - set(targets.ALL_VARIANTS)
    if unknown:
        sys.exit(f"unknown variants {sorted(unknown)}; choose from {targets.ALL_VARIANTS}")
    try:
        results = matrix.run(client, chosen, args.endpoints.split(","), args.rounds, args.v2_every)
    except targets.NotIdentical as error:
        sys.exit(f"not timing: {error}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    endpoint: {
                        target.label(): sorted(s.times.values()) for target, s in samples.items()
                    }
                    for endpoint, samples in results.items()
                },
                indent=2,
            )
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="database URL (default: DATABASE_URL or a SQLite file)")
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30, help="timed requests per variant")
    parser.add_argument("--scale", help="comma-separated user counts for the scaling run")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument(
        "--variants",
        help="'all' or a comma-separated subset of plain,hooked,field,both,full,related: "
        "time these variants in every flavour instead (see benchmarks.matrix)",
    )
    parser.add_argument("--endpoints", default="list,detail", help="with --variants")
    parser.add_argument(
        "--v2-every",
        type=int,
        default=1,
        help="with --variants: time ModelResource every Kth round",
    )
    args = parser.parse_args(argv)
    setup(args.database)

    import django
    import tastypie
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=args.users, reset=not seeding.is_seeded(args.users), progress=None)
    client = Client()
    print(
        f"{connection.vendor}, {args.users} users, Django {django.get_version()}, "
        f"tastypie {tastypie.__version__}, Python {sys.version.split()[0]}, {args.rounds} rounds"
    )
    if args.variants:
        run_variants(client, args)
        return
    results = {}
    for endpoint in ENDPOINTS:
        check_identical(client, endpoint, [v for v in VARIANTS if v != "v2"])
        results[endpoint] = measure(client, endpoint, list(VARIANTS), args.rounds)
        print_table(
            f"{endpoint}: {url('v2', endpoint)} (bodies identical to v2)", results[endpoint]
        )
    if args.scale:
        scaling(client, [int(n) for n in args.scale.split(",")], args.rounds)
        seeding.seed(users=args.users, reset=True, progress=None)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"vendor": connection.vendor, "users": args.users, "results": results}, indent=2
            )
        )


if __name__ == "__main__":
    main()
