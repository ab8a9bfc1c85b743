"""Mixed reads and writes against the example project under gunicorn gthread.

    python scripts/load_concurrency.py [--duration 30] [--quick] [--database URL]

Starts gunicorn (``--workers`` processes x ``--threads`` threads, default
2 x 8) on 127.0.0.1 serving the example project plus a writable v3 API
(:mod:`scripts.load_urls`), on PostgreSQL by default
(``postgres://postgres@127.0.0.1:5432/sec_load``, created if missing; a
``mysql://`` URL works too), and runs ``--clients`` client threads for
``--duration`` seconds: reads on ``/api/v2/`` and ``/api/v3/`` (detail, pages,
filters) and writes on ``/api/w3/`` (create a user with k permissions, read
it back, rename, delete).  Every answer is checked against its request (the
id, the username, the page's ids, the values written), so a response that
belongs to another thread's request would show.

Afterwards it reports requests and errors by status, latency, the number of
database connections seen in ``pg_stat_activity`` (or MySQL's process list)
during the run, the server's memory, and checks the database: no partial
writes, no orphan rows, seeded data unchanged, every user a client created
is there with its permissions.  Exit status 0 when there was no 5xx, no
unexpected status, no mismatched answer and no broken invariant.

``--quick``: 8 s with 4 clients and 100 seeded users (for CI, < 20 s in all).
``--json PATH`` writes the figures to a file.  ``--drop-database`` drops the
database at the end (the test suite's run does: it leaves nothing behind).
The server is started once and stopped at the end, also on errors.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from example_project.showcase.benchmark import databases  # noqa: E402
from scripts import loadkit  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="database URL (default: $DATABASE_URL or sec_load)")
    parser.add_argument("--backend", choices=["postgresql", "mysql"], default="postgresql")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--users", type=int, default=500, help="seeded users")
    parser.add_argument("--write-share", type=float, default=0.3)
    parser.add_argument("--quick", action="store_true", help="8 s, 4 clients, 100 users")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--drop-database", action="store_true", help="drop the database at the end")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.clients, args.users = min(args.duration, 8.0), 4, 100
    if not 0 < args.duration <= 3600:
        parser.error("--duration: between 0 and 3600 seconds")

    url = loadkit.database_url(args.backend, args.database)
    try:
        return run(args, url)
    finally:
        if args.drop_database:
            databases.drop_database(url)  # ends the sessions still open on it


def run(args: argparse.Namespace, url: str) -> int:
    started = time.monotonic()
    seed = loadkit.prepare_database(url, args.users)
    log = Path(tempfile.mkstemp(prefix="djony-load-", suffix=".log")[1])
    report: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "database": f"{loadkit.backend_of(url)}: {loadkit.server_version(url)}",
        "versions": loadkit.versions(),
        "server": f"gunicorn gthread {args.workers} workers x {args.threads} threads",
        "clients": args.clients,
        "seconds": args.duration,
    }
    watch = loadkit.ConnectionWatch(url)
    with loadkit.gunicorn(args.workers, args.threads, log) as server:
        master = server.process.pid
        report["server_pid"] = master
        workers_before = loadkit.worker_pids(master)
        report["memory_mib_start"] = loadkit.memory(master)
        watch.start()
        load = loadkit.Load(
            port=server.port,
            seed=seed,
            run_id=f"{int(time.time()) % 100000}",
            clients=args.clients,
            write_share=args.write_share,
        )
        load.run(args.duration)
        report["connections"] = watch.stop()
        report["memory_mib_end"] = loadkit.memory(master)
        workers_after = loadkit.worker_pids(master)
        report["worker_restarts"] = len(set(workers_before) - set(workers_after))
    report |= load.summary()
    bad = loadkit.unexpected(load.outcomes)
    report["unexpected"] = len(bad)
    report["unexpected_examples"] = [f"{o.op}: {o.status} {o.problem}" for o in bad[:8]]
    report["server_errors_5xx"] = sum(
        1 for o in load.outcomes if isinstance(o.status, int) and o.status >= 500
    )
    report["invariant_problems"] = loadkit.check_invariants(seed, load, strict=True)
    report["total_seconds"] = round(time.monotonic() - started, 1)
    ok = (
        not report["server_errors_5xx"]
        and not bad
        and not report["invariant_problems"]
        and not report["worker_restarts"]
        and report["requests"] > 0
    )
    report["verdict"] = "PASS" if ok else "FAIL"
    if not ok:
        report["server_log_tail"] = log.read_text(errors="replace").splitlines()[-30:]
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    log.unlink(missing_ok=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
