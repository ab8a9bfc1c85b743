"""``djony.objects.peers.load_together``: a to-many relation iterated on one instance of a
page loads for the whole page in one query, and every answer stays Django's."""

from __future__ import annotations

import copy
import pickle
from unittest import mock

import pytest
from django.db import connection
from django.db.models.functions import Lower
from django.test.utils import CaptureQueriesContext

from djony.bridge.writes import watching
from djony.objects.peers import load_together, to_many_accessors
from tests.djony.pages import authors_with_tied_books
from tests.testapp.models import Author, Book, Restaurant, Review, Tag


@pytest.fixture
def books(db) -> list[Book]:
    ann, bob = Author.objects.create(name="Ann"), Author.objects.create(name="Bob")
    ann.follows.set([bob])
    red, blue = Tag.objects.create(name="red"), Tag.objects.create(name="blue")
    made = []
    for n, (author, tags) in enumerate(
        [(ann, [red, blue]), (bob, [blue]), (ann, []), (bob, [red])]
    ):
        book = Book.objects.create(title=f"Book {n}", author=author)
        book.tags.set(tags)
        for stars in range(n):
            Review.objects.create(book=book, stars=stars)
        made.append(book)
    return made


def fresh(model, **filters) -> list:
    return list(model.objects.filter(**filters).order_by("pk"))


def read(objects, accessor: str) -> list[list]:
    return [list(getattr(obj, accessor).all()) for obj in objects]


def queries_of(action) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as queries:
        result = action()
    return len(queries), result


@pytest.mark.parametrize(
    ("model", "accessor"),
    [(Book, "tags"), (Author, "books"), (Tag, "books"), (Author, "followers")],
    ids=["many-to-many", "reverse foreign key", "reverse many-to-many", "reverse self m2m"],
)
def test_the_page_loads_an_ordered_relation_once(books, model, accessor) -> None:
    want = read(fresh(model), accessor)
    page = fresh(model)
    load_together(page)
    count, got = queries_of(lambda: read(page, accessor))
    assert got == want
    assert [[type(obj) for obj in found] for found in got] == [
        [type(obj) for obj in found] for found in want
    ]
    assert count == 1
    assert queries_of(lambda: read(page, accessor))[0] == 0  # loaded: kept, as a prefetch


def test_owners_whose_related_rows_tie_get_their_own_query_s_order(db) -> None:
    """Books of one title (``Book.Meta.ordering`` is the title) come in the order each
    author's own query gives them, though the page reads every author's in one query (whose
    order of ties is the database's, PostgreSQL's differing): authors with ties are read by
    their own query, the others not, and the objects a hook sees are that query's."""
    authors_with_tied_books()
    want = read(fresh(Author), "books")
    page = fresh(Author)
    load_together(page)
    count, got = queries_of(lambda: read(page, "books"))
    assert [[book.pk for book in found] for found in got] == [
        [book.pk for book in found] for found in want
    ]
    assert count == 1 + 3
    assert queries_of(lambda: read(page, "books"))[0] == 0


def test_a_relation_ordered_by_what_rows_cannot_tell_apart_is_one_query_per_object(
    books,
) -> None:
    """An order by an expression or a related model's column: the page's one query could
    give its ties in another order, which no row shows; each object's own query, as on
    Django."""
    page = fresh(Author)
    load_together(page)
    with mock.patch.object(Book._meta, "ordering", [Lower("title")]):
        count, got = queries_of(lambda: read(page, "books"))
        assert got == read(fresh(Author), "books")
    assert count == len(page)


def test_a_relation_ordered_through_a_relation_with_no_ties_is_one_query(db) -> None:
    """``Permission`` is ordered by its content type's app label and model and its
    codename, unique together: no two rows tie, so the page's one query gives each user
    the order its own query gives."""
    from django.contrib.auth.models import Permission, User

    permissions = list(Permission.objects.order_by("-pk")[:30])
    for index in range(3):
        user = User.objects.create(username=f"user {index}")
        user.user_permissions.set(permissions[index * 5 : index * 5 + 20])
    want = read(fresh(User), "user_permissions")
    page = fresh(User)
    load_together(page)
    count, got = queries_of(lambda: read(page, "user_permissions"))
    assert got == want
    assert count == 1


def test_an_unordered_relation_stays_one_query_per_object(books) -> None:
    page = fresh(Book)
    load_together(page)
    count, got = queries_of(lambda: read(page, "reviews"))
    assert count == len(page)
    assert got == read(fresh(Book), "reviews")


def test_a_relation_that_does_not_load_together_is_asked_once_per_page(books) -> None:
    """An unordered relation read on every object: its manager is probed once for the page
    (not once per object, which doubled the cost of a hook's per-object query), and each
    object's queryset is built once (by the cache for a reverse foreign key whose ``get()``
    the page may answer, :mod:`djony.objects.page_gets`; else by the manager itself)."""
    from unittest import mock

    from djony.objects import peers

    accessor = "reviews"
    manager_class = Book.reviews.related_manager_cls
    page = fresh(Book)
    load_together(page)
    with (
        mock.patch.object(peers, "to_many_accessors", wraps=peers.to_many_accessors) as asked,
        mock.patch.object(
            manager_class,
            "_apply_rel_filters",
            autospec=True,
            side_effect=manager_class._apply_rel_filters,
        ) as built,
    ):
        count, got = queries_of(lambda: read(page, accessor))
    assert asked.call_count == 1
    assert built.call_count == len(page)
    assert count == len(page)
    assert got == read(fresh(Book), accessor)


def test_a_relation_in_any_order_loads_for_the_page_on_first_use(books) -> None:
    """A relation a page loader would have prefetched (``any_order``): unordered too, and
    ``count()``/``exists()`` answered from the page's one query, as from a prefetch."""
    want = [(len(found), bool(found), found) for found in read(fresh(Book), "reviews")]
    page = fresh(Book)
    load_together(page, any_order=frozenset({"reviews"}))
    count, got = queries_of(
        lambda: [
            (book.reviews.count(), book.reviews.exists(), list(book.reviews.all())) for book in page
        ]
    )
    assert count == 1
    assert got == want
    untouched = fresh(Book)
    load_together(untouched, any_order=frozenset({"reviews"}))
    assert queries_of(lambda: [book.title for book in untouched])[0] == 0


def test_other_queryset_methods_run_their_own_query(books) -> None:
    """``count()``, ``exists()``, ``filter()`` and slices do what they do on Django."""
    page = fresh(Book)
    load_together(page)
    count, got = queries_of(
        lambda: [
            (
                book.tags.count(),
                book.tags.filter(name="red").exists(),
                [tag.name for tag in book.tags.all()[:1]],
                list(book.tags.values_list("name", flat=True)),
            )
            for book in page
        ]
    )
    assert count == 4 * len(page)
    assert got == [
        (
            len(tags),
            any(tag.name == "red" for tag in tags),
            [tag.name for tag in tags][:1],
            [tag.name for tag in tags],
        )
        for tags in read(fresh(Book), "tags")
    ]


def test_what_was_prefetched_stays(books) -> None:
    page = list(Book.objects.prefetch_related("tags").order_by("pk"))
    load_together(page)
    count, got = queries_of(lambda: read(page, "tags"))
    assert count == 0
    assert got == read(fresh(Book), "tags")


def test_a_relation_the_page_loaded_is_read_again_after_a_write(books) -> None:
    """Inside a watched read a write (here not through the manager) is seen by the next
    read of a relation the page loaded, as Django's own query sees it: one query for the
    page again.  What a ``prefetch_related`` loaded stays, as on Django."""
    page = fresh(Author)
    prefetched = list(Author.objects.prefetch_related("books").order_by("pk"))
    load_together(page)
    load_together(prefetched)
    with watching():
        before = read(page, "books")
        assert read(prefetched, "books") == before
        Book.objects.create(title="Book 9", author=page[0])
        count, got = queries_of(lambda: read(page, "books"))
        assert queries_of(lambda: read(prefetched, "books")) == (0, before)
    assert got == read(fresh(Author), "books") != before
    assert count == 1


def test_a_write_through_the_manager_is_seen(books) -> None:
    """Django drops the written relation's cache entry: the next read has the write."""
    page = fresh(Book)
    load_together(page)
    read(page, "tags")
    green = Tag.objects.create(name="green")
    page[2].tags.add(green)
    assert [tag.name for tag in page[2].tags.all()] == ["green"]
    assert read(page, "tags") == read(fresh(Book), "tags")


def test_objects_gone_from_the_page_are_not_loaded(books) -> None:
    page = fresh(Book)
    load_together(page)
    first = page[0]
    del page[1:]
    assert [tag.name for tag in first.tags.all()] == ["blue", "red"]


def test_pickled_and_copied_objects_keep_plain_caches(books) -> None:
    page = fresh(Book)
    load_together(page)
    read(page, "tags")
    for copied in (pickle.loads(pickle.dumps(page[0])), copy.deepcopy(page[0])):
        assert type(copied._prefetched_objects_cache) is dict
        assert [tag.name for tag in copied.tags.all()] == ["blue", "red"]
    unread = fresh(Book)
    load_together(unread)
    assert type(pickle.loads(pickle.dumps(unread[1]))._prefetched_objects_cache) is dict


@pytest.mark.parametrize("owners", [1, 3], ids=["a detail's object", "a page's objects"])
def test_a_relation_s_queryset_pickles_and_copies_as_django_s(books, owners) -> None:
    """Django's cache pickles a queryset whole (a hook caching ``obj.tags.all()``): it
    pickles, and the copy evaluates and counts by Django's own methods; so do a deep copy
    and a shallow one."""
    page = fresh(Book)[:owners]
    load_together(page, any_order=frozenset({"tags"}))
    expected = [sorted(tag.name for tag in book.tags.all()) for book in fresh(Book)[:owners]]
    for book, names in zip(page, expected, strict=True):
        for made in (
            pickle.loads(pickle.dumps(book.tags.all())),
            copy.deepcopy(book.tags.all()),
            copy.copy(book.tags.all()),
        ):
            assert sorted(tag.name for tag in made) == names
            assert made.count() == len(names) and made.exists() == bool(names)


def test_mixed_classes_are_left_as_django_leaves_them(db) -> None:
    """(One object reads its own relations, by kept SQL: tests/objects/test_relation_sql.py.)"""
    mixed = [Author(pk=1, name="a"), Restaurant(pk=2, name="r")]
    load_together(mixed)
    assert all("_prefetched_objects_cache" not in obj.__dict__ for obj in mixed)


def test_the_relations_by_the_name_their_managers_cache_them_under() -> None:
    assert to_many_accessors(Book)["tags"] == "tags"
    assert to_many_accessors(Book)["reviews"] == "reviews"
    assert to_many_accessors(Author)["books"] == "books"
    assert to_many_accessors(Author)["followers"] == "followers"
    assert to_many_accessors(Tag)["books"] == "books"
    for model, accessor in [(Book, "tags"), (Author, "books"), (Tag, "books")]:
        obj = model(pk=1)
        manager = getattr(obj, accessor)
        name = (
            getattr(manager, "prefetch_cache_name", None) or manager.field.remote_field.cache_name
        )
        assert to_many_accessors(model)[name] == accessor
