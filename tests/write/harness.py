"""The differential write harness: a case run on ModelResource and on DjonyResource.

A :class:`Case` is a sequence of requests (:class:`Req`; paths relative to the API root,
``/API/`` in a body standing for the API's own prefix) with the statuses ModelResource
answers.  :func:`run_case` runs it on one API: the test tables are reset to the seed rows
of :mod:`tests.write.api` with every auto-increment counter at 100, the case's ``setup``
runs, the requests are sent, and every row of every test table is read after each
request.  Two runs are the same (:func:`compare_runs`) when, for every request, status,
Content-Type, Location and body are equal once the API prefix is replaced, and every
table holds the same rows (an auto-created M2M table without its ``id``: see
:func:`tests.write.api.snapshot`).

The requests run in autocommit, as on a server without ATOMIC_REQUESTS, not
in a savepoint per request: ModelResource's partial writes must stay
visible, and a savepoint would undo them whenever a database error went
through Django's ``atomic``.  Counters are reset instead of rolled back (a
rollback does not give back sequence values on PostgreSQL and MariaDB), so
a created row has the same primary key whichever API created it.  The test
client answers a 500 for an exception (``SERVER_NAME`` is not
``testserver``); a request that still raises counts as a 500.

Values a run cannot reproduce are normalised on both sides, by position:
datetimes within the run's time window (``timezone.now`` defaults,
``auto_now``/``auto_now_add``) become ``<now>`` (so a NULL or an old value
still differs), generated UUIDs (``Publisher.uid``) become ``<uuid-1>``...,
and generated ``AllTypes.code`` values become ``<code-1>``... (two rows given
the same generated code would show as the same placeholder).

:func:`check_case` compares a case's run on an API with ModelResource's.  Where
ModelResource is broken (a 500 for bad input, or rows left behind by a failing
request), the module of cases records a :class:`Bug`: the check asserts that v2 really
does that (so the entry cannot go stale), and that v3 answers 400 with an error message
and changes nothing.  Where DjonyResource answers otherwise on purpose, an
:class:`Intended` entry says how.  :func:`check_reference` asserts ModelResource's
statuses against the case's ``expect``, so a case keeps testing what its name says.

The modules of cases: :mod:`tests.write.test_differential`, :mod:`tests.write.test_patch`,
:mod:`tests.write.test_rows` and :mod:`tests.write.test_bodies`;
:mod:`tests.patterns.testing` runs its scenarios with the same requests, normalisation
and table comparison.
"""

from __future__ import annotations

import datetime
import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import django
from django.db import connection
from django.utils import timezone

from tests.write import api as write_api
from tests.write.api import API_MARKER, PUB_ORBIT, PUB_PENGUIN, SEED_CODES, api_client, send

#: The API every case is compared with: ModelResource.
REFERENCE = "v2"
BACKENDS = ("sqlite", "postgresql", "mysql")


# =============================================================================
# Cases
# =============================================================================
@dataclass(frozen=True)
class Req:
    method: str
    path: str
    body: object = None
    content_type: str = "application/json"

    def text(self) -> str:
        body = (
            self.body if isinstance(self.body, str) else json.dumps(self.body, ensure_ascii=False)
        )
        return f"{self.method} {self.path} {body}"


def post(path, body, **kw) -> Req:
    return Req("POST", path, body, **kw)


def put(path, body, **kw) -> Req:
    return Req("PUT", path, body, **kw)


def patch(path, body, **kw) -> Req:
    return Req("PATCH", path, body, **kw)


def delete(path) -> Req:
    return Req("DELETE", path)


def get(path) -> Req:
    return Req("GET", path)


@dataclass(frozen=True)
class Case:
    name: str
    category: str
    requests: tuple[Req, ...]
    expect: (
        tuple[int, ...] | dict[str, tuple[int, ...]]
    )  # ModelResource's statuses, maybe per backend
    setup: Callable[[], None] | None = None

    def text(self) -> str:
        return "\n".join(r.text() for r in self.requests)


@dataclass(frozen=True)
class Bug:
    """ModelResource is broken on a case's last request.

    ``status``: what v2 answers (500 for an unexpected exception).
    ``partial``: v2 leaves rows changed although the request failed.
    ``v3_status``: what DjonyResource answers (400 with a message; 500 only
    where the client's own code raised a plain exception).
    """

    reason: str
    status: int = 500
    partial: bool = False
    v3_status: int = 400
    backends: tuple[str, ...] = BACKENDS
    at: int = -1  # which request (index into the case's requests)

    @property
    def is_partial(self) -> bool:
        """Whether v2 leaves rows changed."""
        return self.partial


def case_adder(cases: list[Case]) -> Callable[..., None]:
    """A ``case(name, category, *requests, expect=..., setup=...)`` that appends to ``cases``.

    Each module of cases keeps its own list and runs it with :func:`check_case`.
    """

    def case(name, category, *requests, expect, setup=None) -> None:
        def statuses(value):
            value = (value,) if isinstance(value, int) else tuple(value)
            assert len(value) == len(requests), name
            return value

        if isinstance(expect, dict):
            expect = {vendor: statuses(value) for vendor, value in expect.items()}
        else:
            expect = statuses(expect)
        assert name not in {c.name for c in cases}, name
        cases.append(Case(name, category, tuple(requests), expect, setup))

    return case


# =============================================================================
# Running a case
# =============================================================================
@dataclass
class Run:
    """What one API did with a case, normalised, ready to compare.

    ``tables[0]`` is the state before the first request (after ``setup``),
    ``tables[i]`` the state after request ``i``.
    """

    api: str
    responses: list[dict]
    tables: list[dict[str, list[dict]]]


UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
CODE_RE = re.compile(r'(\\?"code\\?": \\?")([0-9a-f]{8})(\\?")')  # also inside a JSON string
ISO_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)?")
SEED_UUIDS = {str(PUB_PENGUIN), str(PUB_ORBIT), "33333333-3333-4333-8333-333333333333"}
#: Tables whose primary key is not a counter: rows are sorted by their normalised values.
UNORDERED_TABLES = {
    m._meta.db_table
    for m in write_api.all_tables()
    if m._meta.pk.get_internal_type() not in ("AutoField", "BigAutoField", "OneToOneField")
}


def _in_window(value: datetime.datetime, window) -> bool:
    if timezone.is_naive(value):
        value = timezone.make_aware(value)
    start, end = window
    slack = datetime.timedelta(seconds=2)
    return start - slack <= value <= end + slack


def _now_in_text(text: str, window) -> str:
    def replace(match: re.Match) -> str:
        try:
            value = datetime.datetime.fromisoformat(match.group(0).replace("Z", "+00:00"))
        except ValueError:
            return match.group(0)
        return "<now>" if _in_window(value, window) else match.group(0)

    return ISO_RE.sub(replace, text)


def _jsonable(value, window):
    if isinstance(value, datetime.datetime):
        return "<now>" if _in_window(value, window) else value.isoformat()
    if isinstance(value, datetime.date | datetime.time | datetime.timedelta | Decimal):
        return f"{type(value).__name__}({value})"
    if isinstance(value, bytes):
        return f"bytes({value.hex()})"
    if isinstance(value, float):
        return f"float({value!r})"
    if isinstance(value, dict | list | tuple):
        return "json:" + json.dumps(value, sort_keys=True, default=str)  # a JSONField value
    if value is None or isinstance(value, bool | int | str):
        return value
    return f"{type(value).__name__}({value})"


class Placeholders:
    """Generated values (UUID pks, callable defaults) -> ``<kind-N>`` by first appearance."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.seen: dict[str, str] = {}

    def name(self, kind: str, value: str) -> str:
        if value in self.known:
            return value
        key = f"{kind}:{value}"
        if key not in self.seen:
            self.seen[key] = f"<{kind}-{sum(k.startswith(kind) for k in self.seen) + 1}>"
        return self.seen[key]

    def __call__(self, text: str) -> str:
        text = UUID_RE.sub(lambda m: self.name("uuid", m.group(0)), text)
        return CODE_RE.sub(lambda m: m.group(1) + self.name("code", m.group(2)) + m.group(3), text)


def run_case(case: Case, api: str, client=None) -> Run:
    client = client or api_client()
    write_api.reset()
    if case.setup:
        case.setup()
    start = timezone.now()
    snapshots = [write_api.snapshot()]
    raw = []
    for req in case.requests:
        try:
            response = send(client, api, req.method, req.path, req.body, req.content_type)
        except Exception as exc:  # the test client re-raised: a 500 for the user
            raw.append({"status": 500, "exception": f"{type(exc).__name__}: {exc}"})
        else:
            raw.append(
                {
                    "status": response.status_code,
                    "content_type": response.get("Content-Type"),
                    "location": response.get("Location"),
                    "body": response.content.decode("utf-8", "replace"),
                }
            )
        snapshots.append(write_api.snapshot())
    window = (start, timezone.now())

    prefix = f"/{api}/"
    text = case.text()
    known = SEED_UUIDS | set(SEED_CODES) | set(UUID_RE.findall(text))
    known |= set(re.findall(r"\b[0-9a-f]{8}\b", text))
    placeholders = Placeholders(known)
    responses = []
    for item in raw:
        item = {
            k: _now_in_text(v.replace(prefix, API_MARKER), window) if isinstance(v, str) else v
            for k, v in item.items()
        }
        responses.append(json.loads(placeholders(json.dumps(item, ensure_ascii=False))))
    tables = []
    for snap in snapshots:
        normalised = {}
        for table, rows in snap.items():
            rows = [
                json.loads(
                    placeholders(
                        json.dumps(
                            {k: _jsonable(v, window) for k, v in row.items()}, ensure_ascii=False
                        )
                    )
                )
                for row in rows
            ]
            if table in UNORDERED_TABLES:
                rows.sort(key=lambda row: json.dumps(row, sort_keys=True))
            normalised[table] = rows
        tables.append(normalised)
    return Run(api, responses, tables)


_reference_runs: dict[str, Run] = {}


def reference(case: Case) -> Run:
    key = f"{case.name}\n{case.text()}"  # names are unique per module, not across modules
    if key not in _reference_runs:
        _reference_runs[key] = run_case(case, REFERENCE)
    return _reference_runs[key]


# =============================================================================
# Comparing
# =============================================================================
def _show(body: str, limit: int = 800) -> str:
    return body if len(body) <= limit else body[:limit] + f"... ({len(body)} characters)"


def _pretty(body: str) -> list[str]:
    try:
        return json.dumps(
            json.loads(body), indent=1, ensure_ascii=False, sort_keys=True
        ).splitlines()
    except ValueError:
        return body.splitlines()


def _diff(a: list[str], b: list[str], names=("v2", "v3"), limit: int = 80) -> str:
    lines = list(difflib.unified_diff(a, b, *names, n=2, lineterm=""))
    return "\n".join(lines[:limit]) + ("\n..." if len(lines) > limit else "")


def _table_lines(tables: dict) -> list[str]:
    lines = []
    for table, rows in tables.items():
        lines.append(f"== {table}")
        lines.extend(json.dumps(row, ensure_ascii=False, sort_keys=True) for row in rows or ())
    return lines


def table_problems(expected: dict, got: dict, names: tuple[str, str]) -> list[str]:
    changed = [t for t in expected if expected[t] != got.get(t)]
    if not changed:
        return []
    return [
        f"tables differ ({', '.join(changed)}):\n"
        + _diff(
            _table_lines({t: expected[t] for t in changed}),
            _table_lines({t: got.get(t) for t in changed}),
            names,
        )
    ]


def _text(response: dict) -> str:
    return response.get("body") or response.get("exception", "")


def response_problems(want: dict, have: dict, where: str, api: str) -> list[str]:
    if want["status"] != have["status"]:
        return [
            f"{where}: status {have['status']}, ModelResource {want['status']}\n"
            f"  {api}: {_show(_text(have))}\n  v2: {_show(_text(want))}"
        ]
    problems = []
    for key in ("content_type", "location"):
        if have.get(key) != want.get(key):
            problems.append(f"{where}: {key} {have.get(key)!r}, ModelResource {want.get(key)!r}")
    if have.get("body") != want.get("body"):
        diff = _diff(_pretty(want.get("body", "")), _pretty(have.get("body", "")), ("v2", api))
        problems.append(
            f"{where}: body differs from ModelResource's:\n"
            + (diff or f"  v2: {want.get('body')!r}\n  {api}: {have.get('body')!r}")
        )
    return problems


def compare_runs(expected: Run, got: Run, upto: int | None = None) -> list[str]:
    """Differences between the runs, over the first ``upto`` requests (all by default)."""
    n = len(expected.responses) if upto is None else upto
    problems = []
    for i in range(n):
        problems += response_problems(
            expected.responses[i], got.responses[i], f"request {i + 1}", got.api
        )
    problems += table_problems(
        expected.tables[n],
        got.tables[n],
        (f"{expected.api} (ModelResource) after request {n}", f"{got.api} after request {n}"),
    )
    return problems


def known_bug_problems(case: Case, bug: Bug, expected: Run, got: Run) -> list[str]:
    """v2 is broken at request ``bug.at``; v3 answers it cleanly and changes nothing."""
    at = bug.at if bug.at >= 0 else len(case.requests) + bug.at  # 0-based request index
    want, have = expected.responses[at], got.responses[at]
    marker = []
    if want["status"] != bug.status:
        marker.append(
            f"marked as a ModelResource bug ({bug.reason}) answering {bug.status}, but v2 answered "
            f"{want['status']}: update or remove the marker\n  v2: {_show(_text(want))}"
        )
    v2_changed = expected.tables[at + 1] != expected.tables[at]
    if v2_changed != bug.is_partial:
        marker.append(
            f"marked as a ModelResource bug ({bug.reason}) with partial={bug.is_partial} on "
            f"Django {django.get_version()}, but v2 "
            f"{'changed' if v2_changed else 'did not change'} the tables: update the marker"
        )
    assert not marker, "\n".join(marker)

    problems = compare_runs(expected, got, upto=at) if at else []
    if have["status"] != bug.v3_status:
        problems.append(
            f"request {at + 1}: v2 is broken here ({bug.reason}); {got.api} must answer "
            f"{bug.v3_status}, got {have['status']}\n  {got.api}: {_show(_text(have))}"
        )
    elif bug.v3_status == 400:
        try:
            error = json.loads(have["body"]).get("error")
        except (ValueError, AttributeError):
            error = None
        if not error:
            problems.append(
                f"request {at + 1}: {got.api} answered 400 without an error message: "
                f"{have.get('body')!r}"
            )
    problems += table_problems(
        got.tables[at],
        got.tables[at + 1],
        (
            f"{got.api} before request {at + 1}",
            f"{got.api} after request {at + 1} (must be unchanged)",
        ),
    )
    # After a failure that left nothing behind in v2 either, the rest must match again.
    if not bug.is_partial and at + 1 < len(case.requests):
        for i in range(at + 1, len(case.requests)):
            problems += response_problems(
                expected.responses[i], got.responses[i], f"request {i + 1}", got.api
            )
        problems += table_problems(expected.tables[-1], got.tables[-1], (expected.api, got.api))
    return problems


def known_bug(case: Case, bugs: dict[str, Bug]) -> Bug | None:
    """The entry of ``bugs`` for ``case``, when it holds on this backend."""
    bug = bugs.get(case.name)
    if bug is not None and connection.vendor in bug.backends:
        return bug
    return None


# =============================================================================
# Checking a case
# =============================================================================
def check_reference(case: Case) -> None:
    """Assert that ModelResource answers ``case`` with the statuses it expects."""
    run = reference(case)
    statuses = tuple(r["status"] for r in run.responses)
    expect = case.expect[connection.vendor] if isinstance(case.expect, dict) else case.expect
    assert statuses == expect, f"v2 answered {statuses}, the case expects {expect}\n" + "\n".join(
        _show(_text(r), 400) for r in run.responses
    )


@dataclass(frozen=True)
class Intended:
    """DjonyResource differs from ModelResource on purpose on a case's last request.

    ``v2_status``/``v3_status``: what each answers.  ``same_tables``: both
    leave the same rows (only the response differs); otherwise v3's rows
    are checked by ``v3_rows`` (a substring of the snapshot after the request).
    """

    reason: str
    v2_status: int
    v3_status: int
    same_tables: bool = True
    v3_rows: str = ""
    backends: tuple[str, ...] = BACKENDS


def intended_difference(case: Case, tables: tuple[dict[str, Intended], ...]) -> Intended | None:
    """The entry of ``tables`` for ``case``, when it holds on this backend."""
    for table in tables:
        intended = table.get(case.name)
        if intended is not None and connection.vendor in intended.backends:
            return intended
    return None


def intended_problems(case: Case, intended: Intended, expected: Run, got: Run) -> list[str]:
    """Both sides answer as recorded; the rows are v2's, or v3's rows hold ``v3_rows``."""
    n = len(case.requests)
    problems = compare_runs(expected, got, upto=n - 1)
    want, have = expected.responses[-1], got.responses[-1]
    if want["status"] != intended.v2_status:
        problems.append(f"v2 answered {want['status']}, the marker says {intended.v2_status}")
    if have["status"] != intended.v3_status:
        problems.append(f"v3 answered {have['status']}, the marker says {intended.v3_status}")
    if intended.same_tables:
        problems += table_problems(expected.tables[n], got.tables[n], ("v2 after", "v3 after"))
    elif intended.v3_rows not in json.dumps(got.tables[n], default=str):
        problems.append(f"v3's rows lack {intended.v3_rows}")
    return problems


def check_case(
    case: Case,
    api: str,
    bugs: dict[str, Bug] | None = None,
    intended_tables: tuple[dict[str, Intended], ...] = (),
) -> None:
    """Run ``case`` on ModelResource and on ``api``; assert they agree (or differ as marked).

    ``bugs``: the module's :class:`Bug` entries by case name; ``intended_tables``: its
    tables of :class:`Intended` differences.
    """
    expected = reference(case)
    got = run_case(case, api)
    bug = known_bug(case, bugs or {})
    intended = intended_difference(case, intended_tables)
    if intended is not None:
        problems = intended_problems(case, intended, expected, got)
    elif bug is not None:
        problems = known_bug_problems(case, bug, expected, got)
    else:
        problems = compare_runs(expected, got)
    assert not problems, f"{case.name} on {api}:\n" + "\n".join(problems)
