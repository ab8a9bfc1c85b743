"""Tastypie's tutorial resource and the other shapes real projects write, side by side.

    python -m benchmarks.tutorial                          # SQLite file, 50 users, 500 entries
    python -m benchmarks.tutorial --database postgres://postgres@127.0.0.1/bench_tutorial
    python -m benchmarks.tutorial --cases entry-detail,entry-page --rounds 200

The resources are :mod:`example_project.showcase.tutorial`'s (the tutorial's
``EntryResource``: ``ForeignKey(UserResource, "user", full=True)``, a ``dehydrate()``
reading ``bundle.obj``, ``ApiKeyAuthentication`` + ``DjangoAuthorization``; a plain entry
resource; a per-user ``get_object_list``; users with their entries nested ``full=True``),
each in five flavours: ``v2`` ModelResource (``/api/v2/``), ``v2p`` ModelResource with
``select_related``/``prefetch_related`` (``/api/v2p/``), ``v3`` DjonyResource
(``/api/v3/``), ``drf`` DRF + the same prefetch (:mod:`benchmarks.tutorial_drf`) and
``raw`` the hand-written SQL floor (:mod:`benchmarks.tutorial_raw`).  Requests carry the
demo superuser's ``ApiKey`` header, or with ``--as editor`` a user who holds the permissions
through a group (:data:`USERS`).

Before timing, every flavour must answer 200, the Tastypie flavours and the floor with
v2's bytes (each API's prefix replaced by a common one), DRF with v2's data; a wrong
answer has no speed.  Then rounds that request every (case, flavour) once each, each
flavour's cases in a turn of their own (``--order turns``, the default: as on a server
running that flavour; ``--order mixed`` shuffles every request of every flavour), in a
fresh shuffled order with ``gc.collect()`` before each turn, so load on the shared machine
hits all of them alike; the tables give medians and ratios of medians with the
interquartile range of the per-round ratios (:mod:`benchmarks.harness` does the checking
and the timing).  Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.harness import Case, NotIdentical

SIDES = harness.Sides(
    prefixes={
        "v2": "/api/v2/",
        "v2p": "/api/v2p/",
        "v3": "/api/v3/",
        "drf": "/api/tutorial-drf/",
        "raw": "/raw/tutorial/",
    },
    raw_links="/api/v2/",  # what the floor's URIs name (it writes ModelResource's)
)
PREFIXES = SIDES.prefixes
FLAVOURS = SIDES.flavours

CASES = (
    Case("entry-detail", "entry/7/?format=json", "tutorial EntryResource: detail"),
    Case("entry-page", "entry/?format=json", "tutorial EntryResource: default page (20)"),
    Case("entry-all", "entry/?format=json&limit=0", "tutorial EntryResource: limit=0 (500)"),
    Case("plain-page", "plainentry/?format=json", "plain entries (no relations, no hooks): page"),
    Case("plain-detail", "plainentry/7/?format=json", "plain entries: detail"),
    Case("mine-page", "myentry/?format=json", "per-user get_object_list: page"),
    Case("mine-detail", "myentry/51/?format=json", "per-user get_object_list: detail"),
    Case("author-detail", "author/7/?format=json", "reverse to-many full=True: detail"),
    Case("author-page", "author/?format=json", "reverse to-many full=True: page (20)"),
    Case("author-all", "author/?format=json&limit=0", "reverse to-many full=True: limit=0"),
)
CASES_BY_NAME = {case.name: case for case in CASES}


#: Whose ``ApiKey`` the requests carry (``--as``): the demo superuser, whom
#: ``DjangoAuthorization`` lets through without reading permissions, or an editor, a user
#: holding the ``change`` permissions through a group, whose permissions Django's backend
#: reads on each request.
USERS = ("demo", "editor")
#: The cases only the demo user gets a 200 for (an entry of its own): left out for others.
DEMO_ONLY = frozenset({"mine-detail"})


def headers(user: str = "demo") -> dict[str, str]:
    from example_project.showcase import seeding

    key_of = seeding.editor_api_key if user == "editor" else seeding.demo_api_key
    username, key = key_of()
    return {"HTTP_AUTHORIZATION": f"ApiKey {username}:{key}"}


def get(client: Any, flavour: str, case: Case, extra: dict[str, str]) -> Any:
    return SIDES.get(client, flavour, case, extra)


def check(client: Any, case: Case, flavours: tuple[str, ...], extra: dict) -> int:
    """Raise :class:`NotIdentical` unless every flavour answers ``case`` as v2 does."""
    return harness.check(SIDES, client, case, flavours, extra, get=get)


def prepare(database: str | None, authors: int, entries: int) -> None:
    """Django set up on the benchmark's URLs, migrated, seeded (users, then entries)."""
    from benchmarks.inprocess import setup

    default = f"sqlite:///{Path(__file__).resolve().parent / 'bench-tutorial.sqlite3'}"
    setup(database or default)
    from django.core.management import call_command

    from example_project.showcase import seeding

    call_command("migrate", verbosity=0)
    seeding.seed(users=authors, reset=not seeding.is_seeded(authors), progress=None)
    seeding.seed_entries(entries=entries, authors=authors)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="database URL (default: a SQLite file)")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--cases", help="comma-separated, of: " + ", ".join(CASES_BY_NAME))
    parser.add_argument("--flavours", default=",".join(FLAVOURS))
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--json", help="write every sample (seconds) to this file")
    parser.add_argument(
        "--as", dest="user", choices=USERS, default="demo", help="whose ApiKey (see USERS)"
    )
    harness.add_order_argument(parser)
    args = parser.parse_args(argv)
    prepare(args.database, args.users, args.entries)

    import django
    import tastypie
    from django.db import connection
    from django.test import Client

    if args.cases:
        cases = [CASES_BY_NAME[n] for n in args.cases.split(",")]
    else:
        cases = [case for case in CASES if args.user == "demo" or case.name not in DEMO_ONLY]
    flavours = tuple(args.flavours.split(","))
    client = Client()
    extra = headers(args.user)
    print(
        f"{connection.vendor}, {args.users} users, {args.entries} entries, as {args.user}, Django "
        f"{django.get_version()}, tastypie {tastypie.__version__}, Python "
        f"{sys.version.split()[0]}, {args.rounds} rounds, order: {args.order}"
    )
    try:
        sizes = {case.name: check(client, case, flavours, extra) for case in cases}
    except NotIdentical as error:
        sys.exit(f"not timing: {error}")
    print(
        "bodies identical to ModelResource's (DRF: same data): "
        + ", ".join(f"{name} ({size:,} bytes)" for name, size in sizes.items())
    )
    samples = harness.measure(
        client, cases, flavours, args.rounds, extra, get=get, order=args.order
    )
    harness.print_tables(connection.vendor, cases, samples, flavours)
    if args.json:
        Path(args.json).write_text(
            json.dumps({f"{c}/{f}": times for (c, f), times in samples.items()}, indent=1)
        )


if __name__ == "__main__":
    main()
