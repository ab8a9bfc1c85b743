"""Resources shaped like three public Tastypie APIs (pinry, wger, django-oppia), side by side.

    python -m benchmarks.realshapes                          # SQLite file
    python -m benchmarks.realshapes --database postgres://postgres@127.0.0.1:5432/djony_bench
    python -m benchmarks.realshapes --cases pin-detail,pin-page --rounds 60

The resources are :mod:`example_project.showcase.realshapes`'s: pins with their
submitter and image nested ``full=True``, tags from a ``dehydrate_tags`` reading
``bundle.obj.tags.all()``, an ``Authorization`` filtering ``read_list``,
``prepend_urls``; exercises detailed by slug (``detail_uri_name`` + ``prepend_urls``),
their category and muscles as URIs, a ``dehydrate_description``, filtered by
``category__name__in`` and searched by ``name__icontains``, also in XML; a user's points
behind ``ApiKeyAuthentication``, narrowed to the user by ``authorized_read_list``, a
``dehydrate()`` adding a key.  Each
in six flavours: ``v2`` ModelResource (``/api/shapes-v2/``), ``v2p`` ModelResource with
``select_related``/``prefetch_related`` (``/api/shapes-v2p/``), ``v3`` DjonyResource
(``/api/shapes-v3/``), ``v3p`` DjonyResource on v2p's querysets (``/api/shapes-v3p/``: that
tuned API switched, as a project switches it: ``v2p / v3p``), ``drf`` DRF + the same
prefetch (:mod:`benchmarks.realshapes_drf`) and ``raw`` the hand-written SQL floor
(:mod:`benchmarks.realshapes_raw`).  Requests carry
the demo user's ``ApiKey`` header (only the points read it).

:mod:`benchmarks.harness` checks every flavour first (the Tastypie flavours and the floor
must answer v2's bytes, DRF v2's data; a wrong answer has no speed: nothing is timed),
counts the queries of one request of each, then times rounds, each flavour's requests in
a turn of their own (``--order``: :data:`benchmarks.harness.ORDERS`).  The
ratios are medians of the per-round ratios, with their interquartile range.  Nothing here
is a pass/fail test.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.harness import Case, NotIdentical

SIDES = harness.Sides(
    prefixes={
        "v2": "/api/shapes-v2/",
        "v2p": "/api/shapes-v2p/",
        "v3": "/api/shapes-v3/",
        "v3p": "/api/shapes-v3p/",
        "drf": "/api/shapes-drf/",
        "raw": "/raw/shapes/",
    },
    raw_links="/api/shapes-v2/",
)
FLAVOURS = SIDES.flavours
#: The harness's ratios, and the tuned API switched against itself before the switch.
RATIOS = (*harness.RATIOS, ("v2p", "v3p"))
CASES = (
    Case("pin-detail", "pin/41/?format=json", "pinry pin: detail"),
    Case("pin-page", "pin/?format=json", "pinry pin: default page (20)"),
    Case(
        "pin-submitters",
        "pin/?format=json&submitter__in=2,3,5,8&limit=50",
        "pinry pin: submitter__in, limit=50",
    ),
    Case("exercise-detail", "exercise/{slug}/?format=json", "wger exercise: detail by slug"),
    Case("exercise-page", "exercise/?format=json", "wger exercise: default page (20)"),
    Case(
        "exercise-categories",
        "exercise/?format=json&category__name__in=Arms,Legs,Chest&limit=50",
        "wger exercise: category__name__in, limit=50",
    ),
    Case(
        "exercise-search",
        "exercise/?format=json&name__icontains=press&limit=50",
        "wger exercise: name__icontains, limit=50",
    ),
    Case(
        "exercise-detail-xml", "exercise/{slug}/?format=xml", "wger exercise: detail by slug, XML"
    ),
    Case("exercise-page-xml", "exercise/?format=xml", "wger exercise: default page (20), XML"),
    Case("points-detail", "points/{points}/?format=json", "oppia points: own detail"),
    Case("points-page", "points/?format=json", "oppia points: own default page (20)"),
)
CASES_BY_NAME = {case.name: case for case in CASES}
AUTHORS = 30


def concrete(cases: tuple[Case, ...] | list[Case]) -> list[Case]:
    """The cases with the seeded rows' keys filled in (an exercise's slug, a points id of
    the demo user's)."""
    from example_project.showcase.realshapes.models import Exercise, Points
    from example_project.showcase.seeding import DEMO_USER_ID

    keys = {
        "slug": Exercise.objects.get(pk=17).slug,
        "points": Points.objects.filter(user_id=DEMO_USER_ID).order_by("id")[5].pk,
    }
    return [Case(case.name, case.path.format(**keys), case.what) for case in cases]


def headers() -> dict[str, str]:
    from example_project.showcase import seeding

    username, key = seeding.demo_api_key()
    return {"HTTP_AUTHORIZATION": f"ApiKey {username}:{key}"}


def get(client: Any, flavour: str, case: Case, extra: dict[str, str]) -> Any:
    return SIDES.get(client, flavour, case, extra)


def check(client: Any, case: Case, flavours: tuple[str, ...], extra: dict) -> int:
    """Raise :class:`NotIdentical` unless every flavour answers ``case`` as v2 does."""
    return harness.check(SIDES, client, case, flavours, extra, get=get)


def seed() -> None:
    """Users (the tutorial benchmark's 50), then the shapes' rows."""
    from example_project.showcase import seeding
    from example_project.showcase.realshapes.seeding import seed_shapes

    seeding.seed(users=50, reset=not seeding.is_seeded(50), progress=None)
    seed_shapes(authors=AUTHORS)


def prepare(database: str | None) -> None:
    """Django set up on the benchmark's URLs, migrated, seeded."""
    from benchmarks.inprocess import setup

    default = f"sqlite:///{Path(__file__).resolve().parent / 'bench-realshapes.sqlite3'}"
    setup(database or default)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    seed()


def run(
    client: Any,
    cases: list[Case],
    flavours: tuple[str, ...],
    rounds: int,
    extra: dict,
    order: str = "turns",
    collect: Callable[[], Any] = gc.collect,
) -> tuple[dict, dict, dict]:
    """Check every case (raises :class:`NotIdentical`), count its queries, time it:
    ``(sizes, query counts, samples)``; ``collect``: :func:`benchmarks.harness.measure`'s."""
    sizes = {case.name: check(client, case, flavours, extra) for case in cases}
    counts = harness.count_queries(client, cases, flavours, extra, get=get)
    samples = harness.measure(
        client, cases, flavours, rounds, extra, get=get, order=order, collect=collect
    )
    return sizes, counts, samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="database URL (default: a SQLite file)")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--cases", help="comma-separated, of: " + ", ".join(CASES_BY_NAME))
    parser.add_argument("--flavours", default=",".join(FLAVOURS))
    parser.add_argument("--json", help="write every sample (seconds) to this file")
    harness.add_order_argument(parser)
    args = parser.parse_args(argv)
    prepare(args.database)

    import django
    import tastypie
    from django.db import connection
    from django.test import Client

    chosen = [CASES_BY_NAME[n] for n in args.cases.split(",")] if args.cases else list(CASES)
    cases = concrete(chosen)
    flavours = tuple(args.flavours.split(","))
    print(
        f"{connection.vendor}, Django {django.get_version()}, tastypie {tastypie.__version__}, "
        f"Python {sys.version.split()[0]}, {args.rounds} rounds, order: {args.order}"
    )
    try:
        sizes, counts, samples = run(
            Client(), cases, flavours, args.rounds, headers(), order=args.order
        )
    except NotIdentical as error:
        sys.exit(f"not timing: {error}")
    print(
        "bodies identical to ModelResource's (DRF: same data): "
        + ", ".join(f"{name} ({size:,} bytes)" for name, size in sizes.items())
    )
    harness.print_queries(connection.vendor, cases, counts, flavours)
    harness.print_tables(connection.vendor, cases, samples, flavours, of="rounds", ratios=RATIOS)
    if args.json:
        Path(args.json).write_text(
            json.dumps({f"{c}/{f}": times for (c, f), times in samples.items()}, indent=1)
        )


if __name__ == "__main__":
    main()
