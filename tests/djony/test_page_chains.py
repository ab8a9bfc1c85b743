"""``djony.objects.page_chains``: ``obj.books.select_related(...)`` on a page's instances
reads once for the page, and answers what Django's query answers: the same objects in
the same order, their joined objects, their owner, new objects every evaluation."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from djony.bridge.writes import watching
from djony.objects.peers import load_together
from tests.djony.pages import authors_with_tied_books, page, queries
from tests.testapp.models import Author, Book, Country, Publisher, Review


@pytest.fixture
def shelves(db) -> list[Country]:
    """Three countries (one without authors), authors with books, some published."""
    countries = [Country.objects.create(code=code, name=code * 2) for code in ("fr", "it", "nz")]
    house = Publisher.objects.create(name="House")
    for n in range(6):
        author = Author.objects.create(name=f"Author {n}", country=countries[n % 2])
        author.mentor = Author.objects.order_by("pk").first()
        author.save()
        for k in range(n % 3 + 1):
            publisher = house if (n + k) % 2 else None
            Book.objects.create(title=f"Book {n}-{k}", author=author, publisher=publisher)
    return countries


def shelf(author: Author) -> list[tuple]:
    """What a model method reads through the chain: the books, their joined publisher and
    their owner."""
    return [
        (book.pk, book.title, book.publisher and book.publisher.name, book.author is author)
        for book in author.books.select_related("publisher")
    ]


def test_a_chain_reads_once_for_the_page_and_answers_as_django(shelves):
    want = [shelf(author) for author in Author.objects.order_by("pk")]
    authors = page(Author)
    with watching():
        count, got = queries(lambda: [shelf(author) for author in authors])
    assert (count, got) == (1, want)
    assert all(owned for found in got for *_, owned in found)  # the owner, a known object


def test_a_chain_of_a_chain_s_objects_reads_once_for_all_of_them(shelves):
    """Countries' authors (``mentor`` joined), then each author's books: a query each."""

    def walk(countries):
        return [
            [
                (author.name, author.mentor.name, shelf(author))
                for author in country.authors.select_related("mentor")
            ]
            for country in countries
        ]

    want = walk(Country.objects.order_by("pk"))
    countries = page(Country)
    with watching():
        count, got = queries(lambda: walk(countries))
    assert (count, got) == (2, want)


def test_each_evaluation_gets_objects_of_its_own(shelves):
    authors = page(Author)
    with watching():
        count, (first, again) = queries(
            lambda: (
                list(authors[1].books.select_related("publisher")),
                list(authors[1].books.select_related("publisher")),
            )
        )
    assert count == 2  # the page read twice, as Django's two queries
    assert [book.pk for book in first] == [book.pk for book in again]
    assert all(one is not other for one, other in zip(first, again, strict=True))


def test_a_write_is_seen_by_the_next_evaluation(shelves):
    authors = page(Author)
    with watching():
        before = shelf(authors[0])
        Book.objects.create(title="Book 0-new", author=authors[0])
        after = shelf(authors[0])
        assert shelf(authors[2]) == shelf(Author.objects.get(pk=authors[2].pk))
    assert len(after) == len(before) + 1
    assert after == shelf(Author.objects.get(pk=authors[0].pk))


def test_owners_whose_rows_tie_get_their_own_query_s_order(db):
    authors_with_tied_books()
    want = [shelf(author) for author in Author.objects.order_by("pk")]
    authors = page(Author)
    with watching():
        count, got = queries(lambda: [shelf(author) for author in authors])
    assert got == want
    assert count == 1 + 3


@pytest.mark.parametrize(
    "chain",
    [
        lambda author: author.books.select_related("publisher").filter(pages__gt=0),
        lambda author: author.books.filter(pages__gt=0).select_related("publisher"),
        lambda author: author.books.select_related("publisher").order_by("-pk"),
        lambda author: author.edited_books.select_related("publisher").reverse(),
    ],
    ids=["filtered after", "filtered before", "ordered after", "reversed"],
)
def test_more_than_select_related_is_django_s_query_per_object(shelves, chain):
    want = [[book.pk for book in chain(a)] for a in Author.objects.order_by("pk")]
    authors = page(Author)
    with watching():
        count, got = queries(lambda: [[book.pk for book in chain(a)] for a in authors])
    assert (count, got) == (len(authors), want)


def test_a_query_changed_in_place_is_django_s(shelves):
    authors = page(Author)
    with watching():
        chained = authors[0].books.select_related("publisher")
        chained.query.clear_ordering(force=True)
        chained.query.add_ordering("-pk")
        count, got = queries(lambda: [book.pk for book in chained])
    assert count == 1
    assert got == sorted(got, reverse=True)


def test_outside_a_watched_read_and_for_one_owner_it_is_django_s_query(shelves):
    authors = page(Author)
    count, got = queries(lambda: [shelf(author) for author in authors])
    assert count == len(authors)  # outside watching(): nothing kept
    alone = page(Author)[:1]
    load_together(alone)
    with watching():
        count, found = queries(lambda: list(alone[0].books.select_related("publisher")))
        assert count == 1
        # ... whose objects are a page of their own: their editors read once
        assert queries(lambda: [book.editor for book in found])[0] <= 1


def test_a_chain_ordered_through_a_relation_with_no_ties_reads_once(db):
    """Content types' permissions (``Permission``'s order, through its content type,
    leaves no ties): one query for the page, each owner's own order."""
    from django.contrib.contenttypes.models import ContentType

    def walk(types):
        return [
            [(p.pk, p.content_type.model) for p in ct.permission_set.select_related("content_type")]
            for ct in types
        ]

    want = walk(ContentType.objects.order_by("pk"))
    assert sum(map(len, want)) > 20
    types = page(ContentType)
    with watching():
        count, got = queries(lambda: walk(types))
    assert (count, got) == (1, want)


@pytest.fixture
def reviewed(shelves) -> list[Book]:
    """Reviews (no order of their own) of most books, some by an author."""
    authors = list(Author.objects.order_by("pk"))
    books = list(Book.objects.order_by("pk"))
    for n, book in enumerate(books[:-1]):
        for k in range(n % 3 + 1):
            reviewer = authors[(n + k) % len(authors)] if k % 2 == 0 else None
            Review.objects.create(book=book, reviewer=reviewer, stars=k)
    return books


def reviews(book: Book) -> list[tuple]:
    return [
        (review.pk, review.stars, review.reviewer and review.reviewer.name, review.book is book)
        for review in book.reviews.select_related("reviewer")
    ]


def test_an_unordered_chain_is_each_owner_s_own_query_by_sql_compiled_once(reviewed, compiles):
    """A relation with no order (a page's one query could give an owner's rows in another
    order): each owner's own query, as on Django, the very statement Django runs, its SQL
    compiled once for the relation and its joins, not per owner or per page."""
    from djony.objects import relation_sql

    fresh = list(Book.objects.order_by("pk"))
    with CaptureQueriesContext(connection) as django_s:
        want = [reviews(book) for book in fresh]
    relation_sql._KEPT.clear()
    books = page(Book)
    with watching(), CaptureQueriesContext(connection) as ours:
        got = [reviews(book) for book in books]
    assert got == want
    assert [q["sql"] for q in ours] == [q["sql"] for q in django_s]
    kept = [key for _owner, key, entry in relation_sql._KEPT.items() if entry is not None]
    assert kept == [(Book, "reviews", "default", "book", int, ("reviewer",))]
    books = page(Book)
    alone = page(Book)[:1]
    load_together(alone)
    compiles.clear()
    with watching():
        count, again = queries(lambda: [reviews(book) for book in books])
        assert queries(lambda: reviews(alone[0])) == (1, want[0])
    assert (count, again, compiles) == (len(books), want, [])
    relation_sql._KEPT.clear()


def test_an_unordered_chain_changed_in_place_is_django_s(reviewed):
    books = page(Book)
    with watching():
        chained = books[2].reviews.select_related("reviewer")
        chained.query.add_ordering("-pk")
        count, got = queries(lambda: [review.pk for review in chained])
    assert count == 1
    assert got == sorted(got, reverse=True) and len(got) > 1


@pytest.mark.parametrize("fields", [(), ("reviewer",), ("book__author", "reviewer")])
def test_kept_joins_are_the_ones_select_related_sets(db, fields):
    """The kept chain's joins are set as ``select_related(*fields)`` sets them, without
    calling it (Django 6.1 warns the project's own ``select_related()`` alone)."""
    import warnings

    from djony.objects.relation_sql import with_joins

    queryset = Review.objects.filter(stars=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a deprecation of Django 6.1 for fields == ()
        expected = queryset.select_related(*fields)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = with_joins(queryset, fields)
    assert made.query.select_related == expected.query.select_related
    assert str(made.query) == str(expected.query)
