"""Relations over managers that are not Django's plain ones, read by SQL compiled once
where each read proves it the manager's: a django-sortedm2m relation's keys by the SQL its
manager's prefetch compiled to (``djony.objects.manager_keys``), and a relation to a model
whose default manager's own ``get_queryset`` gives a bare queryset (wger's
``SubmissionManager``, ``djony.serving.bare_manager``); the manager's own query wherever
that is not proved."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import prefetch_related_objects
from django.test.utils import CaptureQueriesContext

from djony.objects import manager_keys
from djony.objects.compiled import bare_queryset
from djony.objects.manager_keys import related_keys, sorted_manager
from tastypie_djony.related import Relation
from tests.thirdparty.models import Drill, Exercise, Move, Pin, Routine, SubmissionQuerySet, Workout

pytestmark = pytest.mark.django_db


@pytest.fixture
def workouts():
    owner = User.objects.create(username="lifter")
    moves = [Exercise.objects.create(name=name) for name in "squat bench curl row press".split()]
    orders = [[2, 0, 4], [], [1], [4, 3, 2, 1, 0], [0, 2], [3, 0]]
    made = []
    for n, order in enumerate(orders):
        workout = Workout.objects.create(owner=owner, title=f"w{n}")
        workout.exercises.set([moves[at] for at in order])  # sortedm2m keeps this order
        made.append(workout)
    manager_keys._KEPT.clear()
    yield made
    manager_keys._KEPT.clear()


def managers(workouts) -> dict:
    return {w.pk: [e.pk for e in Workout.objects.get(pk=w.pk).exercises.all()] for w in workouts}


def djangos_statement(keys: list[int]) -> str:
    """The SQL Django runs to prefetch ``exercises`` for the workouts of ``keys``, in order."""
    owners = [Workout.objects.get(pk=key) for key in keys]
    with CaptureQueriesContext(connection) as ran:
        prefetch_related_objects(owners, "exercises")
    (query,) = ran.captured_queries
    return query["sql"]


def test_each_owner_s_keys_are_its_manager_s_in_its_order(workouts) -> None:
    """Pages of several sizes and orders of owners: each owner's keys as
    ``workout.exercises.all()`` gives them, ``[]`` for one without any."""
    expected = managers(workouts)
    keys = list(expected)
    for owners in (keys, keys[::-1], keys[:3], keys[3:], keys[1:4], keys[:1], keys[1:2]):
        found = related_keys(Workout, "exercises", owners, "default", "id")
        assert found == {owner: expected[owner] for owner in owners}


def test_the_statement_is_django_s_own_compiled_once_per_page_size(
    workouts, django_assert_num_queries
) -> None:
    """One query a read, the statement Django's own prefetch runs for those owners; kept
    per page size and key column, with no owner in a key."""
    keys = [w.pk for w in workouts]
    for owners in (keys[:3], keys[3:], keys[::2], keys[:1], keys[4:5]):
        with CaptureQueriesContext(connection) as ran:
            related_keys(Workout, "exercises", owners, "default", "id")
        assert [query["sql"] for query in ran.captured_queries] == [djangos_statement(owners)]
    kept = {key: value for _owner, key, value in manager_keys._KEPT.items()}
    assert sorted(size for (_, _, _, size, _) in kept) == [1, 3]
    assert all(entry is not None for entry in kept.values())
    assert {key[:3] + key[4:] for key in kept} == {(Workout, "exercises", "default", "id")}
    with django_assert_num_queries(1):
        related_keys(Workout, "exercises", keys[1:4], "default", "id")


def test_a_relation_read_by_another_column_is_kept_apart(workouts) -> None:
    """The related key read by a column other than the key: its own kept entry."""
    expected = {
        w.pk: [e.name for e in Workout.objects.get(pk=w.pk).exercises.all()] for w in workouts
    }
    keys = list(expected)
    assert related_keys(Workout, "exercises", keys, "default", "name") == expected
    assert related_keys(Workout, "exercises", keys, "default", "id") == managers(workouts)
    assert {key[4] for key in manager_keys._KEPT} == {"name", "id"}


def test_the_serving_layer_reads_a_sorted_relation_so(workouts, django_assert_num_queries) -> None:
    """``Relation.related_keys`` (a ``ToManyField``'s URIs) gives the manager's keys by the
    kept SQL: one query, nothing compiled again."""
    relation = Relation.find(Workout, "exercises")
    expected = managers(workouts)
    assert relation.related_keys(list(expected)) == expected
    with django_assert_num_queries(1):
        assert relation.related_keys(list(expected)) == expected
    assert len(manager_keys._KEPT) == 1


@pytest.mark.parametrize("at", [0, 1], ids=["sortedm2m-s class", "django-s class"])
def test_a_manager_method_of_the_project_s_is_its_own_query(workouts, monkeypatch, at) -> None:
    """A method of anyone else's on the manager's classes (a project patching the ordering
    on sortedm2m's class, or the prefetch on Django's, which sortedm2m's calls): not
    proved, the manager's own query answers."""
    manager_class = type(workouts[0].exercises)
    assert sorted_manager(Workout, "exercises") is manager_class
    patched = manager_class.__mro__[at]
    if at == 0:

        def reversed_order(self, queryset):
            return queryset.order_by("-name")

        monkeypatch.setattr(patched, "_apply_rel_ordering", reversed_order)
    else:
        django_s = patched.get_prefetch_querysets

        def reversed_prefetch(self, instances, querysets=None):
            queryset, *rest = django_s(self, instances, querysets)
            return (queryset.order_by("-name"), *rest)

        monkeypatch.setattr(patched, "get_prefetch_querysets", reversed_prefetch)
    assert sorted_manager(Workout, "exercises") is None
    assert related_keys(Workout, "exercises", [workouts[0].pk], "default", "id") is None
    relation = Relation.find(Workout, "exercises")
    expected = managers(workouts)
    assert relation.related_keys(list(expected)) == expected
    assert not manager_keys._KEPT


def test_other_relations_are_not_sorted_managers() -> None:
    """Django's own many-to-many, its reverse side and taggit's manager are not
    sortedm2m's: read as before."""
    assert sorted_manager(User, "groups") is None
    assert sorted_manager(Exercise, "workout_set") is None
    assert sorted_manager(Pin, "tags") is None


def test_keys_that_are_not_integers_are_the_manager_s_own_query(workouts) -> None:
    assert related_keys(Workout, "exercises", [str(workouts[0].pk)], "default", "id") is None
    assert not manager_keys._KEPT


@pytest.fixture
def routines():
    moves = [Move.objects.create(name=n, accepted=n != "lunge") for n in "lunge plank skip".split()]
    drills = [
        Drill.everything.create(name=n, accepted=n != "cone") for n in "cone ladder sprint".split()
    ]
    made = [Routine.objects.create(title=f"r{n}") for n in range(3)]
    made[0].moves.set([moves[2], moves[0], moves[1]])
    made[1].moves.set([moves[1]])
    made[0].drills.set([drills[0], drills[2]])
    made[2].drills.set([drills[1], drills[0], drills[2]])
    manager_keys._KEPT.clear()
    yield made
    manager_keys._KEPT.clear()


def test_a_default_manager_whose_get_queryset_adds_nothing_is_kept(routines) -> None:
    """wger's ``SubmissionManager`` (``get_queryset`` of its own, returning a queryset class
    that only adds methods): proved bare on each read, the relation kept, every move
    (accepted or not) as ``routine.moves.all()`` gives them."""
    expected = {r.pk: [m.pk for m in r.moves.all()] for r in routines}
    assert any(len(keys) == 3 for keys in expected.values())
    keys = list(expected)
    assert related_keys(Routine, "moves", keys, "default", "id") == expected
    assert Relation.find(Routine, "moves").related_keys(keys) == expected
    assert len(manager_keys._KEPT) == 1


def test_a_default_manager_that_filters_is_the_manager_s_own_query(routines) -> None:
    """A related model whose default manager leaves rows out (``accepted=True``): its
    queryset is not bare, nothing kept; the relation still gives what
    ``routine.drills.all()`` gives, the left-out drill missing."""
    expected = {r.pk: [d.pk for d in r.drills.all()] for r in routines}
    assert Drill.everything.get(name="cone").pk not in sum(expected.values(), [])
    keys = list(expected)
    assert related_keys(Routine, "drills", keys, "default", "id") is None
    assert Relation.find(Routine, "drills").related_keys(keys) == expected
    assert not manager_keys._KEPT


def test_a_bare_queryset_is_one_that_adds_nothing() -> None:
    """Django's ``QuerySet`` or a class that only adds methods, nothing filtered, ordered,
    annotated, routed or hinted, and of the model asked about."""
    assert bare_queryset(Exercise.objects.all(), Exercise)
    assert bare_queryset(SubmissionQuerySet(Move), Move)
    assert not bare_queryset(Exercise.objects.all(), Move)
    assert not bare_queryset(Drill.objects.all(), Drill)  # AcceptedManager filters
    assert bare_queryset(Drill.everything.all(), Drill)
    for changed in (
        Exercise.objects.filter(name="squat"),
        Exercise.objects.order_by("pk"),
        Exercise.objects.using("default"),
        Exercise.objects.distinct(),
        Exercise.objects.defer("name"),
        Exercise.objects.extra(select={"one": "1"}),
        Exercise.objects.all()[:3],
        Exercise.objects.values("pk"),
    ):
        assert not bare_queryset(changed, Exercise), changed.query
    hinted = Exercise.objects.all()
    hinted._add_hints(instance=Exercise(pk=1))
    assert not bare_queryset(hinted, Exercise)


@pytest.fixture
def warmed(routines):
    moves = list(Move.objects.order_by("pk"))
    drills = list(Drill.everything.order_by("pk"))
    routines[0].warmups.set(moves)
    routines[1].warmups.set(moves[:1])
    routines[0].cooldowns.set(drills)
    routines[2].cooldowns.set(drills[1:])
    return routines


def test_a_relation_to_a_model_whose_manager_gives_a_bare_queryset_compiles_once(
    warmed, compiles, django_assert_num_queries
) -> None:
    """Django's many-to-many to a model whose default manager's ``get_queryset`` is its own
    (wger's ``SubmissionManager``): proved bare on each read, its keys read by SQL compiled
    once, for one owner (a detail) and for a page; every move, as the manager gives them."""
    expected = {r.pk: sorted(m.pk for m in r.warmups.all()) for r in warmed}
    relation = Relation.find(Routine, "warmups")
    keys = list(expected)
    sort = lambda found: {owner: sorted(k) for owner, k in found.items()}  # noqa: E731
    assert sort(relation.related_keys(keys)) == expected
    assert sort(relation.related_keys(keys[:1])) == {keys[0]: expected[keys[0]]}
    compiles.clear()
    for owners in (keys, keys[:1], keys[1:2]):
        with django_assert_num_queries(1):
            found = relation.related_keys(owners)
        assert sort(found) == {owner: expected[owner] for owner in owners}
    assert compiles == []


def test_a_relation_to_a_model_whose_manager_filters_is_its_manager_s(warmed) -> None:
    """A default manager that leaves rows out: not bare, the relation's query is built as
    Django builds it, the left-out drill missing for a detail and for a page."""
    expected = {r.pk: sorted(d.pk for d in r.cooldowns.all()) for r in warmed}
    assert Drill.everything.get(name="cone").pk not in sum(expected.values(), [])
    relation = Relation.find(Routine, "cooldowns")
    keys = list(expected)
    for owners in (keys, keys[:1], keys[2:]):
        found = relation.related_keys(owners)
        assert {owner: sorted(k) for owner, k in found.items()} == {
            owner: expected[owner] for owner in owners
        }
