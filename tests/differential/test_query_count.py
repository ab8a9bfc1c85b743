"""Queries per list page: a constant on v3, whatever the page size.

``book`` has ToOne fields (author, editor, publisher) and a ToMany (tags);
``bookfull`` has them all with ``full=True``.  ModelResource runs queries per
book (the N+1 the seed article measured); DjonyResource loads the page's
related data together.
"""

import datetime

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.differential.harness import REFERENCE, TARGETS, Case
from tests.testapp.models import Author, Book, BookDetail, Publisher, Tag

pytestmark = pytest.mark.django_db

SMALL = 10
LARGE = {"book": 500, "bookfull": 60}  # ModelResource needs ~10 queries per full book


@pytest.fixture(scope="module")
def many_books(differential):
    """500 more books (580 in all), for this module only.

    Their titles sort first, so a page of 10 and a page of 500 hold the same
    kinds of related rows: authors, editors, publishers, tags, details.
    """
    with transaction.atomic():
        authors = list(Author.objects.order_by("pk")[:5])
        publishers = list(Publisher.objects.order_by("name"))
        tags = list(Tag.objects.order_by("pk"))
        published = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
        books = Book.objects.bulk_create(
            Book(
                title=f"000 Extra {n:03d}",
                author=authors[n % 5],
                editor=authors[(n + 1) % 5] if n % 2 else None,
                publisher=publishers[n % 3] if n % 4 else None,
                pages=n,
                published=published + datetime.timedelta(hours=n),
            )
            for n in range(LARGE["book"])
        )
        Book.tags.through.objects.bulk_create(
            Book.tags.through(book_id=book.pk, tag_id=tags[(n + k) % len(tags)].pk)
            for n, book in enumerate(books)
            for k in range(n % 3)
        )
        BookDetail.objects.bulk_create(
            BookDetail(book=book, summary=f"Extra {n}") for n, book in enumerate(books) if n % 3
        )
        yield
        transaction.set_rollback(True)


def count_queries(differential, api: str, url: str) -> int:
    differential.get(Case(url), api)  # once before, so one-time work is not counted
    with CaptureQueriesContext(connection) as queries:
        response = differential.get(Case(url), api)
    assert response.status_code == 200, response.content[:300]
    return len(queries)


@pytest.mark.parametrize("resource", ["book", "bookfull"])
@pytest.mark.parametrize("api", TARGETS)
def test_queries_do_not_grow_with_the_page(differential, many_books, api, resource):
    pages = {size: f"{resource}/?limit={size}" for size in (SMALL, LARGE[resource])}
    reference = {size: count_queries(differential, REFERENCE, url) for size, url in pages.items()}
    target = {size: count_queries(differential, api, url) for size, url in pages.items()}
    print(f"{resource}, queries per page size: {REFERENCE} {reference}, {api} {target}")
    small, large = SMALL, LARGE[resource]
    assert reference[large] > reference[small] + large - small  # one query or more per book
    assert target[large] == target[small]
