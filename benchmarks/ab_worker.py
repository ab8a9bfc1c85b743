"""One side of :mod:`benchmarks.ab`: a process serving the benchmark's APIs, timed on request.

Started by :mod:`benchmarks.ab` in a directory whose ``djony`` and ``tastypie_djony`` are
one commit's and whose ``benchmarks`` and ``example_project`` are the checkout's, so both
sides serve the same resources, floors and data with their own library code.  It reads
one JSON command per line on stdin and answers one JSON line on stdout (anything else
printed goes to stderr):

* ``{"op": "hello"}``: where ``djony`` and ``tastypie_djony`` were imported from;
* ``{"op": "check", "cases": [...]}``: every case's flavours answer 200 and the Tastypie
  ones and the floor answer ModelResource's bytes (:func:`benchmarks.targets.check_variant`,
  :func:`benchmarks.tutorial.check`); the digest of each case's ModelResource body, which
  the coordinator compares between the two sides (same data, same answers), and the
  queries of one request of each flavour;
* ``{"op": "time", "case": ..., "flavours": [...]}``: ``gc.collect()``, then one request
  per flavour in a shuffled order; the seconds of each;
* ``{"op": "quit"}``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import random
import sys
import time
import traceback
from typing import Any

from benchmarks.ab import CASES_BY_NAME, Case


class Side:
    """The requests of every case, served in this process through Django's test client."""

    def __init__(self, user: str) -> None:
        from django.test import Client

        from benchmarks import tutorial

        self.client = Client()
        self.tutorial_headers = tutorial.headers(user)

    def request(self, case: Case, flavour: str) -> tuple[str, dict[str, str]]:
        """The URL and headers of ``case`` in ``flavour``."""
        from benchmarks import targets, tutorial

        if case.tutorial:
            return tutorial.PREFIXES[flavour] + tutorial.CASES_BY_NAME[case.source].path, dict(
                self.tutorial_headers
            )
        target = targets.Target(case.variant, flavour)
        return target.url(case.source), targets.credentials(case.variant)

    def get(self, case: Case, flavour: str) -> Any:
        url, headers = self.request(case, flavour)
        return self.client.get(url, **headers)

    def check(self, case: Case, flavours: tuple[str, ...]) -> dict[str, Any]:
        """Refuse (raise) unless every flavour answers as ModelResource; the digest of
        ModelResource's body and each flavour's queries per request."""
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from benchmarks import targets, tutorial

        if case.tutorial:
            tutorial.check(
                self.client,
                tutorial.CASES_BY_NAME[case.source],
                flavours,
                dict(self.tutorial_headers),
            )
        else:
            targets.check_variant(self.client, case.variant, case.source, flavours)
        queries = {}
        for flavour in flavours:
            with CaptureQueriesContext(connection) as captured:
                self.get(case, flavour)
            queries[flavour] = len(captured)
        digest = hashlib.sha256(self.get(case, "v2").content).hexdigest()
        return {"digest": digest, "queries": queries}

    def time(self, case: Case, flavours: list[str]) -> dict[str, float]:
        order = list(flavours)
        random.shuffle(order)
        gc.collect()
        seconds = {}
        for flavour in order:
            url, headers = self.request(case, flavour)
            start = time.perf_counter()
            response = self.client.get(url, **headers)
            seconds[flavour] = time.perf_counter() - start
            if response.status_code != 200:
                raise RuntimeError(f"{case.name} {flavour}: HTTP {response.status_code}")
        return seconds


def origins() -> dict[str, str]:
    """The real directories the library packages were imported from, and the versions."""
    import django
    import tastypie

    import djony
    import tastypie_djony

    return {
        "djony": os.path.realpath(os.path.dirname(djony.__file__)),
        "tastypie_djony": os.path.realpath(os.path.dirname(tastypie_djony.__file__)),
        "django": django.get_version(),
        "tastypie": tastypie.__version__,
        "python": sys.version.split()[0],
    }


def prepare(database: str, users: int, entries: int, authors: int) -> str:
    """Django on the benchmark's URLs, migrated and seeded (a no-op once seeded)."""
    from benchmarks.inprocess import setup

    setup(database)
    from django.core.management import call_command
    from django.db import connection

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=users, reset=not seeding.is_seeded(users), progress=None)
    seeding.seed_entries(entries=entries, authors=authors)
    seeding.demo_api_key()
    return connection.vendor


def main() -> None:
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever else is printed must not reach the protocol
    sys.stdout = sys.stderr
    database, users, entries, authors = sys.argv[1], *map(int, sys.argv[2:5])
    vendor = prepare(database, users, entries, authors)
    side = Side(sys.argv[5])
    for line in sys.stdin:
        command = json.loads(line)
        op = command["op"]
        if op == "quit":
            return
        try:
            answer = run(side, vendor, command)
        except Exception as error:  # the coordinator prints it and stops both sides
            answer = {"error": f"{type(error).__name__}: {error}\n{traceback.format_exc()}"}
        answers.write(json.dumps(answer) + "\n")


def run(side: Side, vendor: str, command: dict[str, Any]) -> Any:
    """The answer to one command."""
    op = command["op"]
    if op == "hello":
        return {**origins(), "vendor": vendor}
    if op == "check":
        flavours = tuple(command["flavours"])
        return {name: side.check(CASES_BY_NAME[name], flavours) for name in command["cases"]}
    if op == "time":
        return side.time(CASES_BY_NAME[command["case"]], command["flavours"])
    raise ValueError(f"unknown command {op!r}")


if __name__ == "__main__":
    main()
