"""Where the time of one DjonyResource list page goes, grouped by layer.

    python -m benchmarks.profile_list            # /api/v3/auth/user/?format=json&limit=0
    python -m benchmarks.profile_list --path /api/v3/auth/user/3/?format=json

Profiles N requests with cProfile and sums the time spent *in* each function
(not below it) per package, so the columns add up to the whole request.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
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
)


def layer(filename: str) -> str:
    for name, marker in LAYERS:
        if marker in filename:
            return name
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C: fetchall, str, dict ...)"
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default="/api/v3/auth/user/?format=json&limit=0")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--database")
    args = parser.parse_args()

    from benchmarks.inprocess import setup

    setup(args.database)
    from django.core.management import call_command
    from django.test import Client

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=1000, reset=not seeding.is_seeded(1000), progress=None)
    client = Client()
    client.get(args.path)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.requests):
        client.get(args.path)
    profile.disable()
    stats = pstats.Stats(profile)
    totals: dict[str, float] = defaultdict(float)
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        totals[layer(filename)] += tottime
    whole = sum(totals.values())
    print(f"{args.path}: {whole / args.requests * 1000:.1f} ms per request under cProfile")
    for name, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"  {name:42} {seconds / args.requests * 1000:7.2f} ms  {seconds / whole:6.1%}")


if __name__ == "__main__":
    main()
