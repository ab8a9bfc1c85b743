"""What the reliability scripts share: the database, the server, the load
clients and the checks afterwards.

Everything runs on this machine: the server binds 127.0.0.1, the clients
talk to it only, and every loop is bounded by a deadline.

* :func:`prepare_database` creates the database named in the URL if it is
  missing, migrates it, seeds ``users`` users (the example's deterministic
  data) and deletes users a previous run left.
* :class:`Load` runs ``clients`` threads, each with a keep-alive HTTP
  connection, mixing reads on ``/api/v2/`` and ``/api/v3/`` with writes on
  ``/api/w3/`` (create a user with k permissions, read it back, rename it,
  delete it), and checks every answer against what was asked: a detail
  answers the requested id and username, a page the requested ids, a write
  the sent values (a response that belongs to another request, a session
  mixed across threads, would show there).
* :class:`ConnectionWatch` samples the number of server connections to the
  database (``pg_stat_activity``, ``information_schema.PROCESSLIST``).
* :func:`check_invariants` reads the database afterwards: each user the load
  made has exactly the permissions its name says (``load_<run>_..._p<k>``:
  no partial write), every permission row has its user, the seeded users and
  their permissions are as before, and the users the clients believe alive
  are there with the permissions they sent.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from example_project.showcase.benchmark import databases, servers  # noqa: E402

HOST = "127.0.0.1"
DEFAULT_URLS = {
    "postgresql": "postgres://postgres@127.0.0.1:5432/sec_load",
    "mysql": "mysql://root@127.0.0.1:3306/sec_load",
}


# --- the database -------------------------------------------------------------------
def database_url(backend: str, url: str | None = None) -> str:
    return url or os.environ.get("DATABASE_URL") or DEFAULT_URLS[backend]


def backend_of(url: str) -> str:
    return databases.vendor(url)


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = "scripts.load_settings"
    import django

    django.setup()


LOAD_PREFIX = "load_"


def prepare_database(url: str, users: int) -> dict:
    """Create (if missing), migrate and seed; return what the seeded data looks like
    (``created``: whether this call created the database)."""
    created = databases.create_database(url)
    setup_django(url)
    from django.contrib.auth.models import Permission, User
    from django.core.management import call_command

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0, interactive=False)
    User.objects.filter(username__startswith=LOAD_PREFIX).delete()
    if not seeding.is_seeded(users):
        seeding.seed(users=users, reset=True, progress=None)
    from django.db import connection

    connection.close()
    return {
        "created": created,
        "users": dict(User.objects.filter(pk__lte=users).values_list("pk", "username")),
        "seed_permission_rows": User.user_permissions.through.objects.filter(
            user_id__lte=users
        ).count(),
        "permissions": list(Permission.objects.order_by("pk").values_list("pk", flat=True)),
    }


# --- the server ------------------------------------------------------------------------
def gunicorn(workers: int, threads: int, log: Path) -> servers.Server:
    """A gunicorn gthread server for the load, not started yet: use it as a context
    manager (``with loadkit.gunicorn(...) as server:``), which starts it once and always
    stops it."""
    config = servers.ServerConfig(
        name="gunicorn", workers=workers, threads=threads, request_timeout=60
    )
    return servers.Server(config, log, host=HOST)


def worker_pids(master: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == master:
            pids.append(int(entry))
    return sorted(pids)


def rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def memory(master: int) -> dict[str, float]:
    return {"master": round(rss_mib(master), 1)} | {
        f"worker {pid}": round(rss_mib(pid), 1) for pid in worker_pids(master)
    }


# --- connections to the database -------------------------------------------------------
class ConnectionWatch(threading.Thread):
    """Samples the number of server connections to the load's database."""

    def __init__(self, url: str, interval: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.interval = interval
        self.samples: list[int] = []
        self.stop_event = threading.Event()

    def count(self, conn) -> int:
        name = databases.parse(self.url)["NAME"]
        with conn.cursor() as cursor:
            if backend_of(self.url) == "postgresql":
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                    "AND pid <> pg_backend_pid()",
                    [name],
                )
            else:
                cursor.execute(
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                    "WHERE DB = %s AND ID <> CONNECTION_ID()",
                    [name],
                )
            return int(cursor.fetchone()[0])

    def run(self) -> None:
        conn = None
        while not self.stop_event.wait(self.interval):
            try:
                if conn is None:
                    conn = databases.connect(self.url)
                self.samples.append(self.count(conn))
            except Exception:  # noqa: BLE001 (the server may be restarting)
                conn = None
        if conn is not None:
            conn.close()

    def stop(self) -> dict:
        self.stop_event.set()
        self.join(timeout=10)
        samples = self.samples or [0]
        return {
            "samples": len(self.samples),
            "max": max(samples),
            "mean": round(sum(samples) / len(samples), 1),
        }


# --- the load ------------------------------------------------------------------------------
@dataclass
class Outcome:
    t: float  # seconds since the load started
    op: str
    status: int | str  # HTTP status, or the client error's name
    seconds: float
    problem: str = ""


@dataclass
class Load:
    """``clients`` threads sending a mix of reads and writes until ``deadline``."""

    port: int
    seed: dict
    run_id: str
    clients: int = 8
    write_share: float = 0.3
    timeout: float = 15.0
    outcomes: list[Outcome] = field(default_factory=list)
    alive: dict[int, tuple[str, frozenset]] = field(default_factory=dict)  # id -> (name, perms)
    attempted: set[str] = field(default_factory=set)  # usernames sent in a POST
    unanswered_deletes: set[int] = field(default_factory=set)  # may or may not be gone
    lock: threading.Lock = field(default_factory=threading.Lock)
    started: float = 0.0

    def run(self, seconds: float) -> None:
        self.started = time.monotonic()
        deadline = self.started + seconds
        threads = [
            threading.Thread(target=self.client, args=(n, deadline), daemon=True)
            for n in range(self.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=seconds + self.timeout + 30)
        assert not any(t.is_alive() for t in threads), "a load client did not stop"

    # -- one client --------------------------------------------------------------------
    def client(self, n: int, deadline: float) -> None:
        rng = random.Random(f"{self.run_id}-{n}")
        conn = None
        mine: list[int] = []
        count = 0
        while time.monotonic() < deadline:
            count += 1
            if conn is None:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            if rng.random() < self.write_share:
                op = self.pick_write(rng, mine)
            else:
                op = rng.choice(["v3_detail", "v3_detail", "v2_detail", "v3_page", "v3_filter"])
            started = time.monotonic()
            try:
                status, problem = getattr(self, op)(conn, rng, n, count, mine)
            except (OSError, http.client.HTTPException) as exc:
                status, problem = type(exc).__name__, ""
                conn.close()
                conn = None
            done = time.monotonic()
            with self.lock:
                self.outcomes.append(
                    Outcome(started - self.started, op, status, done - started, problem)
                )
            if isinstance(status, str):
                time.sleep(0.05)  # a refused connection: do not spin
        if conn is not None:
            conn.close()

    def pick_write(self, rng, mine) -> str:
        if not mine:
            return "w3_create"
        return rng.choice(["w3_create", "w3_create", "w3_read", "w3_rename", "w3_delete"])

    def request(self, conn, method: str, path: str, body: object = None) -> tuple[int, object]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        if response.getheader("Connection", "").lower() == "close":
            conn.close()
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, raw[:200]

    # -- reads -----------------------------------------------------------------------------
    def _detail(self, conn, rng, api: str) -> tuple[int, str]:
        user_id = rng.choice(list(self.seed["users"]))
        status, body = self.request(conn, "GET", f"/api/{api}/auth/user/{user_id}/")
        problem = ""
        if status == 200 and (
            body.get("id") != user_id or body.get("username") != self.seed["users"][user_id]
        ):
            problem = f"asked user {user_id}, got {body.get('id')} {body.get('username')!r}"
        return status, problem

    def v3_detail(self, conn, rng, n, count, mine):
        return self._detail(conn, rng, "v3")

    def v2_detail(self, conn, rng, n, count, mine):
        return self._detail(conn, rng, "v2")

    def v3_page(self, conn, rng, n, count, mine):
        seeded = len(self.seed["users"])
        offset = rng.randrange(0, max(1, seeded - 10))
        # The example resources declare no ordering: ask for an id range instead.
        path = f"/api/v3/auth/user/?id__gt={offset}&id__lte={offset + 10}&limit=10"
        status, body = self.request(conn, "GET", path)
        problem = ""
        if status == 200:
            ids = sorted(o["id"] for o in body["objects"])
            if ids != list(range(offset + 1, offset + 11)) or body["meta"]["total_count"] != 10:
                problem = f"ids {offset + 1}..{offset + 10}: got {ids[:3]}..., meta {body['meta']}"
        return status, problem

    def v3_filter(self, conn, rng, n, count, mine):
        user_id = rng.choice(list(self.seed["users"]))
        name = self.seed["users"][user_id]
        status, body = self.request(conn, "GET", f"/api/v3/auth/user/?username={name}")
        problem = ""
        if status == 200 and [o["id"] for o in body["objects"]] != [user_id]:
            problem = f"username={name!r}: ids {[o['id'] for o in body['objects']]}"
        return status, problem

    # -- writes ------------------------------------------------------------------------------
    def w3_create(self, conn, rng, n, count, mine):
        k = rng.randint(0, 6)
        perms = frozenset(rng.sample(self.seed["permissions"], k))
        name = f"{LOAD_PREFIX}{self.run_id}_{n}_{count}_p{k}"
        uris = [f"/api/w3/auth/permission/{p}/" for p in sorted(perms)]
        with self.lock:
            self.attempted.add(name)
        body = {"username": name, "first_name": f"c{n}", "user_permissions": uris}
        status, answer = self.request(conn, "POST", "/api/w3/auth/user/", body)
        problem = ""
        if status == 201:
            got = {int(u.rstrip("/").rsplit("/", 1)[1]) for u in answer["user_permissions"]}
            if answer.get("username") != name or got != perms:
                answered = answer.get("username")
                problem = f"created {name!r} {sorted(perms)}, answer {answered!r} {sorted(got)}"
            else:
                mine.append(answer["id"])
                with self.lock:
                    self.alive[answer["id"]] = (name, perms)
        return status, problem

    def w3_read(self, conn, rng, n, count, mine):
        user_id = rng.choice(mine)
        status, body = self.request(conn, "GET", f"/api/w3/auth/user/{user_id}/")
        problem = ""
        if status == 200:
            name, perms = self.alive[user_id]
            got = {int(u.rstrip("/").rsplit("/", 1)[1]) for u in body["user_permissions"]}
            if body["username"] != name or got != perms:
                problem = f"user {user_id}: {body['username']!r} {sorted(got)}, expected {name!r}"
        return status, problem

    def w3_rename(self, conn, rng, n, count, mine):
        user_id = rng.choice(mine)
        first = f"r{n}_{count}"
        status, body = self.request(
            conn, "PATCH", f"/api/w3/auth/user/{user_id}/", {"first_name": first}
        )
        problem = ""
        if status == 202 and (body["id"] != user_id or body["first_name"] != first):
            problem = f"renamed {user_id} to {first!r}, answer {body['id']} {body['first_name']!r}"
        return status, problem

    def w3_delete(self, conn, rng, n, count, mine):
        user_id = mine.pop(rng.randrange(len(mine)))
        try:
            status, _ = self.request(conn, "DELETE", f"/api/w3/auth/user/{user_id}/")
        except (OSError, http.client.HTTPException):
            with self.lock:
                self.unanswered_deletes.add(user_id)
            raise
        if status == 204:
            with self.lock:
                self.alive.pop(user_id, None)
        return status, ""

    # -- results ---------------------------------------------------------------------------------
    def summary(self) -> dict:
        by_status = Counter(str(o.status) for o in self.outcomes)
        by_op = Counter(o.op for o in self.outcomes)
        seconds = sorted(o.seconds for o in self.outcomes) or [0.0]
        problems = [o for o in self.outcomes if o.problem]
        elapsed = max((o.t + o.seconds for o in self.outcomes), default=0.0)
        return {
            "requests": len(self.outcomes),
            "per_second": round(len(self.outcomes) / elapsed, 1) if elapsed else 0,
            "by_status": dict(sorted(by_status.items())),
            "by_operation": dict(sorted(by_op.items())),
            "latency_ms": {
                "p50": round(1000 * seconds[len(seconds) // 2], 1),
                "p99": round(1000 * seconds[int(len(seconds) * 0.99)], 1),
                "max": round(1000 * seconds[-1], 1),
            },
            "mismatched_answers": len(problems),
            "mismatch_examples": [f"{o.op}: {o.problem}" for o in problems[:5]],
            "alive_load_users": len(self.alive),
        }


EXPECTED = {
    "v3_detail": {200},
    "v2_detail": {200},
    "v3_page": {200},
    "v3_filter": {200},
    "w3_create": {201},
    "w3_read": {200},
    "w3_rename": {202},
    "w3_delete": {204},
}


def unexpected(outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.status not in EXPECTED[o.op] or o.problem]


# --- afterwards ------------------------------------------------------------------------------
def check_invariants(seed: dict, load: Load | None, strict: bool) -> list[str]:
    """What is wrong in the database after a load (``[]``: nothing).

    ``strict``: every request's outcome is known (no faults), so the users
    in the database are exactly those the clients believe alive.  Otherwise
    a user may exist whose creation answer was lost, but only one that a
    client tried to create.
    """
    from django.contrib.auth.models import User
    from django.db import connection

    connection.close()  # a fresh connection (the server may have restarted)
    problems = []
    through = User.user_permissions.through
    load_users = {u.pk: u.username for u in User.objects.filter(username__startswith=LOAD_PREFIX)}
    perms: dict[int, set[int]] = {pk: set() for pk in load_users}
    for user_id, perm_id in through.objects.filter(user_id__in=list(load_users)).values_list(
        "user_id", "permission_id"
    ):
        perms[user_id].add(perm_id)
    for pk, name in load_users.items():
        k = int(name.rsplit("_p", 1)[1])
        if len(perms[pk]) != k:
            problems.append(f"partial write: user {name} has {len(perms[pk])} permissions, not {k}")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM auth_user_user_permissions p "
            "LEFT JOIN auth_user u ON u.id = p.user_id WHERE u.id IS NULL"
        )
        orphans = cursor.fetchone()[0]
    if orphans:
        problems.append(f"{orphans} permission rows without their user")
    seeded = dict(User.objects.filter(pk__in=list(seed["users"])).values_list("pk", "username"))
    if seeded != seed["users"]:
        problems.append("the seeded users changed")
    rows = through.objects.filter(user_id__in=list(seed["users"])).count()
    if rows != seed["seed_permission_rows"]:
        problems.append(f"seeded permission rows: {rows}, before {seed['seed_permission_rows']}")
    if load is not None:
        for pk, (name, sent) in load.alive.items():
            if pk in load.unanswered_deletes and pk not in load_users:
                continue  # deleted, but the answer was lost
            if load_users.get(pk) != name:
                problems.append(f"user {pk} {name!r} answered 201 but is not there")
            elif perms[pk] != set(sent):
                problems.append(
                    f"user {name}: permissions {sorted(perms[pk])}, sent {sorted(sent)}"
                )
        extra = {name for pk, name in load_users.items() if pk not in load.alive}
        if strict and extra:
            problems.append(f"{len(extra)} users no client knows of, e.g. {sorted(extra)[:3]}")
        unknown = {name for name in extra if name not in load.attempted}
        if unknown:
            problems.append(f"{len(unknown)} users nobody tried to create: {sorted(unknown)[:3]}")
    connection.close()
    return problems


def wait_until(predicate, seconds: float, interval: float = 0.2) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for dist in ("Django", "django-tastypie", "pony", "gunicorn", "psycopg", "psycopg-pool",
                 "psycopg2-binary", "mysqlclient"):  # fmt: skip
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "-"
    return out


def server_version(url: str) -> str:
    try:
        conn = databases.connect(url)
        with conn.cursor() as cursor:
            cursor.execute("SELECT version()")
            text = cursor.fetchone()[0]
        conn.close()
        return text.split(" on ")[0] if backend_of(url) == "postgresql" else f"MariaDB/MySQL {text}"
    except Exception as exc:  # noqa: BLE001
        return f"unknown ({exc})"
