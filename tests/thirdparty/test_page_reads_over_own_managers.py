"""A page's related ``get()``, ``count()`` and ``exists()`` (:mod:`djony.objects.page_gets`)
over a related model whose default manager has a ``get_queryset`` of the project's own.

``Rep.objects`` gives everything (wger's ``SubmissionManager``) unless the request hides
what was not accepted (a per-request scope): proved bare on each call, the page answers
from one read; filtered on a call, that call is Django's own query, also after the page
read the relation's rows while the manager gave everything.  ``Drill.objects`` always
filters: each owner's count is Django's.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from djony.bridge.writes import watching
from djony.objects import page_gets
from djony.objects.compiled import bare_related_queryset
from djony.objects.peers import load_together
from tests.thirdparty.models import HIDING_UNACCEPTED, Drill, Move, Rep, Routine

pytestmark = pytest.mark.django_db

KINDS = ["squat", "lunge", "plank", "skip"]
STRINGS_EXACT = connection.vendor in ("sqlite", "postgresql")


@pytest.fixture
def routines() -> list[Routine]:
    made = [Routine.objects.create(title=f"r{n}") for n in range(4)]
    for n, routine in enumerate(made):
        for kind in KINDS[:n]:
            Rep.objects.create(routine=routine, kind=kind, count=n * 10, accepted=kind != "lunge")
    Rep.objects.create(routine=made[3], kind="plank", count=99)  # plank twice on r3
    moves = [Move.objects.create(name=n, accepted=n != "hop") for n in ("hop", "jog")]
    drills = [Drill.everything.create(name=n, accepted=n != "cone") for n in ("cone", "pole")]
    made[1].warmups.set(moves)
    made[2].warmups.set(moves[:1])
    made[1].cooldowns.set(drills[:1])
    made[2].cooldowns.set(drills)
    return made


def outcome(call):
    """What a ``get()`` gives, comparable across Django and djony."""
    try:
        obj = call()
    except Exception as exc:  # noqa: BLE001 - the exception is the answer compared
        return type(exc), str(exc)
    values = {f.attname: getattr(obj, f.attname) for f in Rep._meta.concrete_fields}
    owner = obj._state.fields_cache.get("routine")
    return type(obj), obj._state.db, values, owner and owner.pk


def answers(objects) -> list:
    return [
        [outcome(lambda r=r, k=kind: r.reps_of(k)) for kind in KINDS]
        + [r.reps.count(), r.reps.exists(), r.warmups.count(), r.cooldowns.count()]
        for r in objects
    ]


def page() -> list[Routine]:
    found = list(Routine.objects.order_by("pk"))
    load_together(found)
    return found


def queries(action) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as captured:
        result = action()
    return len(captured), result


def test_a_manager_that_gives_everything_is_answered_from_one_read_of_the_page(routines):
    want = answers(Routine.objects.order_by("pk"))
    assert {"DoesNotExist", "MultipleObjectsReturned"} <= {
        answer[0].__name__ for row in want for answer in row[:4] if isinstance(answer, tuple)
    }
    objects = page()
    with watching():
        count, got = queries(lambda: answers(objects))
    assert got == want
    # the reps' rows, their counts and the warmups' counts once each; the cooldowns'
    # manager filters (AcceptedManager): each routine's own count, as on Django (and on
    # MariaDB, whose collations compare text as Python does not, each text get() too)
    reads = 3 if STRINGS_EXACT else 2 + len(KINDS) * len(objects)
    assert count == reads + len(objects)


def test_a_call_the_scope_filters_is_django_s_own_query(routines):
    token = HIDING_UNACCEPTED.set(True)
    try:
        want = answers(Routine.objects.order_by("pk"))
        objects = page()
        with watching():
            count, got = queries(lambda: answers(objects))
    finally:
        HIDING_UNACCEPTED.reset(token)
    assert got == want
    assert any(row[1][0] is Rep.DoesNotExist for row in want[2:])  # lunge: not accepted
    assert count > 3 + len(objects)  # the reps' gets and counts per routine and call


def test_a_scope_that_starts_after_the_page_read_its_rows_is_seen(routines):
    objects = page()
    with watching():
        assert objects[2].reps_of("lunge").count == 20  # read for the page: everything
        token = HIDING_UNACCEPTED.set(True)
        try:
            with pytest.raises(Rep.DoesNotExist):
                objects[2].reps_of("lunge")  # Django's query, the scope's filter in it
            assert objects[2].reps.count() == 1
            hidden = answers(objects)
        finally:
            HIDING_UNACCEPTED.reset(token)
        assert objects[2].reps_of("lunge").count == 20  # everything again
    token = HIDING_UNACCEPTED.set(True)
    try:
        assert hidden == answers(Routine.objects.order_by("pk"))
    finally:
        HIDING_UNACCEPTED.reset(token)


def test_a_related_queryset_is_bare_only_as_its_manager_built_it(routines):
    routine = routines[2]
    assert bare_related_queryset(routine.reps.all(), Rep)
    assert bare_related_queryset(routine.warmups.all(), Move)  # a sticky many-to-many filter
    assert not bare_related_queryset(routine.cooldowns.all(), Drill)  # AcceptedManager filters
    assert not bare_related_queryset(Rep.objects.all(), Rep)  # no owner's filter
    assert not bare_related_queryset(routine.reps.all(), Move)
    for changed in (
        routine.reps.order_by("count"),
        routine.reps.values("pk"),
        routine.reps.defer("kind"),
        routine.reps.select_related("routine"),
    ):
        assert not bare_related_queryset(changed, Rep), changed
    read = routine.reps.all()
    str(read.query)  # the deferred filter applied: no longer the manager's own
    assert not bare_related_queryset(read, Rep)
    token = HIDING_UNACCEPTED.set(True)
    try:
        assert not bare_related_queryset(routine.reps.all(), Rep)
    finally:
        HIDING_UNACCEPTED.reset(token)


def test_relations_over_a_manager_of_the_project_s_are_proved_per_call():
    for owner, name, model in ((Routine, "reps", Rep), (Routine, "warmup_routines", None)):
        found = page_gets.relation(owner, name)
        if model is None:
            assert found is None  # no such cache name
        else:
            assert found is not None and found.plain is False
    warmups = page_gets.relation(Routine, "warmups")
    assert type(warmups) is page_gets.ManyRelation and warmups.plain is False


def test_one_routine_s_reps_compile_once_while_the_manager_gives_everything(routines, compiles):
    """A detail's object (loaded alone): ``routine.reps.all()`` by the SQL compiled once
    for the relation (:mod:`djony.objects.relation_sql`) while the manager's queryset is
    bare; while the request's scope filters, Django's own query, the unaccepted rep left
    out."""

    def reps(routine_pk: int) -> list[tuple]:
        (routine,) = Routine.objects.filter(pk=routine_pk)
        load_together([routine])
        with watching():
            return [(rep.pk, rep.kind, rep.routine is routine) for rep in routine.reps.all()]

    def djangos(routine_pk: int) -> list[tuple]:
        routine = Routine.objects.get(pk=routine_pk)
        return [(rep.pk, rep.kind, True) for rep in routine.reps.all()]

    first, second = routines[2].pk, routines[3].pk
    assert reps(first) == djangos(first)
    compiles.clear()
    assert reps(second) == djangos(second)
    assert compiles.count(Rep) == 1  # Django's own read, for the comparison: nothing else
    token = HIDING_UNACCEPTED.set(True)
    try:
        hidden = reps(first)
        assert hidden == djangos(first)
        assert "lunge" not in {kind for _, kind, _ in hidden}
    finally:
        HIDING_UNACCEPTED.reset(token)


def test_a_page_s_reps_load_once_by_kept_sql_while_the_manager_gives_everything(routines, compiles):
    """A hook iterating ``routine.reps.all()`` on each object of a page: one load for the
    page (:mod:`djony.objects.page_relations`), compiled once, as Django's prefetch gives
    it; while the request's scope filters, Django's own prefetch, compiled with the
    scope's filter (the unaccepted rep left out), each routine's reps as on Django."""

    def loaded() -> tuple[int, list]:
        objects = page()
        with watching():
            return queries(lambda: [[(r.pk, r.kind) for r in o.reps.all()] for o in objects])

    def djangos() -> list:
        return [[(r.pk, r.kind) for r in o.reps.all()] for o in Routine.objects.order_by("pk")]

    assert loaded() == (1, djangos())
    compiles.clear()
    assert loaded() == (1, djangos())
    assert compiles.count(Rep) == len(routines)  # djangos()' own: the page's load compiled none
    token = HIDING_UNACCEPTED.set(True)
    try:
        compiles.clear()
        count, hidden = loaded()
        assert (count, compiles.count(Rep)) == (1, 1)  # Django's prefetch, with the filter
        assert hidden == djangos()
        assert "lunge" not in {kind for reps in hidden for _, kind in reps}
    finally:
        HIDING_UNACCEPTED.reset(token)
