"""One instance's to-many relations read by SQL compiled once (``djony.objects.relation_sql``).

An instance loaded alone (a detail's object) reads ``obj.tags.all()`` with the query
Django runs for it, compiled once per relation: each test compares the objects and the
SQL with a plain Django instance's, for several owners in turn, and shows where Django's
own query runs (a queryset changed or inspected first, a default manager that filters).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from djony.objects import relation_sql
from djony.serving import load_together, watching_writes
from tests.objects.relations import RELATIONS
from tests.patterns.models import Critique, Novel, Scribe
from tests.testapp.models import Author, Book, Club, Membership, Review, Tag

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def forget():
    relation_sql._KEPT.clear()
    yield
    relation_sql._KEPT.clear()


@pytest.fixture
def books():
    tags = [Tag.objects.create(name=name) for name in ("sf", "art", "zen")]
    ann, bob = Author.objects.create(name="Ann"), Author.objects.create(name="Bob")
    ann.friends.add(bob)
    club = Club.objects.create(name="Readers")
    Membership.objects.create(author=ann, club=club)
    made = []
    for index, (title, author) in enumerate([("Aeon", ann), ("Dune", bob), ("Mars", ann)]):
        book = Book.objects.create(title=title, author=author, isbn=str(index))
        book.tags.set(tags[index:])
        for stars in range(index + 1):
            Review.objects.create(book=book, stars=stars, reviewer=ann)
        made.append(book)
    return made


def alone(obj):
    """``obj`` loaded alone, as a detail's object is."""
    load_together([obj])
    return obj


@pytest.mark.parametrize(("model", "accessor"), RELATIONS, ids=lambda v: getattr(v, "__name__", v))
def test_each_owner_reads_what_django_reads_with_the_same_sql(books, model, accessor):
    for owner in model.objects.order_by("pk"):
        with CaptureQueriesContext(connection) as django_reads:
            expected = list(getattr(model.objects.get(pk=owner.pk), accessor).all())
        mine = alone(model.objects.get(pk=owner.pk))
        with CaptureQueriesContext(connection) as reads:
            found = list(getattr(mine, accessor).all())
        assert [type(o) for o in found] == [type(o) for o in expected]
        assert [o.pk for o in found] == [o.pk for o in expected]
        assert [q["sql"] for q in reads] == [q["sql"] for q in django_reads[1:]]


def test_after_the_first_owner_nothing_is_compiled(books, compiles):
    list(alone(Book.objects.get(pk=books[0].pk)).tags.all())  # keeps the SQL
    first = len(compiles)
    for book in books[1:]:
        mine = alone(Book.objects.get(pk=book.pk))
        expected = [t.name for t in Book.objects.get(pk=book.pk).tags.all()]
        assert [t.name for t in mine.tags.all()] == expected
    compiled = compiles[first:]
    assert compiled.count(Tag) == len(books[1:])  # only the plain instances' own queries


def test_a_reverse_foreign_key_s_objects_point_at_their_owner(books):
    book = alone(Book.objects.get(pk=books[2].pk))
    reviews = list(book.reviews.all())
    with CaptureQueriesContext(connection) as reads:
        assert all(review.book is book for review in reviews)
    assert len(reads) == 0


def test_a_changed_or_inspected_queryset_runs_django_s_query(books):
    book = alone(Book.objects.get(pk=books[0].pk))
    reference = Book.objects.get(pk=books[0].pk)
    inspected = book.tags.all()
    assert "ORDER BY" in str(inspected.query)
    inspected.query.clear_ordering(force=True)
    inspected.query.add_ordering("-name")
    assert [t.name for t in inspected] == [t.name for t in reference.tags.order_by("-name")]
    assert [t.name for t in book.tags.filter(name__gt="b")] == ["sf", "zen"]
    assert list(book.tags.values_list("name", flat=True)) == ["art", "sf", "zen"]
    assert book.tags.count() == 3 and book.reviews.exists()


def test_a_default_manager_that_filters_is_asked_each_time():
    scribe = Scribe.objects.create(name="Le Guin", slug="le-guin", first_name="U", last_name="LG")
    novel = Novel.objects.create(title="Lathe", writer=scribe)
    Critique.everything.create(novel=novel, published=True, text="yes")
    Critique.everything.create(novel=novel, published=False, text="no")
    for _ in range(2):
        found = list(alone(Novel.objects.get(pk=novel.pk)).critique_set.all())
        assert [c.text for c in found] == [c.text for c in novel.critique_set.all()]
    assert not [kept for kept in relation_sql._KEPT.values() if kept is not None]


def test_a_relation_only_asked_get_or_count_compiles_nothing(books):
    """Its rows come from the page's read (``page_gets``): the kept SQL of the relation's
    evaluation is made when something evaluates it, not before."""
    with watching_writes():
        book = alone(Book.objects.get(pk=books[2].pk))
        with CaptureQueriesContext(connection) as reads:
            assert book.reviews.get(stars=1).stars == 1
            assert book.reviews.count() == 3
        assert len(reads) == 2  # the page's rows, the page's counts
        assert not relation_sql._KEPT
        expected = [r.pk for r in Book.objects.get(pk=books[2].pk).reviews.all()]
        assert [r.pk for r in book.reviews.all()] == expected
    assert [kept for kept in relation_sql._KEPT.values() if kept is not None]


def test_the_queryset_a_get_was_answered_on_evaluates_by_the_kept_sql(books):
    with watching_writes():
        book = alone(Book.objects.get(pk=books[1].pk))
        reviews = book.reviews.all()
        assert reviews.get(stars=0).book is book
        with CaptureQueriesContext(connection) as reads:
            found = list(reviews)
        assert [r.pk for r in found] == [r.pk for r in Review.objects.filter(book=books[1])]
        assert all(review.book is book for review in found)
        assert len(reads) == 1
        assert reviews.count() == 2  # the evaluated queryset counts its objects, as Django's
