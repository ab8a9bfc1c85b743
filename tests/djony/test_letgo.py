"""``djony.objects.letgo.letting_go``: what a block's pages set on querysets and loaded into
instances is let go at its end, so the block's objects are freed as soon as nothing refers
to them (no reference cycle left for the garbage collector), and an object kept past the
block answers as Django's."""

from __future__ import annotations

import contextlib
import functools
import gc
import types
import weakref
from collections.abc import Iterator
from unittest import mock

import pytest
from django.test import RequestFactory
from django.urls import include, path, set_urlconf
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization

from djony.bridge.writes import watching
from djony.objects.letgo import letting_go
from djony.objects.peers import load_together
from tastypie_djony import DjonyResource
from tests.testapp.models import Author, Book, Review, Tag


@pytest.fixture
def books(db) -> None:
    ann = Author.objects.create(name="Ann")
    red, blue = Tag.objects.create(name="red"), Tag.objects.create(name="blue")
    for n, tags in enumerate([[red, blue], [blue], [], [red]]):
        book = Book.objects.create(title=f"Book {n}", author=ann)
        book.tags.set(tags)
        for stars in range(n):
            Review.objects.create(book=book, stars=stars)


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def read_page(block) -> tuple[list[weakref.ref], list]:
    """A page of books read inside ``block`` as a hook reads it (every book's tags, one
    review count, an ``exists()``): weak references to the books, and the answers."""
    with block, watching():
        page = list(Book.objects.order_by("pk"))
        load_together(page)
        answers = [
            (
                [tag.name for tag in book.tags.all()],
                book.reviews.count(),
                book.reviews.filter(stars=0).exists(),
            )
            for book in page
        ]
        refs = [weakref.ref(book) for book in page]
        del page
    return refs, answers


def test_the_block_s_objects_are_freed_with_it(books) -> None:
    with collector_off():
        refs, answers = read_page(letting_go())
        assert [ref() for ref in refs] == [None] * 4
        # Without the block, the page's cycles keep them until the collector runs.
        kept, same = read_page(contextlib.nullcontext())
        assert any(ref() is not None for ref in kept)
    assert (
        answers
        == same
        == [(["blue", "red"], 0, False), (["blue"], 1, True), ([], 2, True), (["red"], 3, True)]
    )


def test_an_object_kept_past_the_block_answers_as_django(books) -> None:
    with letting_go(), watching():
        page = list(Book.objects.order_by("pk"))
        load_together(page)
        first = page[0]
        assert [tag.name for tag in first.tags.all()] == ["blue", "red"]
        reviews = page[1].reviews.all()
        assert reviews.get().stars == 0
    Tag.objects.filter(name="red").update(name="green")
    Review.objects.create(book=page[1], stars=4)
    # The page's load left the cache: read again, as Django reads it.
    assert [tag.name for tag in first.tags.all()] == ["blue", "green"]
    assert reviews.count() == 2  # Django's own count(), not the page's
    assert "count" not in vars(reviews) and "get" not in vars(reviews)


class BookTagsResource(DjonyResource):
    """A hook reading each book's relations, noting the objects it was given."""

    tag_names = fields.ListField(readonly=True)

    class Meta:
        queryset = Book.objects.order_by("pk")
        resource_name = "letgo-books"
        fields = ["title"]
        include_resource_uri = False
        authorization = Authorization()

    seen: list[weakref.ref] = []

    def dehydrate_tag_names(self, bundle) -> list:
        self.seen.append(weakref.ref(bundle.obj))
        return [tag.name for tag in bundle.obj.tags.all()] + [bundle.obj.reviews.count()]


@functools.cache
def mounted() -> tuple[BookTagsResource, types.ModuleType]:
    """The resource and a URLconf mounting it, as a project's is (an unmounted resource's
    URIs fail to reverse)."""
    api = Api(api_name="letgo")
    resource = BookTagsResource()
    api.register(resource)
    urlconf = types.ModuleType("tests.djony.letgo_urls")
    urlconf.urlpatterns = [path("api/", include(api.urls))]
    return resource, urlconf


def get_books() -> int:
    """How many objects the hook was given (each book once, twice where the test settings
    render a request both ways: DJONY_VERIFY_FAST_PATH)."""
    BookTagsResource.seen.clear()
    resource, urlconf = mounted()
    set_urlconf(urlconf)
    try:
        view = resource.wrap_view("dispatch_list")
        response = view(RequestFactory().get("/api/letgo/letgo-books/", {"format": "json"}))
    finally:
        set_urlconf(None)
    assert response.status_code == 200, response.content
    assert b'"tag_names": ["blue", "red", 0]' in response.content
    return len(BookTagsResource.seen)


def test_a_request_s_objects_are_freed_with_its_answer(books) -> None:
    # Once before: the first request builds the URL resolver (where asgiref and Django
    # catch exceptions of their own, whose tracebacks hold its frames in cycles on some
    # versions: Python 3.10's).
    get_books()
    with collector_off():
        assert get_books() >= 4
        assert {ref() for ref in BookTagsResource.seen} == {None}
        with mock.patch("tastypie_djony.resources.letting_go", contextlib.nullcontext):
            assert get_books() >= 4
        assert any(ref() is not None for ref in BookTagsResource.seen)
