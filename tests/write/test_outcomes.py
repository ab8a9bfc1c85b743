"""A write's answer is the truth: 2xx only with its rows committed, 5xx leaves nothing it wrote.

The same request goes to ModelResource (``/se2/``) and DjonyResource (``/se3/``) of
:mod:`tests.sideeffects.api`, each on the same seed rows, with one failure armed at one
point of the write (:mod:`tests.sideeffects.failing`: a hook raising, a database error
raised or caught by the hook, the server ending the connection, the answer's
``dehydrate()`` failing after the save), in autocommit and under ``ATOMIC_REQUESTS``.

DjonyResource's answer is held to the rule: a 2xx has its rows committed (the tables
are ModelResource's, which answered 2xx too, and hold the write); a 5xx, and the 4xx of
a write step the database refused, leave every table as it was before the request.
Its status is the one :func:`expected_status` derives from the rule, and where it differs
from ModelResource's the difference is one :func:`modelresource_differs` names, with
ModelResource's own status asserted so the difference cannot go stale.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import override_settings

from tests.sideeffects import failing
from tests.write import api as write_api
from tests.write.api import api_client, send

A = write_api.API_MARKER

#: Method -> (path, body): the writes of a ``ParcelResource``.
WRITES = {
    "POST": ("parcel/", {"label": "new", "keywords": [f"{A}keyword/2/"]}),
    "PUT": ("parcel/1/", {"label": "uno", "weight": 5, "keywords": [f"{A}keyword/2/"]}),
    "PATCH": ("parcel/1/", {"weight": 7, "keywords": [f"{A}keyword/1/", f"{A}keyword/2/"]}),
    "DELETE": ("parcel/1/", None),
    "PUT list": ("parcel/", {"objects": [{"label": "a"}, {"label": "b", "weight": 3}]}),
    "PATCH list": (
        "parcel/",
        {
            "objects": [{"label": "c"}, {"resource_uri": f"{A}parcel/2/", "weight": 9}],
            "deleted_objects": [f"{A}parcel/1/"],
        },
    ),
}

#: The points each write passes (DELETE neither hydrates nor dehydrates).
POINTS = {
    "POST": ("hydrate", "save_m2m", "dehydrate"),
    "PUT": ("hydrate", "save_m2m", "dehydrate"),
    "PATCH": ("hydrate", "save_m2m", "dehydrate"),
    "DELETE": ("delete",),
    "PUT list": ("hydrate", "save_m2m", "dehydrate"),  # deletes by queryset: no delete()
    "PATCH list": ("delete", "hydrate", "save_m2m", "dehydrate"),
}

#: The failures each point meets: the hooks raise; inside the write, database errors too.
KINDS_AT = {
    "hydrate": ("raise",),
    "save_m2m": (
        "raise",
        "db_error",
        "db_error_caught",
        "orm_error_caught",
        "orm_error",
        "terminated",
        "deadlock_caught",
    ),
    "delete": (
        "raise",
        "db_error",
        "db_error_caught",
        "orm_error_caught",
        "orm_error",
        "terminated",
    ),
    "dehydrate": ("raise", "db_error_caught", "deadlock_caught"),
}

#: Failures only one kind of database has (SQLite has no server to end a connection).
ONLY_ON = {"terminated": ("postgresql", "mysql"), "deadlock_caught": ("mysql",)}

VENDOR = {"sqlite": "sqlite", "postgresql": "postgresql", "mysql": "mysql"}


def _vendor() -> str:
    from tests import settings

    return settings.BACKEND


def cases() -> list:
    found = [pytest.param(method, "", "", id=f"{method}-none") for method in WRITES]
    for method, points in POINTS.items():
        for point in points:
            for kind in KINDS_AT[point]:
                if _vendor() not in ONLY_ON.get(kind, (_vendor(),)):
                    continue
                found.append(pytest.param(method, point, kind, id=f"{method}-{point}-{kind}"))
    return found


def seed():
    return [
        (
            write_api.apps.get_model("sideeffects", "Blogger"),
            [
                {"id": 1, "name": "ann", "posts_count": 0},
                {"id": 2, "name": "ben", "posts_count": 0},
            ],
        ),
        (
            write_api.apps.get_model("sideeffects", "Keyword"),
            [{"id": 1, "name": "red"}, {"id": 2, "name": "blue"}],
        ),
        (
            write_api.apps.get_model("sideeffects", "Parcel"),
            [{"id": 1, "label": "one", "weight": 1}, {"id": 2, "label": "two", "weight": 2}],
        ),
        (
            write_api.apps.get_model("sideeffects", "Parcel").keywords.through,
            [{"id": 1, "parcel_id": 1, "keyword_id": 1}],
        ),
    ]


def expected_status(success: int, point: str, kind: str) -> int:
    """DjonyResource's status for a failure, by the rule.

    A plain exception, a database error the project's code let through (a unique clash
    of a row no field of the body writes is the project's bug, not the client's) and a
    connection the server ended are a 500.  A database error the hook caught leaves
    the write's transaction aborted on PostgreSQL (a 500: the error is no refusal of
    the client's data) and good elsewhere (the write succeeds, as with ModelResource);
    a unique clash the hook caught from the ORM on a row the body writes (a keyword)
    dooms the transaction on every backend (Django marks it for rollback): the 400 of a
    refused write.  The answer's
    ``dehydrate()`` catching an error runs after the write step, in the request's
    transaction: the same rule.
    """
    if not kind:
        return success
    if kind == "db_error_caught":
        return 500 if _vendor() == "postgresql" else success
    if kind == "orm_error_caught":
        return 400
    return 500  # deadlock_caught: the deadlock is no refusal


def modelresource_differs(kind: str) -> bool:
    """Whether ModelResource may answer another status than DjonyResource's rule gives.

    ModelResource runs no transaction of its own.  A database error its hook caught on
    PostgreSQL: in autocommit its rows are committed statement by statement (a 2xx),
    unless a later statement meets the aborted transaction (a 500, partial rows); under
    ``ATOMIC_REQUESTS`` the aborted transaction's COMMIT rolls back without an error (a
    2xx with nothing stored) or a later statement fails (a 500).  A unique clash from
    the ORM that its hook caught is no refusal to it: a 2xx in autocommit, a 500 under
    ``ATOMIC_REQUESTS`` once the next query meets the doomed transaction.  A deadlock
    its hook caught on MySQL under ``ATOMIC_REQUESTS``: InnoDB rolled back what came
    before, later statements start a transaction of their own, and the COMMIT keeps
    only those (a 2xx with a partial write); in autocommit no transaction holds a lock.
    """
    if kind == "db_error_caught":
        return _vendor() == "postgresql"
    return kind in ("orm_error_caught", "deadlock_caught")


def rows() -> dict:
    return write_api.snapshot("sideeffects")


def answer(response, api: str) -> dict:
    body = response.content.decode().replace(f"/{api}/", A)
    return {
        "status": response.status_code,
        "content_type": response.get("Content-Type"),
        "location": (response.get("Location") or "").replace(f"/{api}/", A),
        "body": json.loads(body) if body.startswith(("{", "[")) else body,
    }


def run(api: str, method: str, point: str, kind: str) -> tuple[dict, dict, dict]:
    """(answer, rows before, rows after) of one write on fresh seed rows."""
    failing.disarm()
    write_api.reset(app_label="sideeffects", seed_rows=seed)
    before = rows()
    if point:
        failing.arm(point, kind)
    path, body = WRITES[method]
    try:
        response = send(api_client(), api, method.split()[0], path, body)
    finally:
        failing.disarm()
        # The test client leaves Django's request signals out: close what the server ended.
        connection.close_if_unusable_or_obsolete()
    return answer(response, api), before, rows()


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    """The module's database, in autocommit (see :func:`tests.write.api.write_db_fixture`)."""
    with django_db_blocker.unblock(), override_settings(ROOT_URLCONF="tests.sideeffects.api"):
        try:
            yield
        finally:
            write_api.reset(next_id=1, seed=False, app_label="sideeffects")


#: (method, ATOMIC_REQUESTS) -> ModelResource's status for the write when nothing fails.
_SUCCEEDING: dict[tuple[str, bool], int] = {}


def succeeding_status(method: str, atomic_requests: bool) -> int:
    """ModelResource's 2xx for ``method`` when nothing fails (asked once per mode: each
    write starts from the same seed rows)."""
    key = (method, atomic_requests)
    if key not in _SUCCEEDING:
        (answered, _, _) = run("se2", method, "", "")
        assert _ok(answered["status"]), answered
        _SUCCEEDING[key] = answered["status"]
    return _SUCCEEDING[key]


@pytest.fixture(params=[False, True], ids=["autocommit", "atomic_requests"])
def atomic_requests(request, transactional_db):
    saved = connection.settings_dict["ATOMIC_REQUESTS"]
    connection.settings_dict["ATOMIC_REQUESTS"] = request.param
    try:
        yield request.param
    finally:
        connection.settings_dict["ATOMIC_REQUESTS"] = saved


def _ok(status: int) -> bool:
    return 200 <= status < 300


@pytest.mark.parametrize(("method", "point", "kind"), cases())
def test_answer_tells_what_was_stored(method, point, kind, atomic_requests) -> None:
    """DjonyResource's answer and rows follow the rule; ModelResource's differ only where named."""
    v2, v2_before, v2_after = run("se2", method, point, kind)
    success = succeeding_status(method, atomic_requests) if point else v2["status"]
    assert _ok(success), v2
    v3, before, after = run("se3", method, point, kind)

    assert v3["status"] == expected_status(success, point, kind), v3
    if _ok(v3["status"]):
        assert _ok(v2["status"]), (v2, v3)
        assert after != before, "a 2xx that stored nothing"
        assert after == v2_after
        assert v3 == v2
    else:
        assert after == before, "a failed write left rows behind"
    if v2["status"] != v3["status"]:
        assert modelresource_differs(kind), (v2, v3)
