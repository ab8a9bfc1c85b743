"""``djony.objects.page_gets``: ``obj.reviews.get(...)`` on a page's instances reads the
page's rows once, and answers what Django's ``get()`` answers: the same object (a new one
each call, its owner known), the same exception and message."""

from __future__ import annotations

import copy
import pickle

import pytest
from django.db import connection
from django.db.models import Q
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext

from djony.bridge.writes import watching, writes_on
from djony.objects import page_gets
from djony.objects.peers import load_together
from tests.tenants.models import Tenant
from tests.testapp.models import Author, Book, BookDetail, Club, Membership, Review, Tag
from tests.zoo.models import Animal, Caretaker, Enclosure, Zone

STRINGS_EXACT = connection.vendor in ("sqlite", "postgresql")


@pytest.fixture
def books(db) -> list[Book]:
    ann = Author.objects.create(name="Ann")
    made = []
    for n in range(4):
        book = Book.objects.create(title=f"Book {n}", author=ann)
        for stars in range(n):
            Review.objects.create(book=book, stars=stars, body=f"{'Good' if stars else 'bad'}")
        made.append(book)
    Review.objects.create(book=made[3], stars=2, body="again")  # two with stars=2
    return made


def page() -> list[Book]:
    found = list(Book.objects.order_by("pk"))
    load_together(found)
    return found


def outcome(call):
    """What a ``get()`` gives, comparable across Django and djony."""
    try:
        obj = call()
    except Exception as exc:  # noqa: BLE001 - the exception is the answer compared
        return type(exc), str(exc)
    values = {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}
    owner = obj._state.fields_cache.get("book")
    return type(obj), obj._state.db, obj._state.adding, values, owner and owner.pk


def queries(action) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as captured:
        result = action()
    return len(captured), result


CONDITIONS = [
    {"stars": 1},
    {"stars": 2},
    {"stars": 9},
    {"stars": "1"},
    {"stars__exact": 0},
    {"pk": 1},
    {"stars": 1, "body": "Good"},
    {"body": "good"},
    {"body": None},
    {"stars": 2**70},
    {"stars": True},
]


@pytest.mark.parametrize("conditions", CONDITIONS, ids=str)
def test_each_answer_is_django_s_and_the_page_reads_once(books, conditions):
    want = [outcome(lambda b=b: b.reviews.get(**conditions)) for b in Book.objects.order_by("pk")]
    objects = page()
    with watching():
        count, got = queries(
            lambda: [outcome(lambda b=b: b.reviews.get(**conditions)) for b in objects]
        )
    assert got == want
    texts = any(name.startswith("body") and v is not None for name, v in conditions.items())
    assert count == (1 if STRINGS_EXACT or not texts else len(objects))


def test_counts_and_exists_are_django_s_from_one_count_of_the_page(books):
    want = [(b.reviews.count(), b.reviews.exists()) for b in Book.objects.order_by("pk")]
    objects = page()
    with watching():
        count, got = queries(lambda: [(b.reviews.count(), b.reviews.exists()) for b in objects])
        assert (count, got) == (1, want)
        Review.objects.filter(book=objects[1]).delete()
        count, got = queries(lambda: [(b.reviews.count(), b.reviews.exists()) for b in objects])
    assert count == 1  # the delete was a write: counted again, once
    assert got == [(b.reviews.count(), b.reviews.exists()) for b in Book.objects.order_by("pk")]


@pytest.fixture
def tagged(books) -> list[Book]:
    """Books with 0-3 tags each (a tag on none), two authors in clubs (one in none, a club
    of nobody)."""
    tags = [Tag.objects.create(name=name) for name in ("red", "green", "blue", "grey")]
    for n, book in enumerate(books):
        book.tags.set(tags[:n])
    bob = Author.objects.create(name="Bob")
    Author.objects.create(name="Cy")
    readers, writers = Club.objects.create(name="Readers"), Club.objects.create(name="Writers")
    Club.objects.create(name="Empty")
    Membership.objects.create(author=books[0].author, club=readers)
    Membership.objects.create(author=bob, club=readers)
    Membership.objects.create(author=bob, club=writers)
    return books


MANY = [(Book, "tags"), (Tag, "books"), (Club, "members"), (Author, "clubs")]


@pytest.mark.parametrize(("owner", "accessor"), MANY, ids=lambda v: getattr(v, "__name__", v))
def test_many_to_many_counts_and_exists_are_django_s_from_one_count_of_the_page(
    tagged, owner, accessor
):
    def answers(objects):
        return [
            (getattr(obj, accessor).count(), getattr(obj, accessor).exists()) for obj in objects
        ]

    want = answers(owner.objects.order_by("pk"))
    assert {count for count, _ in want} - {0}, "some owner has related rows"
    assert {count for count, _ in want} & {0}, "some owner has none"
    objects = list(owner.objects.order_by("pk"))
    load_together(objects)
    with watching():
        count, got = queries(lambda: answers(objects))
        assert (count, got) == (1, want)
        at = next(position for position, (count, _) in enumerate(want) if count)
        getattr(objects[at], accessor).clear()  # a write: the page counts again, once
        count, got = queries(lambda: answers(objects))
    assert count == 1
    assert got == answers(owner.objects.order_by("pk"))
    assert got[at] == (0, False)


def test_a_many_to_many_to_its_own_model_counts_per_object_as_django_does(tagged):
    ann, bob, cy = Author.objects.order_by("pk")
    ann.friends.add(bob)
    bob.follows.add(cy)
    want = [(a.friends.count(), a.follows.count(), a.followers.exists()) for a in (ann, bob, cy)]
    objects = list(Author.objects.order_by("pk"))
    load_together(objects)
    with watching():
        count, got = queries(
            lambda: [(a.friends.count(), a.follows.count(), a.followers.exists()) for a in objects]
        )
    assert (count, got) == (9, want)


def test_a_loaded_relation_counts_its_objects_as_django_does(books):
    objects = list(Book.objects.prefetch_related("reviews").order_by("pk"))
    load_together(objects)
    with watching():
        assert queries(lambda: [b.reviews.count() for b in objects]) == (0, [0, 1, 2, 4])
        assert queries(lambda: [b.reviews.exists() for b in objects]) == (0, [0, 1, 1, 1])


def test_the_owner_is_the_page_s_instance_and_each_call_a_new_object(books):
    objects = page()
    book = objects[1]
    with watching():
        first, again = book.reviews.get(stars=0), book.reviews.get(stars=0)
    assert first == again and first is not again
    assert first.book is book
    assert type(first) is Review


def test_more_than_twenty_is_said_as_django_says_it(books):
    Review.objects.bulk_create(Review(book=books[0], stars=5) for _ in range(25))
    want = outcome(lambda: Book.objects.get(pk=books[0].pk).reviews.get(stars=5))
    with watching():
        got = outcome(lambda: page()[0].reviews.get(stars=5))
    assert got == want
    assert "more than 20" in got[1]


def test_values_django_refuses_raise_what_django_raises(books):
    want = outcome(lambda: Book.objects.get(pk=books[2].pk).reviews.get(stars="many"))
    objects = page()
    with watching():
        got = outcome(lambda: objects[2].reviews.get(stars="many"))
    assert got == want
    assert got[0] is ValueError


@pytest.mark.parametrize(
    "call",
    [
        lambda reviews: reviews.get(stars__gt=0),
        lambda reviews: reviews.get(Q(stars=1)),
        lambda reviews: reviews.get(book__title="Book 2"),
        lambda reviews: reviews.get(reviewer=None),
        lambda reviews: reviews.filter(stars=1).get(),
    ],
    ids=["another lookup", "a Q", "through a relation", "a foreign key", "a filtered queryset"],
)
def test_other_gets_run_django_s_query(books, call):
    want = [outcome(lambda b=b: call(b.reviews)) for b in Book.objects.order_by("pk")]
    objects = page()
    with watching():
        count, got = queries(lambda: [outcome(lambda b=b: call(b.reviews)) for b in objects])
    assert got == want
    assert count == len(objects)


def test_outside_a_watched_read_each_get_is_django_s_query(books):
    objects = page()
    count, _ = queries(lambda: [outcome(lambda b=b: b.reviews.get(stars=1)) for b in objects])
    assert count == len(objects)


def test_a_write_in_between_is_seen(books):
    objects = page()
    with watching():
        assert outcome(lambda: objects[0].reviews.get(stars=7))[0] is Review.DoesNotExist
        Review.objects.create(book=objects[0], stars=7)
        assert objects[0].reviews.get(stars=7).stars == 7
        Review.objects.filter(book=objects[1]).update(stars=8)
        assert objects[1].reviews.get(stars=8).book_id == objects[1].pk
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM testapp_review WHERE stars = %s", [8])
        assert outcome(lambda: objects[1].reviews.get(stars=8))[0] is Review.DoesNotExist


def test_a_write_on_the_database_the_model_is_written_to_is_seen(books, monkeypatch):
    """Rows read from one database, the related model written to another (a router's
    primary): a statement there reads the rows again."""
    objects = page()
    with watching():
        queries(lambda: objects[1].reviews.get(stars=0))
        monkeypatch.setattr(page_gets.router, "db_for_write", lambda model, **hints: "replica")
        assert queries(lambda: objects[1].reviews.get(stars=0))[0] == 0  # nothing written
        primary = writes_on("replica")  # what runs there passes through it
        primary(lambda *statement: None, "UPDATE testapp_review SET stars = 1", (), False, {})
        assert queries(lambda: objects[1].reviews.get(stars=0))[0] == 1  # read again


def test_an_owner_whose_key_changed_is_read_for_its_new_key(books):
    objects = page()
    with watching():
        assert objects[0].reviews.count() == 0
        objects[0].pk = objects[3].pk  # a hook pointing an object at another row
        assert objects[0].reviews.count() == 4
        assert outcome(lambda: objects[0].reviews.get(stars=0)) == outcome(
            lambda: Book.objects.get(pk=objects[3].pk).reviews.get(stars=0)
        )


def test_what_was_prefetched_answers_too(books):
    objects = list(Book.objects.prefetch_related("reviews").order_by("pk"))
    load_together(objects)
    with watching():
        count, got = queries(lambda: [outcome(lambda b=b: b.reviews.get(stars=1)) for b in objects])
    assert count == 1
    assert got == [outcome(lambda b=b: b.reviews.get(stars=1)) for b in page()]
    assert [len(b.reviews.all()) for b in objects] == [0, 1, 2, 4]  # the prefetch stays


def test_objects_joined_into_a_page_read_their_relations_once_too(books):
    """``select_related`` objects (a pin's image) are a page of their own."""
    reviews = list(Review.objects.select_related("book").order_by("pk"))
    load_together(reviews)
    books = [review.book for review in reviews]
    want = [
        outcome(lambda r=r: Book.objects.get(pk=r.book_id).reviews.get(stars=1)) for r in reviews
    ]
    with watching():
        count, got = queries(lambda: [outcome(lambda b=b: b.reviews.get(stars=1)) for b in books])
    assert count == 1
    assert got == want


def test_one_to_one_objects_joined_both_ways_are_loaded_once(books):
    details = [BookDetail.objects.create(book=book, summary=book.title) for book in books]
    page_of = list(BookDetail.objects.select_related("book").order_by("pk"))
    assert page_of[0].book.detail is page_of[0]  # Django caches it both ways
    load_together(page_of)  # no endless walk between the two
    with watching():
        count, found = queries(lambda: [d.book.reviews.get(stars=0).stars for d in page_of[1:]])
    assert (count, found) == (1, [0, 0, 0])
    assert len(details) == 4


def test_objects_are_built_as_django_builds_them(books):
    """``pre_init``/``post_init`` are sent for the object Django's query would build."""
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(sender)

    objects = page()
    post_init.connect(receiver, sender=Review)
    try:
        with watching():
            objects[2].reviews.get(stars=1)
    finally:
        post_init.disconnect(receiver, sender=Review)
    assert seen == [Review]


def test_pickled_and_copied_objects_get_as_django_does(books):
    objects = page()
    with watching():
        objects[2].reviews.get(stars=1)
        queryset = objects[2].reviews.all()
        assert isinstance(queryset.__dict__["get"], page_gets.PageGet)
        restored = pickle.loads(pickle.dumps(queryset))
        assert not isinstance(restored.__dict__["get"], page_gets.PageGet)
        assert restored.get(stars=1).stars == 1
        for copied in (pickle.loads(pickle.dumps(objects[2])), copy.deepcopy(objects[2])):
            assert copied.reviews.get(stars=1).stars == 1


def test_a_relation_qualifies_only_through_django_s_plain_managers():
    assert type(page_gets.relation(Book, "reviews")) is page_gets.Relation
    assert type(page_gets.relation(Author, "books")) is page_gets.Relation
    for owner, name in ((Book, "tags"), (Tag, "books"), (Club, "members"), (Author, "clubs")):
        assert type(page_gets.relation(owner, name)) is page_gets.ManyRelation  # count() only
    assert page_gets.relation(Author, "friends") is None  # to itself: Django's per object
    assert page_gets.relation(Author, "follows") is None
    assert page_gets.relation(Author, "nothing") is None
    # a default manager of the project's (one scoping by the request's tenant): proved
    # bare on each call, else Django's (test_a_filtering_default_manager_s_relation_is_django_s)
    assert page_gets.relation(Tenant, "notes").plain is False


def test_a_key_to_another_column_groups_the_rows_by_it(db):
    """``Enclosure.zone`` points at ``Zone.code`` (a string): each zone's own rows."""
    zones = [Zone.objects.create(code=f"z{n}", name=f"Zone {n}") for n in range(3)]
    guard = Caretaker.objects.create(name="Gus")
    for n, zone in enumerate(zones):
        for k in range(n):
            Enclosure.objects.create(name=f"pen {k}", zone=zone, guard=guard)
    want = [
        outcome(lambda z=z: z.enclosures.get(name="pen 0")) for z in Zone.objects.order_by("pk")
    ]
    objects = list(Zone.objects.order_by("pk"))
    load_together(objects)
    with watching():
        count, got = queries(
            lambda: [outcome(lambda z=z: z.enclosures.get(name="pen 0")) for z in objects]
        )
    assert got == want
    assert count == (1 if STRINGS_EXACT else len(objects))
    with watching():
        assert objects[2].enclosures.get(name="pen 1").zone is objects[2]


def test_a_filtering_default_manager_s_relation_is_django_s(db):
    """Animals' default manager leaves the dead out: each keeper's get() is Django's."""
    keeper = Caretaker.objects.create(name="Kim")
    for number, alive in ((1, True), (2, False)):
        Animal.everyone.create(
            name=f"a{number}", number=number, slug=f"a{number}", alive=alive, keeper=keeper
        )
    assert page_gets.relation(Caretaker, "animal_set").plain is False
    objects = list(Caretaker.objects.all())
    load_together(objects)
    with watching():
        count, name = queries(lambda: objects[0].animal_set.get(number=1).name)
        assert (count, name) == (1, "a1")
        with pytest.raises(Animal.DoesNotExist):
            objects[0].animal_set.get(number=2)
        assert queries(lambda: objects[0].animal_set.count()) == (1, 1)  # Django's, each call
        assert queries(lambda: objects[0].animal_set.count()) == (1, 1)
