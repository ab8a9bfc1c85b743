"""The database side and the runner of the pattern corpus.

:func:`reset` empties every table of the app with its counters back at 1
(Django's own flush SQL for the backend) and writes the seed rows of
:mod:`tests.patterns.seed` through the ORM, so every run of a scenario, on
either API, starts from the same rows with the same keys, and a row created
by a request gets the same key whichever API created it.

A :class:`Scenario` is a sequence of requests (``/API/`` standing for the
API prefix, as in :mod:`tests.write.harness`, whose request
helpers, normalisation and table comparison are reused here).  Each API runs
it from freshly reset rows in autocommit; after every request every table of
the app is read.  Two runs are the same when every response has the same
status, Content-Type, Location and body (JSON compared as data) once the
prefix is replaced, and the tables hold the same rows after every request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission, User
from django.core.cache import cache
from django.core.management.color import no_style
from django.db import connection, models
from django.utils import timezone

from tests.patterns.seed import TOKENS, USER_IDS
from tests.write.api import API_MARKER, _plain, api_client, send
from tests.write.harness import (
    UUID_RE,
    Placeholders,
    Req,
    Run,
    _diff,
    _jsonable,
    _now_in_text,
    _pretty,
    _show,
    table_problems,
)

MEMORYVIEW_RE = re.compile(r"<memory at 0x[0-9a-f]+>")
REFERENCE = "patterns/v2"
TARGET = "patterns/v3"
APIS = (REFERENCE, TARGET)

#: username -> codenames of the permissions the user is given.
USERS: dict[str, tuple[str, ...]] = {
    "alice": (),
    "bob": (),
    "proxy_user": (
        "view_activescribe",
        "add_activescribe",
        "change_activescribe",
        "delete_activescribe",
    ),
    "concrete_user": ("view_scribe", "add_scribe", "change_scribe", "delete_scribe"),
}
PASSWORD = "secret"


def all_tables() -> list[type[models.Model]]:
    """Every table of the app: models and auto-created M2M tables."""
    config = apps.get_app_config("patterns")
    return [m for m in config.get_models(include_auto_created=True) if not m._meta.proxy]


def reset(seed: bool = True) -> None:
    """Empty the app's tables, counters at 1, then write the seed rows."""
    assert not connection.in_atomic_block, "reset() must run in autocommit mode"
    tables = [m._meta.db_table for m in all_tables()]
    connection.ops.execute_sql_flush(
        connection.ops.sql_flush(no_style(), tables, reset_sequences=True)
    )
    cache.clear()  # Meta.cache = SimpleCache() keeps details across runs otherwise
    if seed:
        from tests.patterns import seed as seed_rows

        seed_rows.create()


def snapshot() -> dict[str, list[dict]]:
    """Every row of every table of the app, ordered by key, through the base manager."""
    result = {}
    for model in all_tables():
        columns = [f.attname for f in model._meta.local_concrete_fields]
        order = [model._meta.pk.attname]
        if model._meta.auto_created:  # an M2M table's own id is not observable (see write_api)
            columns = order = [c for c in columns if c != model._meta.pk.attname]
        rows = model._base_manager.order_by(*order).values(*columns)
        result[model._meta.db_table] = [{k: _plain(v) for k, v in row.items()} for row in rows]
    # The users of the module: a nested user in a request body may write them.
    # (``last_login`` changes with every login; password and date_joined are no API fields.)
    columns = [f.attname for f in User._meta.concrete_fields if f.name not in USER_VOLATILE]
    result["auth_user"] = list(
        User.objects.filter(pk__in=USER_IDS.values()).order_by("pk").values(*columns)
    )
    return result


USER_VOLATILE = ("last_login", "password", "date_joined")


def create_users() -> None:
    for username, codenames in USERS.items():
        user = User.objects.create_user(
            username, f"{username}@example.com", PASSWORD, id=USER_IDS[username]
        )
        user.user_permissions.set(
            Permission.objects.filter(content_type__app_label="patterns", codename__in=codenames)
        )


def drop_users() -> None:
    User.objects.filter(username__in=USERS).delete()


def db_fixture():
    """The module-scoped database fixture of a corpus module.

    Bind it as ``transactional_db`` (the name makes pytest-django create the
    test database) and use it for the module::

        transactional_db = testing.db_fixture()
        pytestmark = pytest.mark.usefixtures("transactional_db")

    The requests commit for real (autocommit, like a server without
    ATOMIC_REQUESTS); the users of :data:`USERS` exist for the module, and the
    app's tables are left empty, counters at 1, when it is done.
    """

    @pytest.fixture(scope="module")
    def transactional_db(django_db_setup, django_db_blocker):
        with django_db_blocker.unblock():
            drop_users()
            create_users()
            try:
                yield
            finally:
                reset(seed=False)
                drop_users()

    return transactional_db


# =============================================================================
# Scenarios
# =============================================================================
@dataclass(frozen=True)
class Scenario:
    """Requests sent in order, as ``client`` (a username of :data:`USERS`, or anonymous).

    ``expect``: ModelResource's statuses, so a scenario keeps testing what its
    name says (checked by each module's ``test_reference``).
    """

    name: str
    requests: tuple[Req, ...]
    expect: tuple[int, ...]
    client: str = "anonymous"
    setup: Callable[[], None] | None = None
    modelresource_500: str = ""  # why ModelResource answers 500 to the last request
    #: Why DjonyResource's error on the last request gives the reason ModelResource's leaves
    #: empty (``{"error": ""}``); everything else must be the same.
    clearer_error: str = ""

    def __post_init__(self) -> None:
        assert len(self.expect) == len(self.requests), self.name

    def text(self) -> str:
        return "\n".join(r.text() for r in self.requests)


def scenario(
    name: str,
    *requests: Req,
    expect,
    client="anonymous",
    setup=None,
    modelresource_500="",
    clearer_error="",
) -> Scenario:
    """A :class:`Scenario`; ``modelresource_500`` marks a last request that
    ModelResource answers 500 and DjonyResource must answer 400, changing nothing;
    ``clearer_error`` one whose empty error message DjonyResource fills in."""
    expect = (expect,) if isinstance(expect, int) else tuple(expect)
    return Scenario(name, tuple(requests), expect, client, setup, modelresource_500, clearer_error)


def client_for(username: str):
    client = api_client()
    if username != "anonymous":
        client.force_login(User.objects.get(username=username))
    return client


def run(case: Scenario, api: str) -> Run:
    """Reset, set up, send every request; responses and tables, normalised."""
    reset()
    if case.setup:
        case.setup()
    client = client_for(case.client)
    start = timezone.now()
    snapshots = [snapshot()]
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
        snapshots.append(snapshot())
    window = (start, timezone.now())
    prefix = f"/{api}/"
    placeholders = Placeholders(TOKENS | set(UUID_RE.findall(case.text())))
    responses = []
    for item in raw:
        item = {
            k: _now_in_text(v.replace(prefix, API_MARKER), window) if isinstance(v, str) else v
            for k, v in item.items()
        }
        text = placeholders(json.dumps(item, ensure_ascii=False))
        # ModelResource shows a BinaryField read as a memoryview (PostgreSQL) by its address.
        responses.append(json.loads(MEMORYVIEW_RE.sub("<memory>", text)))
    tables = []
    for snap in snapshots:
        tables.append(
            {
                table: sorted(
                    (
                        json.loads(
                            placeholders(
                                json.dumps(
                                    {k: _jsonable(v, window) for k, v in row.items()},
                                    ensure_ascii=False,
                                )
                            )
                        )
                        for row in rows
                    ),
                    key=lambda row: json.dumps(row, sort_keys=True),
                )
                for table, rows in snap.items()
            }
        )
    return Run(api, responses, tables)


def _data(body: str):
    try:
        return json.loads(body)
    except ValueError:
        return body


def response_problems(want: dict, have: dict, where: str) -> list[str]:
    """Status, Content-Type, Location and body (as data) of two normalised responses."""
    text = lambda r: r.get("body") or r.get("exception", "")  # noqa: E731
    if want["status"] != have["status"]:
        return [
            f"{where}: status {have['status']}, ModelResource {want['status']}\n"
            f"  v3: {_show(text(have))}\n  v2: {_show(text(want))}"
        ]
    problems = [
        f"{where}: {key} {have.get(key)!r}, ModelResource {want.get(key)!r}"
        for key in ("content_type", "location")
        if have.get(key) != want.get(key)
    ]
    if _data(have.get("body", "")) != _data(want.get("body", "")):
        diff = _diff(_pretty(want.get("body", "")), _pretty(have.get("body", "")))
        problems.append(f"{where}: body differs from ModelResource's:\n{diff}")
    return problems


def compare(expected: Run, got: Run, upto: int | None = None) -> list[str]:
    """Every response and the tables after every request, over the first ``upto``."""
    n = len(expected.responses) if upto is None else upto
    problems = []
    for i in range(n):
        problems += response_problems(expected.responses[i], got.responses[i], f"request {i + 1}")
        tables = table_problems(
            expected.tables[i + 1],
            got.tables[i + 1],
            (f"v2 (ModelResource) after request {i + 1}", f"v3 after request {i + 1}"),
        )
        if tables:  # later tables follow from this difference: report the first
            return problems + tables
    return problems


class Reference:
    """ModelResource's runs, each made once per module."""

    def __init__(self) -> None:
        self._runs: dict[str, Run] = {}

    def __call__(self, case: Scenario) -> Run:
        if case.name not in self._runs:
            self._runs[case.name] = run(case, REFERENCE)
        return self._runs[case.name]


def check_reference(reference: Reference, case: Scenario) -> None:
    """ModelResource answers with the statuses the scenario expects."""
    got = tuple(r["status"] for r in reference(case).responses)
    assert got == case.expect, f"v2 answered {got}, the scenario expects {case.expect}\n" + (
        "\n".join(
            _show(r.get("body") or r.get("exception", ""), 400) for r in reference(case).responses
        )
    )


def _check_clearer_error(case: Scenario, expected: Run, got: Run) -> dict:
    """As :func:`compare`, but the last error's empty message may (must) be filled in."""
    n = len(case.requests)
    want, have = expected.responses[-1], got.responses[-1]
    assert want["status"] >= 400 and error_of(want) == "", (
        f"marked clearer_error ({case.clearer_error}) but v2 answered "
        f"{want['status']} {_show(want.get('body', ''))}: remove the marker"
    )
    problems = compare(expected, got, upto=n - 1)
    if not error_of(have):
        problems.append(f"v3 gives no reason either: {_show(have.get('body', ''))}")
    else:
        filled = {**have, "body": json.dumps({**json.loads(have["body"]), "error": ""})}
        problems += response_problems(want, filled, f"request {n} (its error message aside)")
    problems += table_problems(
        expected.tables[n], got.tables[n], (f"v2 after request {n}", f"v3 after request {n}")
    )
    assert not problems, f"{case.name}:\n" + "\n".join(problems)
    return have


def error_of(response: dict) -> str:
    """The ``error`` of a JSON error body, or ``""``."""
    try:
        body = json.loads(response.get("body") or "")
    except ValueError:
        return ""
    return body.get("error", "") if isinstance(body, dict) else ""


def check_twin(reference: Reference, case: Scenario) -> list[str]:
    """DjonyResource gives ModelResource's answers and rows, request by request.

    For a ``modelresource_500`` scenario: the same up to the last request,
    which v2 answers 500 (asserted, so the marker cannot go stale) and v3
    answers 400 with an error message, leaving every row as it was.
    Returns v3's run's last response for further checks.
    """
    expected, got = reference(case), run(case, TARGET)
    if case.clearer_error:
        return _check_clearer_error(case, expected, got)
    if not case.modelresource_500:
        problems = compare(expected, got)
        assert not problems, f"{case.name}:\n" + "\n".join(problems)
        return got.responses[-1]
    n = len(case.requests)
    assert expected.responses[-1]["status"] == 500, (
        f"marked as a ModelResource 500 ({case.modelresource_500}) but v2 answered "
        f"{expected.responses[-1]['status']}: remove the marker"
    )
    problems = compare(expected, got, upto=n - 1)
    have = got.responses[-1]
    if have["status"] != 400:
        problems.append(
            f"v2 answers 500 ({case.modelresource_500}); v3 must answer 400, got "
            f"{have['status']}: {_show(have.get('body') or have.get('exception', ''))}"
        )
    elif not error_of(have):
        problems.append(f"v3 answered 400 without an error message: {have.get('body')!r}")
    problems += table_problems(
        got.tables[n - 1], got.tables[n], ("v3 before the last request", "v3 after it (unchanged)")
    )
    assert not problems, f"{case.name}:\n" + "\n".join(problems)
    return have
