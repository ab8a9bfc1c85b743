"""Do memory and Pony's caches stay flat under many distinct filter values?

    python scripts/cache_growth.py                  # 100,000 requests, SQLite file
    python scripts/cache_growth.py --requests 20000 --every 5000

Sends GETs to the example project's v3 API (DjonyResource), each with filter
values never used before (``username__startswith=<n>``, ``id__in=<n>,<n+1>``,
``date_joined__year=<...>``), in process through Django's WSGI handler (not the
test client, which keeps about 1 KiB per request of signal bookkeeping for
ModelResource and DjonyResource alike), and prints every ``--every`` requests: the process's
resident memory, Python's traced memory, and the sizes of Pony's global and
per-database caches.  Bounded by ``--requests``; touches nothing but its own
SQLite file (or ``DATABASE_URL``).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def rss_kib() -> int:
    with open(f"/proc/{os.getpid()}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def pony_cache_sizes() -> dict[str, int]:
    from pony.orm import core

    import djony

    database = djony.db()
    sizes = {
        "adapted_sql_cache": len(core.adapted_sql_cache),
        "string2ast_cache": len(core.string2ast_cache),
    }
    for name in ("_translator_cache", "_constructed_sql_cache", "_insert_cache"):
        sizes[name] = len(getattr(database, name, {}) or {})
    sizes["entity caches"] = sum(
        len(value)
        for entity in database.entities.values()
        for key, value in vars(entity).items()
        if key.startswith("_") and key.endswith("_cache_") and isinstance(value, dict)
    )
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=10_000)
    args = parser.parse_args()

    from benchmarks.inprocess import setup

    setup(None)
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command
    from django.test import RequestFactory

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=1000, reset=not seeding.is_seeded(1000), progress=None)
    handler = WSGIHandler()
    factory = RequestFactory()
    statuses: list[str] = []

    def get(url: str) -> str:
        path, _, query = url.partition("?")
        environ = factory._base_environ(PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD="GET")
        response = handler(environ, lambda status, headers: statuses.append(status))
        b"".join(response)
        response.close()
        return statuses.pop()

    shapes = (
        "/api/v3/auth/user/?format=json&limit=2&username__startswith=u{n}",
        "/api/v3/auth/user/?format=json&limit=2&id__in={n},{m}",
        "/api/v3/auth/user/?format=json&limit=2&date_joined__year={year}",
        "/api/v3/auth/permission/?format=json&limit=2&codename__icontains=x{n}",
    )
    tracemalloc.start()
    start = time.perf_counter()
    print(f"{'requests':>9} {'RSS KiB':>9} {'traced KiB':>11}  Pony caches")
    for n in range(1, args.requests + 1):
        url = shapes[n % len(shapes)].format(n=n, m=n + 1, year=1000 + n % 8000)
        status = get(url)
        if not status.startswith("200"):
            sys.exit(f"{url}: HTTP {status}")
        if n % args.every == 0 or n == 1:
            gc.collect()
            traced = tracemalloc.get_traced_memory()[0] // 1024
            caches = ", ".join(f"{k} {v}" for k, v in pony_cache_sizes().items())
            print(f"{n:9d} {rss_kib():9d} {traced:11d}  {caches}", flush=True)
    elapsed = time.perf_counter() - start
    print(f"{args.requests} requests in {elapsed:.0f} s ({args.requests / elapsed:.0f}/s)")


if __name__ == "__main__":
    main()
