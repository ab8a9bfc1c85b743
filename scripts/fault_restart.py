"""Faults under load: restart the database server, kill gunicorn workers.

    python scripts/fault_restart.py [--backend postgresql|mysql|both] [--duration 40] [--quick]

For each backend: gunicorn gthread (2 workers x 8 threads) serves the
example project plus a writable v3 API (:mod:`scripts.load_urls`) to
``--clients`` client threads doing mixed reads and writes (see
:mod:`scripts.loadkit`) for ``--duration`` seconds.  During the load:

1. after a warm-up, the database server is restarted
   (PostgreSQL: ``pg_ctlcluster --skip-systemctl-redirect <version> main
   restart``; MariaDB: ``mysqladmin -uroot shutdown``, then
   ``start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd``).
   Expected: requests fail only while it is down, with a 5xx and without
   hanging (client timeout 15 s), and succeed again once it is back, on the
   same gunicorn workers (their pids do not change).  Reported: the
   downtime, the errors by status, and the recovery time (from the server
   answering again to the end of the last failed request);
2. then ``--kills`` times a gunicorn worker is killed with SIGKILL in the
   middle of the writes.  Expected: only requests in flight on that worker
   fail (the client sees the connection drop), gunicorn starts a new one,
   and no write is left half done.

Afterwards the database is checked (:func:`scripts.loadkit.check_invariants`):
every user the load made has exactly the permissions its name says, no
orphan rows, seeded data unchanged, users the clients saw created are there.

A database the run created is dropped at the end; the gunicorn server is
started once per backend and always stopped.

THIS RESTARTS THE SHARED DATABASE SERVER: never run it in CI or while other
test runs use the server.  The servers are always left running (checked with
``pg_isready`` and ``mysqladmin ping`` at the end, and started if needed).
Exit status 0 when every expectation held.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from example_project.showcase.benchmark import databases  # noqa: E402
from scripts import loadkit  # noqa: E402


# --- the database servers ------------------------------------------------------------------
def _quiet(*command: str, timeout: float = 60) -> int:
    try:
        return subprocess.run(
            command, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
        ).returncode
    except (subprocess.TimeoutExpired, FileNotFoundError):
        return -1


def pg_up() -> bool:
    return _quiet("pg_isready", "-q", "-h", "127.0.0.1", timeout=5) == 0


def mysql_up() -> bool:
    return _quiet("mysqladmin", "-h127.0.0.1", "-uroot", "ping", timeout=5) == 0


def pg_version() -> str:
    return sorted(os.listdir("/etc/postgresql"), key=lambda v: [int(x) for x in v.split(".")])[-1]


def restart_postgresql() -> None:
    _quiet(
        "pg_ctlcluster", "--skip-systemctl-redirect", pg_version(), "main", "restart", timeout=90
    )


def start_postgresql() -> None:
    _quiet("pg_ctlcluster", "--skip-systemctl-redirect", pg_version(), "main", "start", timeout=90)


MARIADBD = "/usr/sbin/mariadbd"


def mariadbd_running() -> bool:
    """Whether a mariadbd process exists (it outlives its last answered ping)."""
    return _quiet("start-stop-daemon", "--status", "--exec", MARIADBD, timeout=5) == 0


def restart_mysql() -> None:
    _quiet("mysqladmin", "-h127.0.0.1", "-uroot", "shutdown", timeout=60)
    # start-stop-daemon --oknodo does nothing while the old process still exits.
    loadkit.wait_until(lambda: not mariadbd_running(), 60, 0.1)
    start_mysql()


def start_mysql() -> None:
    for _ in range(3):
        _quiet(
            "start-stop-daemon", "--start", "--oknodo", "--background",
            "--exec", MARIADBD, timeout=30,
        )  # fmt: skip
        if loadkit.wait_until(mysql_up, 30, 0.1):
            return


SERVERS = {
    "postgresql": (pg_up, restart_postgresql, start_postgresql),
    "mysql": (mysql_up, restart_mysql, start_mysql),
}


def ensure_servers_up() -> dict[str, bool]:
    """Start any database server that does not answer; report which answer."""
    state = {}
    for name, (up, _, start) in SERVERS.items():
        if not up():
            start()
            loadkit.wait_until(up, 60, 0.5)
        state[name] = up()
    return state


# --- one backend ----------------------------------------------------------------------------
def run_backend(backend: str, args) -> dict:
    up, restart, _ = SERVERS[backend]
    if not up():
        return {"backend": backend, "verdict": "FAIL", "error": f"{backend} is not running"}
    url = loadkit.DEFAULT_URLS[backend] if args.database is None else args.database
    seed = loadkit.prepare_database(url, args.users)
    log = Path(tempfile.mkstemp(prefix=f"djony-fault-{backend}-", suffix=".log")[1])
    report: dict = {
        "backend": backend,
        "database": loadkit.server_version(url),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "server": f"gunicorn gthread {args.workers} workers x {args.threads} threads",
        "clients": args.clients,
        "seconds": args.duration,
    }
    events: dict = {}
    watch = loadkit.ConnectionWatch(url)
    with loadkit.gunicorn(args.workers, args.threads, log) as server:
        master = server.process.pid
        load = loadkit.Load(
            port=server.port,
            seed=seed,
            run_id=f"f{int(time.time()) % 100000}",
            clients=args.clients,
            write_share=0.5,
        )
        watch.start()
        runner = threading.Thread(target=load.run, args=(args.duration,), daemon=True)
        runner.start()
        loadkit.wait_until(lambda: load.started > 0, 10, 0.05)

        def now() -> float:
            return time.monotonic() - load.started

        time.sleep(args.warmup)
        workers_before = loadkit.worker_pids(master)
        report["memory_mib_before_restart"] = loadkit.memory(master)
        events["restart_begin"] = now()
        restart()
        events["restart_command_done"] = now()
        loadkit.wait_until(up, 90, 0.1)
        events["database_ready"] = now()
        # Let the load run on the restarted server before killing workers.
        time.sleep(args.settle)
        workers_after_restart = loadkit.worker_pids(master)
        events["kills"] = []
        for _ in range(args.kills):
            victims = loadkit.worker_pids(master)
            if not victims:
                break
            victim = victims[0]
            events["kills"].append(now())
            os.kill(victim, signal.SIGKILL)
            loadkit.wait_until(
                lambda v=victim: (
                    v not in loadkit.worker_pids(master)
                    and len(loadkit.worker_pids(master)) == args.workers
                ),
                30,
                0.1,
            )
            time.sleep(args.kill_interval)
        runner.join(timeout=args.duration + 120)
        report["connections"] = watch.stop()
        report["memory_mib_end"] = loadkit.memory(master)
    report["worker_pids_unchanged_by_restart"] = workers_before == workers_after_restart
    report |= load.summary()
    report |= analyse(load, events, args)
    report["invariant_problems"] = loadkit.check_invariants(seed, load, strict=False)
    if seed["created"]:  # a database this run made is not left behind
        databases.drop_database(url)
    ok = (
        report["worker_pids_unchanged_by_restart"]
        and not report["invariant_problems"]
        and not report["hung_requests"]
        and not report["failures_outside_fault_windows"]
        and report["recovered"]
        and not report["mismatched_answers"]
    )
    report["verdict"] = "PASS" if ok else "FAIL"
    if not ok:
        report["server_log_tail"] = log.read_text(errors="replace").splitlines()[-30:]
    log.unlink(missing_ok=True)
    return report


def analyse(load: loadkit.Load, events: dict, args) -> dict:
    """Where the failures fall: the database outage, the worker kills, elsewhere."""
    failures = loadkit.unexpected(load.outcomes)
    begin, ready = events["restart_begin"], events["database_ready"]
    kills = events["kills"]
    kill_window = 3.0  # seconds after a kill in which its in-flight requests end

    def in_outage(o) -> bool:
        return begin <= o.t + o.seconds and o.t <= ready + args.settle

    def in_kill(o) -> bool:
        return any(k <= o.t + o.seconds and o.t <= k + kill_window for k in kills)

    killed = [o for o in failures if in_kill(o)]
    outage = [o for o in failures if in_outage(o) and not in_kill(o)]
    elsewhere = [o for o in failures if not in_outage(o) and not in_kill(o)]
    last_end = max((o.t + o.seconds for o in outage), default=ready)
    first_start = min((o.t for o in outage), default=ready)
    after_recovery = [
        o
        for o in load.outcomes
        if last_end < o.t and o.t + o.seconds < (kills[0] if kills else 1e9)
    ]

    def statuses(outcomes) -> dict:
        counts: dict[str, int] = {}
        for o in outcomes:
            counts[str(o.status)] = counts.get(str(o.status), 0) + 1
        return dict(sorted(counts.items()))

    hung = [o for o in load.outcomes if o.seconds >= load.timeout - 0.5]
    timeline: dict[int, list[int]] = {}  # second -> [requests, failures]
    for o in load.outcomes:
        slot = timeline.setdefault(int(o.t), [0, 0])
        slot[0] += 1
        slot[1] += o in failures
    return {
        "timeline_requests_failures_per_second": {k: v for k, v in sorted(timeline.items())},
        "events_s": {
            "restart_begin": round(begin, 2),
            "restart_command_done": round(events["restart_command_done"], 2),
            "database_ready": round(ready, 2),
            "kills": [round(k, 2) for k in kills],
        },
        "database_down_s": round(ready - begin, 2),
        "outage_failures": statuses(outage),
        "outage_failures_not_5xx": statuses(
            [o for o in outage if not (isinstance(o.status, int) and o.status >= 500)]
        ),
        "recovery_after_database_ready_s": round(max(0.0, last_end - ready), 2),
        "error_window_s": round(max(0.0, last_end - first_start), 2),
        "requests_between_recovery_and_first_kill": len(after_recovery),
        "recovered": bool(after_recovery)
        and all(o.status in loadkit.EXPECTED[o.op] for o in after_recovery),
        "kill_failures": statuses(killed),
        "failures_outside_fault_windows": [
            f"t={o.t:.2f} {o.op}: {o.status} {o.problem}" for o in elsewhere[:10]
        ],
        "hung_requests": len(hung),
        "slowest_request_s": round(max((o.seconds for o in load.outcomes), default=0), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["postgresql", "mysql", "both"], default="both")
    parser.add_argument("--database", help="database URL (one backend only)")
    parser.add_argument("--duration", type=float, default=40.0, help="seconds of load per backend")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--settle", type=float, default=8.0, help="load after the restart")
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--kill-interval", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="30 s per backend, 2 kills")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.warmup, args.settle, args.kills = 30.0, 3.0, 5.0, 2
    needed = args.warmup + args.settle + args.kills * (args.kill_interval + 1) + 10
    if args.duration < needed:
        parser.error(f"--duration must be at least {needed:.0f} s for these phases")
    if args.duration > 600:
        parser.error("--duration: at most 600 s")
    backends = ["postgresql", "mysql"] if args.backend == "both" else [args.backend]
    if args.database and len(backends) > 1:
        parser.error("--database needs --backend postgresql or mysql")

    reports = []
    try:
        for backend in backends:
            if backend == "mysql" and reports:
                # Django is set up for the first backend: run the next in a fresh process.
                command = [sys.executable, __file__, "--backend", backend, *rest_args(argv)]
                result = subprocess.run(command, capture_output=True, text=True, timeout=900)
                reports.append(json.loads(result.stdout)[0])
            else:
                reports.append(run_backend(backend, args))
    finally:
        servers = ensure_servers_up()
    for report in reports:
        report["servers_running_at_end"] = servers
    text = json.dumps(reports, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0 if all(r["verdict"] == "PASS" for r in reports) and all(servers.values()) else 1


def rest_args(argv: list[str] | None) -> list[str]:
    """The command line without --backend/--json (for the second backend's process)."""
    args = list(sys.argv[1:] if argv is None else argv)
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("--backend", "--json"):
            skip = True
            continue
        if arg.startswith(("--backend=", "--json=")):
            continue
        out.append(arg)
    return out


if __name__ == "__main__":
    sys.exit(main())
