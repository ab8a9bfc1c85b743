"""Where the time of one list page goes, by layer and by function.

    python -m benchmarks.profile_list                   # /api/v3/auth/user/?format=json&limit=0
    python -m benchmarks.profile_list --variant hooked  # the hooked resource on DjonyResource
    python -m benchmarks.profile_list --variant hooked --flavour v2p --endpoint detail
    python -m benchmarks.profile_list --path /api/v3/auth/user/3/?format=json

Profiles N requests with cProfile.  The first table sums the time spent *in*
each function (not below it) per package, so its rows add up to the whole
request.  The second (``--top``, with ``--variant`` or ``--functions``) ranks the
functions of the libraries and of the benchmark's hooks by the time spent in
them *and below* (cumulative): that is where the stages show, e.g. Tastypie's
``full_dehydrate`` and its per-field ``dehydrate``, ``to_simple``, URI
building, object construction, the SQL.  Cumulative rows nest, so they do
not add up.  cProfile inflates Python-heavy code relative to C.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
from collections import defaultdict

LAYERS = (
    ("tastypie_djony", "tastypie_djony/"),
    ("djony", "djony/"),
    ("tastypie", "tastypie/"),
    ("pony", "pony/"),
    ("django (ORM: SQL compiler, queries)", "django/db/"),
    ("django (URLs, handlers, HTTP)", "django/"),
    ("json encoder", "json/"),
    ("sqlite3 / psycopg2 / MySQLdb", "sqlite3"),
    ("the benchmark's hooks", "benchmarks/"),
)
# Packages whose functions the cumulative ranking shows (the request machinery
# around them, Django's test client and handlers, would only say "everything").
RANKED = ("tastypie_djony/", "djony/", "tastypie/", "pony/", "django/db/", "benchmarks/")


# The stages of a Tastypie list request, as (label, [(file marker, function)]): the
# cumulative time of the outermost matching function (they nest: URIs and
# hooks are inside full_dehydrate, to_simple inside to_json).  A label with
# "summed" adds up its functions instead (the fields' ``dehydrate`` methods are
# siblings, one per field class, unless ``full=True`` nests them).
STAGES = (
    (
        "whole Tastypie get_list (fetch, dehydrate, serialize)",
        [("tastypie/resources.py", "get_list")],
    ),
    (
        "full_dehydrate: per-object dehydration in all",
        [("tastypie/resources.py", "full_dehydrate")],
    ),
    (
        "  fields' dehydrate (per-field values and to-many URIs; summed)",
        [("tastypie/fields.py", "dehydrate"), ("tastypie_djony/fields.py", "dehydrate")],
    ),
    ("  URIs (get_resource_uri)", [("resources.py", "get_resource_uri")]),
    (
        "  the resource's hooks (dehydrate, dehydrate_username; summed)",
        [("benchmarks/", "dehydrate"), ("benchmarks/", "dehydrate_username")],
    ),
    ("Pony: rows to entity objects (_fetch_objects)", [("pony/orm/core.py", "_fetch_objects")]),
    ("to_json: serialisation in all", [("tastypie/serializers.py", "to_json")]),
    ("  to_simple", [("tastypie/serializers.py", "to_simple")]),
    ("  json.dumps", [("json/__init__.py", "dumps")]),
    ("database driver: execute", [("~", "execute")]),
    ("database driver: fetch", [("~", "fetch")]),
)


def layer(filename: str) -> str:
    for name, marker in LAYERS:
        if marker in filename:
            return name
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C: fetchall, str, dict ...)"
    return "other"


def _short(filename: str) -> str:
    for marker in RANKED:
        at = filename.rfind(marker)
        if at >= 0:
            return filename[at:]
    return filename


def print_layers(stats: pstats.Stats, requests: int, path: str) -> float:
    totals: dict[str, float] = defaultdict(float)
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        totals[layer(filename)] += tottime
    whole = sum(totals.values())
    print(f"{path}: {whole / requests * 1000:.1f} ms per request under cProfile\n")
    print("| layer (time in its own functions) | ms per request | share |")
    print("|---|---:|---:|")
    for name, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"| {name} | {seconds / requests * 1000:.2f} | {seconds / whole:.1%} |")
    return whole


def _matches(filename: str, name: str, marker: str, function: str) -> bool:
    if marker == "~":  # C: "<method 'fetchall' of 'sqlite3.Cursor' objects>"
        return filename == "~" and re.search(rf"\b{function}\w*\b", name) is not None
    return marker in filename and name == function


def print_stages(stats: pstats.Stats, requests: int, whole: float) -> None:
    rows = []
    for label, patterns in STAGES:
        matching = [
            cumtime
            for (filename, _line, name), (_cc, _nc, _tt, cumtime, _c) in stats.stats.items()
            if any(_matches(filename, name, marker, function) for marker, function in patterns)
        ]
        rows.append((label, sum(matching) if "summed" in label else max(matching, default=0.0)))
    print("\n| stage (cumulative, nested rows indented) | ms per request | share |")
    print("|---|---:|---:|")
    for label, seconds in rows:
        print(f"| {label} | {seconds / requests * 1000:.2f} | {seconds / whole:.1%} |")


def print_functions(stats: pstats.Stats, requests: int, whole: float, top: int) -> None:
    rows = []
    for (filename, line, name), (_cc, calls, tottime, cumtime, _c) in stats.stats.items():
        if any(marker in filename for marker in RANKED):
            rows.append((cumtime, tottime, calls, f"{_short(filename)}:{line} {name}"))
    rows.sort(reverse=True)
    print(f"\n| function (top {top} by cumulative time) | cum ms | share | own ms | calls |")
    print("|---|---:|---:|---:|---:|")
    for cumtime, tottime, calls, where in rows[:top]:
        print(
            f"| `{where}` | {cumtime / requests * 1000:.2f} | {cumtime / whole:.0%} | "
            f"{tottime / requests * 1000:.2f} | {calls // requests} |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default="/api/v3/auth/user/?format=json&limit=0")
    parser.add_argument(
        "--variant", help="profile this variant of benchmarks.targets instead of --path"
    )
    parser.add_argument("--flavour", default="v3", help="with --variant: v2, v2p, v3, drf, raw")
    parser.add_argument("--endpoint", default="list", help="with --variant: list or detail")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--top", type=int, default=30, help="rows of the function ranking")
    parser.add_argument("--functions", action="store_true", help="rank functions for --path too")
    parser.add_argument("--database")
    args = parser.parse_args(argv)

    from benchmarks.inprocess import setup

    setup(args.database)
    from django.core.management import call_command
    from django.test import Client

    from benchmarks.targets import Target, credentials
    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=1000, reset=not seeding.is_seeded(1000), progress=None)
    path, headers = args.path, {}
    if args.variant:
        target = Target(args.variant, args.flavour)
        path, headers = target.url(args.endpoint), credentials(args.variant)
    client = Client()
    response = client.get(path, **headers)
    if response.status_code != 200:
        raise SystemExit(f"{path}: HTTP {response.status_code}; not profiling a failure")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.requests):
        client.get(path, **headers)
    profile.disable()
    stats = pstats.Stats(profile)
    whole = print_layers(stats, args.requests, path)
    if args.variant or args.functions:
        print_stages(stats, args.requests, whole)
        print_functions(stats, args.requests, whole, args.top)


if __name__ == "__main__":
    main()
