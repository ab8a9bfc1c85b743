"""The side-by-side timing that :mod:`benchmarks.tutorial` and :mod:`benchmarks.realshapes`
share: the same cases served by every flavour of an API, checked, then timed.

A :class:`Sides` names each flavour's URL prefix (``v2`` ModelResource, ``v2p``
ModelResource + prefetch, ``v3`` DjonyResource, ``drf`` DRF + prefetch, ``raw`` the
hand-written SQL floor) and the API prefix the floor's links name.  :func:`check` refuses
(:class:`NotIdentical`) unless every flavour answers a case 200 with v2's bytes (each
API's prefix made common; DRF: v2's data); :func:`measure` times every (case, flavour)
once a round, by default each flavour's cases in a turn of their own (flavours and cases
in a fresh shuffled order each round, ``gc.collect()`` before each turn: each request but
a turn's first follows others of its own flavour, as on a server that runs one), so load on a shared
machine hits all of them alike, a round's turns running moments apart; :func:`ratio`
compares two flavours over those rounds; :func:`print_tables` writes the medians and the
ratios as Markdown tables, and :func:`count_queries` / :func:`print_queries` the SQL
queries of one request of each.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tastypie_djony.verify.differences import byte_difference, decode_json, json_difference

COMMON = b"/api/<api>/"
#: The ratios printed side by side: (over, under), each "over / under".
RATIOS = (("v2", "v3"), ("v2p", "v3"), ("drf", "v3"), ("v3", "raw"))


@dataclass(frozen=True)
class Case:
    name: str
    path: str  # below the API prefix
    what: str


@dataclass(frozen=True)
class Sides:
    """Where each flavour of one API is served."""

    prefixes: dict[str, str]
    raw_links: str  # the API prefix in the floor's links (it writes ModelResource's)

    @property
    def flavours(self) -> tuple[str, ...]:
        return tuple(self.prefixes)

    def get(self, client: Any, flavour: str, case: Case, extra: dict[str, str]) -> Any:
        return client.get(self.prefixes[flavour] + case.path, **extra)

    def common(self, flavour: str, body: bytes) -> bytes:
        """``body`` with its API's own link prefix made common."""
        prefix = self.raw_links if flavour == "raw" else self.prefixes[flavour]
        return body.replace(prefix.encode(), COMMON)


#: ``get(client, flavour, case, extra)``: one request (a module may wrap :meth:`Sides.get`).
Getter = Callable[[Any, str, Case, dict], Any]


class NotIdentical(Exception):
    """A flavour answers otherwise than ModelResource: nothing is timed."""


def check(
    sides: Sides, client: Any, case: Case, flavours: tuple[str, ...], extra: dict, get: Getter
) -> int:
    """Raise :class:`NotIdentical` unless every flavour answers ``case`` as v2 does; return
    the size of v2's body."""
    reference = get(client, "v2", case, extra)
    if reference.status_code != 200:
        raise NotIdentical(f"v2 {case.name}: HTTP {reference.status_code}")
    expected = sides.common("v2", reference.content)
    for flavour in flavours:
        if flavour == "v2":
            continue
        answer = get(client, flavour, case, extra)
        if answer.status_code != 200:
            raise NotIdentical(
                f"{flavour} {case.name}: HTTP {answer.status_code} {answer.content[:300]!r}"
            )
        body = sides.common(flavour, answer.content)
        if flavour == "drf":
            xml = expected.startswith(b"<?xml")
            decode = xml_data if xml else decode_json
            where = json_difference(decode(expected), decode(body))
            if where is not None:
                raise NotIdentical(f"drf {case.name}: data differs from v2's at {where}")
        elif body != expected:
            raise NotIdentical(
                f"{flavour} {case.name}: body differs from v2's: "
                + byte_difference(expected, body, context=120, labels=("v2", flavour))
            )
    return len(reference.content)


def xml_data(body: bytes) -> Any:
    """An XML answer as data, to compare DRF's (``rest_framework_xml``) with Tastypie's.

    An element typed ``list``, named ``objects`` or whose children are all ``list-item``
    is a list; one with other children a dictionary of them; any other its text.  An
    empty element is ``""`` on both (DRF writes an empty list, ``None`` and ``""`` alike)."""
    from lxml.etree import fromstring

    body = body.replace(COMMON, b"/api/common/")  # (its angle brackets are not XML)

    def data(element: Any) -> Any:
        children = list(element)
        listed = element.get("type") == "list" or element.tag == "objects"
        if children and all(child.tag == "list-item" for child in children):
            listed = True
        if listed and children:
            return [data(child) for child in children]
        if children:
            return {child.tag: data(child) for child in children}
        return element.text or ""

    return data(fromstring(body))


def count_queries(
    client: Any, cases: list[Case], flavours: tuple[str, ...], extra: dict, get: Getter
) -> dict[tuple[str, str], int]:
    """The SQL queries of one request of each (case, flavour)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = {}
    for case in cases:
        for flavour in flavours:
            with CaptureQueriesContext(connection) as captured:
                get(client, flavour, case, extra)
            counts[(case.name, flavour)] = len(captured)
    return counts


#: How a round orders its requests (``--order``): ``turns``, each flavour's requests in a
#: turn of its own, each but the turn's first after other requests of its own flavour, as
#: on a server that runs one flavour; ``mixed``, every (case, flavour) in one shuffled
#: order, each request after any flavour's (a flavour whose code differs most from the
#: others' then runs colder).
ORDERS = ("turns", "mixed")


def add_order_argument(parser: Any) -> None:
    """The ``--order`` option of a benchmark's command line (:data:`ORDERS`)."""
    parser.add_argument(
        "--order",
        choices=ORDERS,
        default="turns",
        help="turns (default): each flavour's requests in a turn of their own each round, as "
        "on a server running that flavour; mixed: every request of every flavour shuffled",
    )


def measure(
    client: Any,
    cases: list[Case],
    flavours: tuple[str, ...],
    rounds: int,
    extra: dict,
    get: Getter,
    order: str = "turns",
    collect: Callable[[], Any] = gc.collect,
) -> dict[tuple[str, str], list[float]]:
    """Seconds of each (case, flavour) by round, in ``order`` (:data:`ORDERS`).

    Each round shuffles the cases and the flavours again and collects the garbage
    (``collect()``) before each turn (``turns``: one per flavour, the cases in the round's
    order) or before the round (``mixed``).  With one case both orders are the same: each
    request follows the other flavours' one.
    """
    if order not in ORDERS:
        raise ValueError(f"order={order!r}: one of {ORDERS}")
    samples: dict[tuple[str, str], list[float]] = {(c.name, f): [] for c in cases for f in flavours}
    for case in cases:  # warm-up
        for flavour in flavours:
            get(client, flavour, case, extra)

    def timed(case: Case, flavour: str) -> None:
        start = time.perf_counter()
        response = get(client, flavour, case, extra)
        samples[(case.name, flavour)].append(time.perf_counter() - start)
        if response.status_code != 200:
            raise RuntimeError(f"{flavour} {case.name}: HTTP {response.status_code}")

    for _ in range(rounds):
        for turn in _turns(cases, flavours, order):
            collect()
            for case, flavour in turn:
                timed(case, flavour)
    return samples


def _turns(cases: list[Case], flavours: tuple[str, ...], order: str) -> list[list[tuple]]:
    """One round's requests, ``(case, flavour)``, as the turns :func:`measure` times in
    ``order``: each flavour's (shuffled) in the same shuffled order of the cases, or
    every request of the round in one shuffled turn."""
    if order == "mixed":
        return [
            random.sample([(c, f) for c in cases for f in flavours], len(cases) * len(flavours))
        ]
    shuffled_cases = random.sample(cases, len(cases))
    return [
        [(case, flavour) for case in shuffled_cases]
        for flavour in random.sample(flavours, len(flavours))
    ]


def ratio(samples: dict, case: str, over: str, under: str, of: str = "medians") -> tuple:
    """``over`` against ``under``: ``of="medians"`` the median of ``over`` over the median
    of ``under``, ``of="rounds"`` the median of the per-round ratios; with the
    interquartile range of the per-round ratios."""
    a, b = samples[(case, over)], samples[(case, under)]
    per_round = [x / y for x, y in zip(a, b, strict=True)]
    if of == "rounds":
        value = statistics.median(per_round)
    elif of == "medians":
        value = statistics.median(a) / statistics.median(b)
    else:
        raise ValueError(f"of={of!r}: 'medians' or 'rounds'")
    quartiles = statistics.quantiles(per_round, n=4) if len(per_round) > 1 else per_round * 3
    return value, f"{quartiles[0]:.2f}-{quartiles[2]:.2f}"


def print_tables(
    vendor: str,
    cases: list[Case],
    samples: dict,
    flavours: tuple,
    of: str = "medians",
    ratios: tuple = RATIOS,
) -> None:
    """The medians (ms) and the ``ratios`` (default :data:`RATIOS`) of every case, as
    Markdown tables."""
    print(f"\n### {vendor}: medians, ms\n")
    print("| case | " + " | ".join(flavours) + " |")
    print("|---|" + "---:|" * len(flavours))
    for case in cases:
        cells = [f"{statistics.median(samples[(case.name, f)]) * 1000:.2f}" for f in flavours]
        print(f"| {case.what} | " + " | ".join(cells) + " |")
    title = "medians of per-round ratios" if of == "rounds" else "ratios of medians"
    print(f"\n### {vendor}: {title} [IQR of per-round ratios]\n")
    names = [f"{over} / {under}" + (" floor" if under == "raw" else "") for over, under in ratios]
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(ratios))
    for case in cases:
        cells = []
        for over, under in ratios:
            if over in flavours and under in flavours:
                value, spread = ratio(samples, case.name, over, under, of)
                cells.append(f"{value:.2f}x [{spread}]")
            else:
                cells.append("")
        print(f"| {case.what} | " + " | ".join(cells) + " |")


def print_queries(vendor: str, cases: list[Case], counts: dict, flavours: tuple) -> None:
    """The queries of one request of each case, by flavour, as a Markdown table."""
    print(f"\n### {vendor}: queries per request\n")
    print("| case | " + " | ".join(flavours) + " |")
    print("|---|" + "---:|" * len(flavours))
    for case in cases:
        cells = [str(counts[(case.name, f)]) for f in flavours]
        print(f"| {case.what} | " + " | ".join(cells) + " |")
