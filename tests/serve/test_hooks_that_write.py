"""Hooks that write while a page is dehydrated: the later objects show what ModelResource shows.

ModelResource (``/hw2/``) reads each object's relations when its bundle is dehydrated, so
a hook that writes (moves a book to another author, tags a book, renames an author)
changes what the page's later objects show, and the later fields of the same object.  A
relation ``Meta.queryset`` prefetches or joins is read with the page on both, before any
hook, and keeps what it read.  DjonyResource (``/hw3/``) reads the page's relations
before any hook runs; once a hook wrote, the fields left are dehydrated from the objects,
whose relations are read again: the same bytes on both.

``DJONY_VERIFY_FAST_PATH`` (on in the test settings) does not answer a request whose
hooks wrote a second time: these requests are answered once, as on a server.
"""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.test import Client, override_settings
from django.urls import include, path
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Book, Tag

BASES = {"hw2": ModelResource, "hw3": DjonyResource}


def move_the_last_book(obj) -> None:
    """The first author's (or book's) hook gives the last book to the second author."""
    if getattr(obj, "name", None) == "author 1" or getattr(obj, "title", None) == "book 1":
        Book.objects.filter(title="book 6").update(author=Author.objects.get(name="author 2"))


def build_api(api_name: str, base: type) -> Api:
    class TagResource(base):
        class Meta:
            queryset = Tag.objects.all()
            resource_name = "tag"
            authorization = Authorization()

    class AuthorResource(base):
        class Meta:
            queryset = Author.objects.all()
            resource_name = "author"
            fields = ["id", "name"]
            authorization = Authorization()

    class BookResource(base):
        tags = fields.ToManyField(TagResource, "tags", null=True)

        class Meta:
            queryset = Book.objects.order_by("pk")
            resource_name = "book"
            fields = ["id", "title", "tags"]
            authorization = Authorization()

    class MovingBookResource(BookResource):
        """A nested resource whose hook writes."""

        class Meta(BookResource.Meta):
            resource_name = "movingbook"

        def dehydrate(self, bundle):
            move_the_last_book(bundle.obj)
            return bundle

    class KeysResource(base):
        """A to-many field of URIs; the hook moves a book to a later author."""

        books = fields.ToManyField(BookResource, "books")

        class Meta:
            queryset = Author.objects.order_by("pk")
            resource_name = "keys"
            fields = ["id", "name", "books"]
            authorization = Authorization()

        def dehydrate(self, bundle):
            move_the_last_book(bundle.obj)
            return bundle

    class NestedResource(KeysResource):
        """The same, the books nested (``full=True``)."""

        books = fields.ToManyField(BookResource, "books", full=True)

        class Meta(KeysResource.Meta):
            resource_name = "nested"

    class AuthoredBookResource(BookResource):
        """Books with their author nested (``full=True``)."""

        author = fields.ToOneField(AuthorResource, "author", full=True)

        class Meta(BookResource.Meta):
            resource_name = "authoredbook"
            fields = ["id", "title", "tags", "author"]

    class PrefetchedResource(KeysResource):
        """The books prefetched by ``Meta.queryset``, read before any hook on both; each
        book's author is the instance it was read for (the first author's hook renames the
        second: its books show the name it was read with, as on ModelResource)."""

        books = fields.ToManyField(AuthoredBookResource, "books", full=True)

        def dehydrate(self, bundle):
            move_the_last_book(bundle.obj)
            if bundle.obj.name == "author 1":
                Author.objects.filter(name="author 2").update(name="Renamed")
            return bundle

        class Meta(KeysResource.Meta):
            queryset = Author.objects.order_by("pk").prefetch_related("books")
            resource_name = "prefetched"

    class OwnerResource(base):
        """Each nested book's author is the author instance it was read for (as Django's
        related manager and prefetch leave it): what a write keeps."""

        books = fields.ToManyField(BookResource, "books", full=True)
        own = fields.BooleanField(readonly=True)

        class Meta:
            queryset = Author.objects.order_by("pk")
            resource_name = "owner"
            fields = ["id", "name", "books", "own"]
            authorization = Authorization()

        def dehydrate_own(self, bundle):
            return all(book.author is bundle.obj for book in bundle.obj.books.all())

    class NestedWriterResource(base):
        """The nested books' hook writes (``MovingBookResource``)."""

        books = fields.ToManyField(MovingBookResource, "books", full=True)

        class Meta:
            queryset = Author.objects.order_by("pk")
            resource_name = "nestedwriter"
            fields = ["id", "name", "books"]
            authorization = Authorization()

    class FieldHookResource(base):
        """A field's hook writes; a to-many field declared after it shows the write."""

        first = fields.CharField(readonly=True)
        books = fields.ToManyField(BookResource, "books")

        class Meta:
            queryset = Author.objects.order_by("pk")
            resource_name = "fieldhook"
            fields = ["id", "name", "first", "books"]
            authorization = Authorization()

        def dehydrate_first(self, bundle):
            if bundle.obj.name == "author 2":
                Book.objects.filter(title="book 6").update(author=bundle.obj)
            return "first"

    class GeneralFieldHookResource(FieldHookResource):
        """The same, served by Tastypie's own path (no plan)."""

        class Meta(FieldHookResource.Meta):
            resource_name = "generalfieldhook"
            fast_path = False

    def moving_attribute(bundle):
        """The second author's gives book 5 to the first, after the page's books were read."""
        if bundle.obj.name == "author 2":
            Book.objects.filter(title="book 5").update(author=Author.objects.get(name="author 1"))
        return bundle.obj.mentor

    class AttributeResource(base):
        """A related field whose attribute is a callable that writes (as pinry's thumbnails)."""

        mentor = fields.ToOneField(AuthorResource, attribute=moving_attribute, null=True)
        books = fields.ToManyField(BookResource, "books")

        class Meta:
            queryset = Author.objects.order_by("pk")
            resource_name = "attribute"
            fields = ["id", "mentor", "books"]
            authorization = Authorization()

    class TaggingResource(base):
        """Books nested with their author (``full=True``) and tags; the first book's hook tags
        the next book and renames the author of the third."""

        author = fields.ToOneField(AuthorResource, "author", full=True)
        tags = fields.ToManyField(TagResource, "tags", null=True)

        class Meta:
            queryset = Book.objects.order_by("pk")
            resource_name = "tagging"
            fields = ["id", "title", "author", "tags"]
            authorization = Authorization()

        def dehydrate(self, bundle):
            if bundle.obj.title == "book 1":
                red, second = Tag.objects.get(name="red"), Book.objects.get(title="book 2")
                Book.tags.through.objects.get_or_create(book=second, tag=red)
                third = Book.objects.get(title="book 3")
                Author.objects.filter(pk=third.author_id).update(name="Renamed")
            return bundle

    api = Api(api_name=api_name)
    for resource in (
        TagResource,
        AuthorResource,
        BookResource,
        MovingBookResource,
        AuthoredBookResource,
        KeysResource,
        NestedResource,
        PrefetchedResource,
        OwnerResource,
        NestedWriterResource,
        FieldHookResource,
        GeneralFieldHookResource,
        AttributeResource,
        TaggingResource,
    ):
        api.register(resource())
    return api


urlpatterns = [path("", include(build_api(name, base).urls)) for name, base in BASES.items()]


@pytest.fixture
def library(db):
    tags = [Tag.objects.create(name=name) for name in ("red", "green")]
    authors = [Author.objects.create(name=f"author {n}") for n in range(1, 4)]
    for n in range(1, 7):
        book = Book.objects.create(title=f"book {n}", author=authors[(n - 1) // 2])
        if n % 2:
            book.tags.add(tags[0])
    return {f"a{author.name[-1]}": author.pk for author in authors} | {
        f"b{book.title[-1]}": book.pk for book in Book.objects.all()
    }


def answers(url: str) -> list[tuple]:
    """Each base's status and body (its prefix made common), each in a transaction rolled
    back: both start from the same rows."""
    found = []
    for prefix in BASES:
        with transaction.atomic():
            response = Client().get(f"/{prefix}/{url}", {"format": "json"})
            body = response.content.replace(f"/{prefix}/".encode(), b"/api/")
            found.append((response.status_code, body))
            transaction.set_rollback(True)
    return found


@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.parametrize(
    "url",
    [
        "keys/",
        "nested/",
        "prefetched/",
        "nestedwriter/",
        "fieldhook/",
        "fieldhook/{a2}/",
        "generalfieldhook/{a2}/",
        "generalfieldhook/",
        "attribute/",
        "tagging/",
        "keys/set/{a1};{a2};{a3}/",
        "nested/set/{a1};{a2}/",
    ],
)
def test_a_hook_s_write_shows_in_what_follows_as_on_modelresource(library, url):
    want, got = answers(url.format(**library))
    assert want[0] == 200, want
    assert json.loads(got[1]) == json.loads(want[1])
    assert got == want


@override_settings(ROOT_URLCONF=__name__)
def test_the_writes_change_what_modelresource_shows(library):
    """The cases above do test something: a moved book shows under its new author (not
    under its old one), the prefetched one does not, the renamed author shows on the later
    books only."""
    (_, moved), (_, prefetched), (_, tagging), (_, attribute) = (
        answers(url)[0] for url in ("keys/", "prefetched/", "tagging/", "attribute/")
    )
    uri = "/api/book/{}/".format
    assert json.loads(attribute)["objects"][2]["books"] == [uri(library["b6"])]
    books = {item["id"]: item["books"] for item in json.loads(moved)["objects"]}
    assert books[library["a2"]] == [uri(library[f"b{n}"]) for n in (3, 4, 6)]
    assert books[library["a3"]] == [uri(library["b5"])]
    nested = {item["id"]: item["books"] for item in json.loads(prefetched)["objects"]}
    assert [book["title"] for book in nested[library["a2"]]] == ["book 3", "book 4"]
    assert [book["title"] for book in nested[library["a3"]]] == ["book 5", "book 6"]
    names = [item["author"]["name"] for item in json.loads(tagging)["objects"]]
    assert names == ["author 1", "author 1", "Renamed", "Renamed", "author 3", "author 3"]


@override_settings(ROOT_URLCONF=__name__)
def test_a_nested_object_s_owner_is_the_instance_it_was_read_for(library):
    want, got = answers("owner/")
    assert got == want
    assert all(item["own"] for item in json.loads(got[1])["objects"])
