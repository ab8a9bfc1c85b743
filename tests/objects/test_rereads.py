"""A request sees the database as Django would: rows that change under it are read as they are.

Django has no repeatable-read check: a hook that updates the row it is dehydrating
(``TenantNote.objects.filter(pk=...).update(views=F("views") + 1)``) and then reads a
related manager that returns that row again gets the new values.  Pony, by default,
refuses a load that finds a value it has already handed out changed
(``UnrepeatableReadError``: a 500).  DjonyResource's sessions take the stored values
(:mod:`djony.objects.rereads`), whether the row was changed by the request's own hook, by
another client while the hook reads it, or is a NaN float (never equal to itself).
"""

from __future__ import annotations

import math
import threading

import pytest
from django.db import connection
from pony.orm import db_session

from tests.tenants import testing
from tests.tenants.models import TenantNote

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db", "verify")


@pytest.fixture(params=[True, False], ids=["verified", "unverified"])
def verify(request, settings):
    """With ``DJONY_VERIFY_FAST_PATH`` (which does not render a request whose hook wrote a
    second time) and without."""
    settings.DJONY_VERIFY_FAST_PATH = request.param


def fresh_twins(user: str, path: str) -> tuple[tuple, tuple]:
    """Each twin's answer from the seed rows (the request itself writes)."""
    testing.reset()
    reference = testing.answer(testing.REFERENCE, user, path)
    testing.reset()
    return reference, testing.answer(testing.TARGET, user, path)


@pytest.mark.parametrize("path", ["vnote/1/", "vnote/", "vnote/set/1;3/", "vnote/?views__gt=-1"])
def test_a_hook_that_updates_its_row_then_reads_it_again(path):
    reference, target = fresh_twins("ann", path)
    assert reference[0] == 200
    assert target == reference


@pytest.mark.parametrize("user", ["ann", "bert"])
@pytest.mark.parametrize("path", ["rnote/", "rnote/set/4;3;2;1/", "rnote/?title=acme%20memo"])
def test_a_hook_that_retags_the_tenant_s_later_notes(user, path):
    reference, target = fresh_twins(user, path)
    assert reference[0] == 200
    assert target == reference
    if path == "rnote/":  # the case tests something: the later note shows the new tag
        later = reference[2]["objects"][1]
        assert later["tag_names"] == ["seen"] and [t["name"] for t in later["tags"]] == ["seen"]


def test_the_row_read_again_in_one_session_has_the_stored_values():
    testing.reset()
    with db_session:
        note = TenantNote.p[1]
        assert note.views == 0
        TenantNote.everything.filter(pk=1).update(views=5, title="changed")
        again = TenantNote.p.select(lambda n: n.id == 1)[:]
        assert again == [note]
        assert (note.views, note.title) == (5, "changed")


def storable(value: float) -> bool:
    """Whether the backend stores ``value`` (SQLite stores NaN as NULL, MySQL neither)."""
    if connection.vendor == "postgresql":
        return True
    return connection.vendor == "sqlite" and not math.isnan(value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_a_float_that_is_not_equal_to_itself_is_no_change(value):
    if not storable(value):
        pytest.skip(f"{connection.vendor} does not store {value}")
    for path in ("note/1/", "hnote/1/", "vnote/1/", "note/", "hnote/", "tenant/1/"):
        answers = []
        for api in testing.APIS:
            testing.reset()
            TenantNote.everything.filter(pk__in=(1, 3)).update(score=value)
            answers.append(testing.answer(api, "ann", path))
        assert answers[1] == answers[0], path
        assert answers[0][0] == 200
    with db_session:
        note = TenantNote.p[1]
        first = note.score
        TenantNote.p.select(lambda n: n.id == 1)[:]  # the row loaded again: no error
        assert note.score == first or (math.isnan(first) and math.isnan(note.score))


@pytest.mark.skipif(
    connection.vendor == "sqlite" and connection.is_in_memory_db(),
    reason="concurrent writers need a database server (shared-cache in-memory SQLite locks)",
)
def test_hooks_reading_rows_while_other_clients_update_them(settings):
    """Readers through the bundle path's hooks while writers change the same rows."""
    if settings.DJONY_VERIFY_FAST_PATH:
        pytest.skip("another client's write between the two renderings changes the second")
    testing.reset()
    stop = threading.Event()
    errors: list = []

    def write() -> None:
        try:
            step = 0
            while not stop.is_set():
                step += 1
                for pk in (1, 3):  # one row per statement: writers never wait on each other
                    TenantNote.everything.filter(pk=pk).update(title=f"t{step}", views=step)
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(repr(exc))
        finally:
            connection.close()

    def read() -> None:
        try:
            for _ in range(25):
                for path in ("vnote/1/", "hnote/1/", "vnote/", "tenant/1/"):
                    status = testing.answer(testing.TARGET, "ann", path)[0]
                    if status != 200:
                        errors.append((path, status))
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(repr(exc))
        finally:
            connection.close()

    writers = [threading.Thread(target=write)]
    readers = [threading.Thread(target=read) for _ in range(3)]
    for thread in writers + readers:
        thread.start()
    for thread in readers:
        thread.join(timeout=300)
    stop.set()
    for thread in writers:
        thread.join(timeout=60)
    assert errors == []
