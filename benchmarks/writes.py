"""Writes: ModelResource (``/api/v2/``) and DjonyResource (``/api/v3/``) side by side.

    python -m benchmarks.writes                       # SQLite file, 1000 users
    DATABASE_URL=postgres://postgres@127.0.0.1/bench python -m benchmarks.writes
    python -m benchmarks.writes --rounds 200

Both write through the Django model (``save()``, ``delete()``, signals), so the bar
is "no slower than ModelResource"; the speed DjonyResource promises is on reads.  One
round is a user's life on each API, in random order: POST (with two permissions),
PATCH, PUT, DELETE, as the demo superuser (``ApiKey``).  Before timing, one round on
each API must give the same statuses and bodies (prefix replaced; the new user's key,
URI and creation time aside) and leave no row behind.  The report gives each
request's median and interquartile range and the v2/v3 ratio measured in the same run.
Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from benchmarks.inprocess import setup

STEPS = ("POST", "PATCH", "PUT", "DELETE")
APIS = ("v2", "v3")


def lifecycle(client, api: str, n: int, auth: str, permissions: list[int]) -> list:
    """POST, PATCH, PUT and DELETE one user on ``api``: ``[(step, seconds, response)]``."""
    base = f"/api/{api}/auth/user/"
    perms = [f"/api/{api}/auth/permission/{pk}/" for pk in permissions]
    body = {
        "username": f"writer{n}",
        "email": f"writer{n}@example.org",
        "first_name": "W",
        "last_name": str(n),
        "is_active": True,
        "user_permissions": perms,
    }
    headers = {"HTTP_AUTHORIZATION": auth}
    out = []

    def send(step, path, data=None):
        payload = "" if data is None else json.dumps(data)
        start = time.perf_counter()
        response = client.generic(step, path, payload, content_type="application/json", **headers)
        out.append((step, time.perf_counter() - start, response))
        return response

    created = send("POST", base, body)
    location = created.get("Location") or ""
    path = location[location.index(base) :] if base in location else ""
    if not path:
        sys.exit(f"{api}: POST answered {created.status_code} without a Location; not timing it.")
    send("PATCH", path, {"first_name": "Patched"})
    send("PUT", path, {**body, "last_name": "Put", "user_permissions": perms[:1]})
    send("DELETE", path)
    return out


#: What differs between two created users by nature: their key, URI and creation time.
VOLATILE = ("id", "resource_uri", "date_joined")


def comparable(response) -> tuple:
    if not response.content:
        return response.status_code, None
    data = json.loads(response.content.replace(b"/api/v3/", b"/api/v2/"))
    return response.status_code, {k: v for k, v in data.items() if k not in VOLATILE}


def same_answers(v2: list, v3: list) -> None:
    for (step, _, a), (_, _, b) in zip(v2, v3, strict=True):
        if comparable(a) != comparable(b):
            sys.exit(f"{step}: v2 {comparable(a)}, v3 {comparable(b)}; not timing it.")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="database URL (default: DATABASE_URL or a SQLite file)")
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=100, help="lifecycles per API")
    args = parser.parse_args(argv)
    setup(args.database)

    import django
    from django.contrib.auth.models import Permission, User
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=args.users, reset=not seeding.is_seeded(args.users), progress=None)
    username, key = seeding.demo_api_key()
    auth = f"ApiKey {username}:{key}"
    permissions = list(Permission.objects.order_by("pk").values_list("pk", flat=True)[:2])
    client = Client()
    users_before = User.objects.count()
    same_answers(
        lifecycle(client, "v2", 0, auth, permissions), lifecycle(client, "v3", 0, auth, permissions)
    )
    if User.objects.count() != users_before:
        sys.exit("a lifecycle left a user behind; not timing it.")
    samples = {(api, step): [] for api in APIS for step in STEPS}
    order = list(APIS)
    for n in range(1, args.rounds + 1):
        random.shuffle(order)
        for api in order:
            for step, seconds, _ in lifecycle(client, api, n, auth, permissions):
                samples[(api, step)].append(seconds)
    print(
        f"{connection.vendor}, {args.users} users, Django {django.get_version()}, "
        f"{args.rounds} lifecycles per API, answers identical"
    )
    print(f"{'request':<8} {'v2 ms (IQR)':>20} {'v3 ms (IQR)':>20} {'v2/v3':>7}")
    for step in STEPS:
        cells = []
        for api in APIS:
            times = [t * 1000 for t in samples[(api, step)]]
            q = statistics.quantiles(times, n=4)
            cells.append((statistics.median(times), q[0], q[2]))
        (m2, a2, b2), (m3, a3, b3) = cells
        print(
            f"{step:<8} {m2:>8.2f} ({a2:.2f}-{b2:.2f}) {m3:>8.2f} ({a3:.2f}-{b3:.2f}) "
            f"{m2 / m3:>6.2f}x"
        )


if __name__ == "__main__":
    main()
