"""``djony.objects.forward``: ``book.author`` on a page's instances reads the page's related
rows once, and each owner gets what Django's descriptor gives it: the same values, the
same database, cached as Django caches it; a chain (``book.author.country``) reads once
per level; outside a watched read, or where the answer could differ, it is Django's."""

from __future__ import annotations

import copy
import pickle

import pytest
from django.db.models.signals import post_init

from djony.bridge.writes import watching
from djony.objects.forward import ForwardCache, forward
from tests.djony import pages
from tests.djony.pages import queries
from tests.testapp.models import Author, Book, BookDetail, Country


@pytest.fixture
def books(db) -> list[Book]:
    countries = [Country.objects.create(code=code, name=code.upper()) for code in ("aa", "bb")]
    authors = [
        Author.objects.create(name=f"Author {n}", country=countries[n % 2] if n < 3 else None)
        for n in range(4)
    ]
    made = []
    for n in range(6):
        book = Book.objects.create(
            title=f"Book {n}", author=authors[n % 4], editor=authors[0] if n % 2 else None
        )
        BookDetail.objects.create(book=book, summary=f"About {n}")
        made.append(book)
    return made


def page(queryset=None) -> list:
    return pages.page(Book if queryset is None else queryset)


def described(obj) -> tuple | None:
    """What code can see of a related object: its class, values and state."""
    if obj is None:
        return None
    values = {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}
    return type(obj), values, obj._state.db, obj._state.adding


def test_each_owner_gets_django_s_object_and_the_page_reads_once(books):
    want = [(described(b.author), described(b.editor)) for b in Book.objects.order_by("pk")]
    objects = page()
    with watching():
        count, got = queries(lambda: [(described(b.author), described(b.editor)) for b in objects])
        assert got == want
        assert count == 2  # one per relation for the page; no query for a None key
        assert queries(lambda: [b.author for b in objects])[0] == 0  # cached on each owner
    assert all(b._state.fields_cache["author"].pk == b.author_id for b in objects)


def test_a_chain_reads_once_per_level(books):
    want = [described(b.author.country) for b in Book.objects.order_by("pk")]
    objects = page()
    with watching():
        count, got = queries(lambda: [described(b.author.country) for b in objects])
    assert (count, got) == (2, want)


def test_owners_of_one_row_share_its_object_as_a_prefetch_does(books):
    objects = page()
    with watching():
        authors = [b.author for b in objects]
    assert authors[0] is authors[4]  # books 0 and 4 have one author
    assert objects[0].author is authors[0]


def test_outside_a_watched_read_each_access_is_django_s(books):
    objects = page()
    count, _ = queries(lambda: [b.author for b in objects])
    assert count == len(objects)


def test_a_write_reads_the_rows_again(books):
    objects = page()
    with watching():
        first = objects[0].author
        Author.objects.filter(pk=objects[1].author_id).update(name="Renamed")
        count, second = queries(lambda: objects[1].author)
    assert first.name == "Author 0"
    assert (count, second.name) == (1, "Renamed")


def test_a_one_to_one_s_reverse_side_knows_its_owner(books):
    details = page(BookDetail.objects)
    with watching():
        count, found = queries(lambda: [d.book for d in details])
        assert count == 1
        assert queries(lambda: [b.detail for b in found]) == (0, details)


def test_signals_are_sent_as_django_s_query_sends_them(books):
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(type(instance))

    objects = page()
    post_init.connect(receiver, sender=Author)
    try:
        with watching():
            [b.author for b in objects]
    finally:
        post_init.disconnect(receiver, sender=Author)
    assert seen == [Author] * len({b.author_id for b in objects})


def test_what_could_differ_is_django_s(books):
    # a key of another column (to_field, a string): Django's query per owner
    Author.objects.update(country_by_code=Country.objects.get(code="aa"))
    assert forward(Author, "country_by_code") is None
    authors = page(Author.objects)
    with watching():
        assert queries(lambda: [a.country_by_code for a in authors])[0] == len(authors)
    # a deferred foreign key: Django loads the column, then the object
    deferred = page(Book.objects.only("title"))
    with watching():
        count, got = queries(lambda: [described(b.author) for b in deferred])
    assert got == [described(b.author) for b in Book.objects.order_by("pk")]
    assert count == 2 * len(deferred)
    # a UUID primary key (Publisher): Django's
    assert forward(Book, "publisher") is None


def test_a_copied_or_pickled_instance_has_django_s_plain_cache(books):
    book = page()[0]
    assert isinstance(book._state.fields_cache, ForwardCache)
    for made in (copy.copy(book), copy.deepcopy(book), pickle.loads(pickle.dumps(book))):
        assert type(made._state.fields_cache) is dict
