"""Third-party to-many managers on a page whose objects load relations together
(``djony.objects.peers.load_together``): the objects and their order are those of each
object's own manager.  A manager with a prefetch of its own (taggit's, sortedm2m's) stays
one query per object, as on Django, and a ``prefetch_related_objects`` of the page still
gives each object its own."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from djony.objects.peers import load_together
from tests.instances.models import Comment, Writer
from tests.thirdparty.models import Exercise, Pin, Workout

pytestmark = pytest.mark.django_db


def fresh(model) -> list:
    return list(model.objects.order_by("pk"))


def read(objects, accessor: str) -> list[list]:
    return [list(getattr(obj, accessor).all()) for obj in objects]


def page_reads(model, accessor: str) -> tuple[int, list[list]]:
    page = fresh(model)
    load_together(page)
    with CaptureQueriesContext(connection) as queries:
        found = read(page, accessor)
    return len(queries), found


def test_sortedm2m_keeps_each_workout_s_order() -> None:
    owner = User.objects.create(username="ann")
    squat, bench, row = (Exercise.objects.create(name=name) for name in ("squat", "bench", "row"))
    for title, exercises in [("a", [row, squat]), ("b", [bench, row, squat]), ("c", [])]:
        Workout.objects.create(owner=owner, title=title).exercises.set(exercises)
    count, found = page_reads(Workout, "exercises")
    assert found == read(fresh(Workout), "exercises")
    assert [[e.name for e in exercises] for exercises in found] == [
        ["row", "squat"],
        ["bench", "row", "squat"],
        [],
    ]
    assert count == 3  # its own prefetch: left to Django


def test_generic_relation_loads_for_the_page() -> None:
    writers = [Writer.objects.create(first_name=f"W{n}", last_name="X") for n in range(3)]
    for n, writer in enumerate(writers):
        for k in range(n):
            Comment.objects.create(target=writer, body=f"c{n}{k}")
    count, found = page_reads(Writer, "comments")
    assert found == read(fresh(Writer), "comments")
    assert count == 1


def test_taggit_s_unordered_tags_stay_per_object() -> None:
    owner = User.objects.create(username="ann")
    for n in range(3):
        Pin.objects.create(submitter=owner, url=f"u{n}").tags.add(*[f"t{k}" for k in range(n)])
    count, found = page_reads(Pin, "tags")
    assert [sorted(t.name for t in tags) for tags in found] == [
        sorted(t.name for t in tags) for tags in read(fresh(Pin), "tags")
    ]
    assert count == 3


@pytest.mark.parametrize(("model", "accessor"), [(Pin, "tags"), (Workout, "exercises")])
def test_prefetching_the_page_afterwards_gives_each_object_its_own(model, accessor) -> None:
    """Code that prefetches the page itself (a hook, a loader of the project's) gets what
    Django gives: the relation cache the page's objects hold is read by taggit's prefetch."""
    owner = User.objects.create(username="ann")
    squat, bench = Exercise.objects.create(name="squat"), Exercise.objects.create(name="bench")
    for n in range(3):
        Pin.objects.create(submitter=owner, url=f"u{n}").tags.add(*[f"t{k}" for k in range(n)])
        Workout.objects.create(owner=owner, title=f"w{n}").exercises.set([squat, bench][:n])
    want = read(fresh(model), accessor)
    page = fresh(model)
    load_together(page)
    from django.db.models import prefetch_related_objects

    prefetch_related_objects(page, accessor)
    with CaptureQueriesContext(connection) as queries:
        found = read(page, accessor)
    assert [sorted(map(str, objs)) for objs in found] == [sorted(map(str, objs)) for objs in want]
    assert len(queries) == 0
