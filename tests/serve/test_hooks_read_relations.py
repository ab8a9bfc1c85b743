"""Hooks that iterate a relation no field names load it once per page, answering as on Django.

Real resources show a to-many through a hook (``dehydrate_tags`` returning
``bundle.obj.tags.all()``) rather than a field.  On ModelResource (``/hr2/``) that is a
query per object; on DjonyResource (``/hr3/``) the page's objects load the relation for
all of them the first time one iterates it (and the objects it loads are a page of their
own): the same answers, a number of queries that does not grow with the page.  A relation
whose objects come in no defined order, and ``filter()`` on any relation, stay one query
per object, as on Django; ``count()``/``exists()`` are one count for the page.
"""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.db import connection
from django.db.models import Prefetch
from django.db.models.sql.compiler import SQLCompiler
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import include, path, re_path
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.constants import ALL
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Book, Chapter, Review, Tag

BASES = {"hr2": ModelResource, "hr3": DjonyResource}


def build_api(api_name: str, base: type) -> Api:
    class AuthorResource(base):
        followers = fields.ListField(readonly=True)

        class Meta:
            queryset = Author.objects.all()
            resource_name = "author"
            fields = ["id", "name"]
            authorization = Authorization()

        def dehydrate_followers(self, bundle):
            return [author.name for author in bundle.obj.followers.all()]  # a reverse M2M

    class TaggedBookResource(base):
        """Tags and chapters through hooks, no field naming them."""

        author = fields.ToOneField(AuthorResource, "author", full=True)
        tags = fields.ListField(readonly=True)

        class Meta:
            queryset = Book.objects.all()
            resource_name = "tagged"
            fields = ["id", "title", "author"]
            filtering = {"title": ALL}
            authorization = Authorization()

        def dehydrate_tags(self, bundle):
            return [str(tag) for tag in bundle.obj.tags.all()]

    class ReviewedBookResource(base):
        """Relations the page does not load together: unordered (reviews, chapters), counted,
        filtered, sliced."""

        class Meta:
            queryset = Book.objects.all()
            resource_name = "reviewed"
            fields = ["id", "title"]
            authorization = Authorization()

        def dehydrate(self, bundle):
            book = bundle.obj
            bundle.data["stars"] = sorted(review.stars for review in book.reviews.all())
            bundle.data["chapters"] = sorted(chapter.pk for chapter in book.chapters.all())
            bundle.data["tag_count"] = book.tags.count()
            bundle.data["red"] = book.tags.filter(name="red").exists()
            bundle.data["first_tag"] = str(book.tags.all()[:1].first())
            return bundle

    class WriterResource(base):
        """A reverse foreign key, ordered by the related model."""

        books = fields.ListField(readonly=True)

        class Meta:
            queryset = Author.objects.all()
            resource_name = "writer"
            fields = ["id", "name"]
            authorization = Authorization()

        def dehydrate_books(self, bundle):
            return [book.title for book in bundle.obj.books.all()]

    class ShelfResource(base):
        """A hook that walks on from a relation's objects: each book's editor, tags and
        counts (the books load for the page; then each of their relations for them all)."""

        shelf = fields.ListField(readonly=True)

        class Meta:
            queryset = Author.objects.all()
            resource_name = "shelf"
            fields = ["id", "name"]
            authorization = Authorization()

        def dehydrate_shelf(self, bundle):
            return [
                [
                    book.title,
                    book.editor.name if book.editor else None,
                    [tag.name for tag in book.tags.all()],
                    book.tags.count(),
                    book.chapters.exists(),
                ]
                for book in bundle.obj.books.all()
            ]

    class SummedResource(ShelfResource):
        """A model method's walk, as wger sums nutritional values: each author's books with
        ``select_related()``, then a relation of theirs no join reads (the editor)."""

        class Meta(ShelfResource.Meta):
            resource_name = "summed"
            fields = [*ShelfResource.Meta.fields, "shelf"]  # (Tastypie drops inherited ones)

        def dehydrate_shelf(self, bundle):
            return [
                [book.title, book.author.name, book.editor.name if book.editor else None]
                for book in bundle.obj.books.select_related("publisher")
            ]

    class JoinedBookResource(base):
        """A queryset that joins and prefetches, as projects tune ModelResource."""

        author = fields.ToOneField(AuthorResource, "author")
        tags = fields.ListField(readonly=True)

        class Meta:
            queryset = Book.objects.select_related("author").prefetch_related("tags")
            resource_name = "joined"
            fields = ["id", "title", "author"]
            authorization = Authorization()

        def dehydrate_tags(self, bundle):
            return [str(tag) for tag in bundle.obj.tags.all()]

        def dehydrate(self, bundle):
            bundle.data["by"] = bundle.obj.author.name
            return bundle

    class NameResource(base):
        class Meta:
            queryset = Author.objects.all()
            resource_name = "name"
            fields = ["id", "name"]
            authorization = Authorization()

    class JoinedFullBookResource(base):
        """Its nested author joined in: the page's one query gives the nested rows too."""

        author = fields.ToOneField(NameResource, "author", full=True)
        editor = fields.ToOneField(NameResource, "editor", full=True, null=True)

        class Meta:
            queryset = Book.objects.select_related("author", "editor")
            resource_name = "joinedfull"
            fields = ["id", "title", "author", "editor"]
            authorization = Authorization()

        def dehydrate(self, bundle):
            bundle.data["by"] = bundle.obj.author.name
            return bundle

    class TagResource(base):
        class Meta:
            queryset = Tag.objects.all()
            resource_name = "tag"
            authorization = Authorization()

    class WarmBookResource(base):
        """Only the warm tags, as the resource's own ``Prefetch`` gives them to the field."""

        tags = fields.ToManyField(TagResource, "tags")

        class Meta:
            queryset = Book.objects.prefetch_related(
                Prefetch("tags", queryset=Tag.objects.filter(name__in=["red", "green"]))
            )
            resource_name = "warm"
            fields = ["id", "title", "tags"]
            authorization = Authorization()

    class WarmJoinedBookResource(WarmBookResource):
        class Meta(WarmBookResource.Meta):
            queryset = WarmBookResource.Meta.queryset.select_related("author")
            resource_name = "warmjoined"

        def dehydrate(self, bundle):
            bundle.data["by"] = bundle.obj.author.name
            return bundle

    class NamedTagResource(base):
        """Details by a filterable name: obj_get filters ``name__exact`` and ``name``."""

        class Meta:
            queryset = Tag.objects.select_related(None)
            resource_name = "named"
            detail_uri_name = "name"
            filtering = {"name": ALL}
            authorization = Authorization()

        def prepend_urls(self):
            return [
                re_path(
                    rf"^(?P<resource_name>{self._meta.resource_name})/(?P<name>[\w-]+)/$",
                    self.wrap_view("dispatch_detail"),
                    name="api_dispatch_detail",
                )
            ]

        def dehydrate(self, bundle):
            bundle.data["books"] = bundle.obj.books.count()
            return bundle

    class ReviewResource(base):
        class Meta:
            queryset = Review.objects.all()
            resource_name = "review"
            authorization = Authorization()

    class ShelvedBookResource(base):
        """To-many fields shown as URIs (reviews: no order) and a hook that reads columns."""

        tags = fields.ToManyField(TagResource, "tags")
        reviews = fields.ToManyField(ReviewResource, "reviews")

        class Meta:
            queryset = Book.objects.all()
            resource_name = "shelved"
            fields = ["id", "title", "tags", "reviews"]
            authorization = Authorization()

        def dehydrate(self, bundle):
            bundle.data["loud"] = bundle.obj.title.upper()
            return bundle

    class CountedBookResource(ShelvedBookResource):
        """The same fields; its hook counts, asks and iterates the fields' relations."""

        class Meta(ShelvedBookResource.Meta):
            resource_name = "counted"

        def dehydrate(self, bundle):
            book = bundle.obj
            bundle.data["review_count"] = book.reviews.count()
            bundle.data["reviewed"] = book.reviews.exists()
            bundle.data["stars"] = sorted(review.stars for review in book.reviews.all())
            bundle.data["tag_names"] = [tag.name for tag in book.tags.all()]
            return bundle

    def review_with(stars: int):
        """What pinry's thumbnails fields do: one related row by a column, or none."""

        def attribute(bundle):
            try:
                return bundle.obj.reviews.get(stars=stars)
            except Review.DoesNotExist:
                return None

        return attribute

    class StarredBookResource(base):
        """A related row looked up per object: a field's ``attribute`` and a hook ``get()``."""

        best = fields.ToOneField(ReviewResource, attribute=review_with(5), full=True, null=True)
        worst = fields.ToOneField(ReviewResource, attribute=review_with(1), null=True)

        class Meta:
            queryset = Book.objects.all()
            resource_name = "starred"
            fields = ["id", "title", "best", "worst"]
            authorization = Authorization()

        def dehydrate(self, bundle):
            try:
                found = bundle.obj.reviews.get(stars__exact="2")
            except (Review.DoesNotExist, Review.MultipleObjectsReturned) as exc:
                found = f"{type(exc).__name__}: {exc}"
            else:
                found = [found.pk, found.stars, found.book.title]
            bundle.data["two"] = found
            bundle.data["reviews"] = [bundle.obj.reviews.count(), bundle.obj.reviews.exists()]
            return bundle

    api = Api(api_name=api_name)
    resources = (
        StarredBookResource,
        ReviewResource,
        ShelvedBookResource,
        CountedBookResource,
        NamedTagResource,
        TagResource,
        WarmBookResource,
        WarmJoinedBookResource,
        NameResource,
        JoinedFullBookResource,
        AuthorResource,
        TaggedBookResource,
        ReviewedBookResource,
        WriterResource,
        ShelfResource,
        SummedResource,
        JoinedBookResource,
    )
    for resource in resources:
        api.register(resource())
    return api


APIS = {name: build_api(name, base) for name, base in BASES.items()}
urlpatterns = [path("", include(api.urls)) for api in APIS.values()]


@pytest.fixture
def library(db):
    """Adds ``books`` books by three new authors who follow each other, with tags,
    chapters and reviews (the tags made once)."""

    def make(books: int) -> None:
        first = Author.objects.count()
        authors = [Author.objects.create(name=f"Author {first + n}") for n in range(3)]
        authors[0].follows.set(authors[1:])
        authors[1].follows.set(authors[:1])
        tags = [Tag.objects.get_or_create(name=name)[0] for name in ("red", "blue", "green")]
        first = Book.objects.count()
        for n in range(first, first + books):
            editor = authors[(n + 1) % 3] if n % 2 else None
            book = Book.objects.create(title=f"Book {n:02d}", author=authors[n % 3], editor=editor)
            book.tags.set(tags[: n % 4])
            for k in range(n % 3):
                Chapter.objects.create(book=book, writer=authors[k])
                Review.objects.create(book=book, stars=1 + (n + k) % 5)

    return make


def answer(url: str) -> tuple[int, dict]:
    client = Client()
    response = client.get(url)
    return response.status_code, json.loads(response.content)


def same_answers(url: str) -> dict:
    status2, body2 = answer(f"/hr2/{url}")
    status3, body3 = answer(f"/hr3/{url}")
    assert status2 == 200
    assert (status3, json.dumps(body3).replace("/hr3/", "/hr2/")) == (status2, json.dumps(body2))
    return body3


def v3_queries(url: str) -> list[str]:
    """The SQL of one request to ``/hr3/`` (the plans' self-check off: it renders twice)."""
    with override_settings(DJONY_VERIFY_FAST_PATH=False):
        answer(f"/hr3/{url}")  # once before: one-time work is not counted
        with CaptureQueriesContext(connection) as queries:
            status, _ = answer(f"/hr3/{url}")
    assert status == 200
    return [query["sql"] for query in queries]


pytestmark = pytest.mark.urls(__name__)


@pytest.mark.parametrize(
    "url",
    [
        "tagged/",
        "tagged/?limit=4&offset=3",
        "tagged/?title__startswith=Book%200",
        "reviewed/",
        "writer/",
        "author/",
        "joined/",
        "joined/?limit=3&offset=2",
        "joinedfull/",
        "warm/",
        "warmjoined/",
    ],
)
def test_pages_answer_as_on_modelresource(library, url) -> None:
    library(12)
    body = same_answers(url)
    assert body["objects"], "the page shows objects"


def test_details_answer_as_on_modelresource(library) -> None:
    library(4)
    book = Book.objects.order_by("pk").last()
    for url in (
        f"tagged/{book.pk}/",
        f"reviewed/{book.pk}/",
        f"writer/{book.author_id}/",
        f"joined/{book.pk}/",
        f"joinedfull/{book.pk}/",
        f"warm/{book.pk}/",
        f"warmjoined/{book.pk}/",
    ):
        same_answers(url)


@pytest.mark.parametrize("url", ["tagged/?limit=0", "writer/?limit=0"])
def test_a_relation_read_through_the_object_loads_once_per_page(library, url) -> None:
    library(6)
    small = len(v3_queries(url))
    library(18)  # more books, more authors
    assert len(v3_queries(url)) == small


@pytest.mark.parametrize("url", ["starred/", "starred/?limit=0", "starred/?offset=3&limit=4"])
def test_related_rows_looked_up_per_object_answer_as_on_modelresource(library, url) -> None:
    library(14)
    Review.objects.create(book=Book.objects.order_by("pk")[4], stars=2)  # two with stars=2
    body = same_answers(url)
    assert any(book["best"] for book in body["objects"])
    assert any(isinstance(book["two"], str) for book in body["objects"])


def test_related_rows_looked_up_per_object_are_read_once_per_page(library) -> None:
    """``obj.reviews.get(stars=...)``: one read of the page's reviews, whatever the page's
    size and however many lookups (Django: a query per object and lookup); ``count()``
    and ``exists()``: one count of them."""
    library(6)
    small = v3_queries("starred/?limit=0")
    library(12)
    large = v3_queries("starred/?limit=0")
    review = connection.ops.quote_name("testapp_review")
    assert len(large) == len(small)
    assert len([query for query in large if f"FROM {review}" in query]) == 2
    book = Book.objects.order_by("pk").last()
    same_answers(f"starred/{book.pk}/")
    assert len([query for query in v3_queries(f"starred/{book.pk}/") if review in query]) == 2


def test_a_hook_walking_on_from_a_relation_s_objects_reads_once_per_page(library) -> None:
    """The books of a page's authors are a page of their own: their editors, tags and
    counts read once for all of them, on a list as on a detail, answering as on Django."""
    library(6)
    small = v3_queries("shelf/?limit=0")
    body = same_answers("shelf/?limit=0")
    library(18)
    assert len(v3_queries("shelf/?limit=0")) == len(small)
    body = same_answers("shelf/?limit=0")
    shelves = [shelf for author in body["objects"] for shelf in author["shelf"]]
    assert {bool(editor) for _, editor, *_ in shelves} == {True, False}
    assert {count for *_, count, _ in shelves} >= {0, 1, 2}
    author = Author.objects.order_by("pk").first()
    same_answers(f"shelf/{author.pk}/")
    assert len(v3_queries(f"shelf/{author.pk}/")) <= len(small)


def test_a_relation_read_with_select_related_reads_once_per_page(library) -> None:
    """``bundle.obj.books.select_related(...)`` in a hook: one query for the page's authors
    (Django: one per author), the books' editors one more, the same answers."""
    library(6)
    small = v3_queries("summed/?limit=0")
    same_answers("summed/?limit=0")
    library(18)
    large = v3_queries("summed/?limit=0")
    assert len(large) == len(small)
    body = same_answers("summed/?limit=0")
    assert {bool(editor) for author in body["objects"] for *_, editor in author["shelf"]} == {
        True,
        False,
    }
    author = Author.objects.order_by("pk").first()
    same_answers(f"summed/{author.pk}/")


def test_unordered_and_filtered_relations_stay_one_query_per_object(library) -> None:
    """Four of the hook's reads are Django's query per book; ``book.tags.count()`` (a
    many-to-many) is one count for the page."""
    library(6)
    small = v3_queries("reviewed/?limit=0")
    library(6)
    large = v3_queries("reviewed/?limit=0")
    assert len(large) == len(small) + 6 * 4
    counts = [query for query in large if "COUNT(*) AS" in query and "GROUP BY" in query]
    assert len(counts) == 1


@pytest.mark.parametrize("url", ["joined/", "joined/{pk}/"])
def test_a_joined_queryset_reads_its_rows_once(library, url) -> None:
    """The query Django runs for the objects (with its join) gives the plan its rows too."""
    library(6)
    sql = v3_queries(url.format(pk=Book.objects.order_by("pk").first().pk))
    book, author = (
        connection.ops.quote_name(table) for table in ("testapp_book", "testapp_author")
    )
    reads = [query for query in sql if f"FROM {book}" in query and "COUNT(" not in query]
    assert len(reads) == 1, reads
    assert f"JOIN {author}" in reads[0]


@pytest.mark.parametrize("url", ["joinedfull/", "joinedfull/{pk}/"])
def test_nested_rows_joined_into_the_page_are_not_read_again(library, url) -> None:
    library(6)
    sql = v3_queries(url.format(pk=Book.objects.order_by("pk").first().pk))
    author = connection.ops.quote_name("testapp_author")
    assert [query for query in sql if f"FROM {author}" in query] == []
    assert len([query for query in sql if f"JOIN {author}" in query]) == 1  # author, editor


def test_a_prefetch_of_its_own_is_what_the_field_shows(library) -> None:
    """``Prefetch("tags", queryset=...)``: the bundle plan takes the tags from the objects
    Django's query prefetched, in one query for the page (the row-built plan declines)."""
    resource = APIS["hr3"]._registry["warm"]
    assert resource.served_by()["list"] == "the bundle plan"
    assert "Prefetch" not in resource.declined_plans().get("bundle list", "")
    library(6)
    sql = v3_queries("warm/?limit=0")
    tag = connection.ops.quote_name("testapp_tag")
    assert len([query for query in sql if f"FROM {tag}" in query]) == 1


def compiles(url: str) -> int:
    """How many times Django compiles a query for a second request to ``/hr3/``."""
    with override_settings(DJONY_VERIFY_FAST_PATH=False):
        answer(f"/hr3/{url}")
        with mock.patch.object(
            SQLCompiler, "as_sql", autospec=True, side_effect=SQLCompiler.as_sql
        ) as as_sql:
            status, _ = answer(f"/hr3/{url}")
    assert status == 200
    return as_sql.call_count


def test_a_joined_detail_runs_the_sql_compiled_for_an_earlier_one(library) -> None:
    """``select_related`` details: Django's iterable builds the objects from the SQL the
    first detail compiled; each key still answers as on ModelResource."""
    library(4)
    books = list(Book.objects.order_by("pk"))
    compiles(f"joinedfull/{books[0].pk}/")
    assert compiles(f"joinedfull/{books[1].pk}/") == 0
    for book in books:
        same_answers(f"joinedfull/{book.pk}/")
    missing = max(book.pk for book in books) + 1
    statuses = {api: Client().get(f"/{api}/joinedfull/{missing}/").status_code for api in BASES}
    assert statuses == {"hr2": 404, "hr3": 404}


@pytest.mark.parametrize("value", ["red", "none", "true", "Red", "missing"])
def test_a_detail_by_a_filterable_name_answers_as_on_modelresource(library, value) -> None:
    library(2)
    Tag.objects.get_or_create(name="none")
    Tag.objects.get_or_create(name="true")
    compiles("named/blue/")
    want = Client().get(f"/hr2/named/{value}/")
    got = Client().get(f"/hr3/named/{value}/")
    assert got.status_code == want.status_code
    assert got.content.replace(b"/hr3/", b"/hr2/") == want.content
    if want.status_code == 200 and value == "red":
        # the detail's SQL and the count of its books (one count per page): kept
        assert compiles(f"named/{value}/") == 0


@pytest.mark.parametrize("books", [4, 12])
def test_a_to_many_field_s_objects_are_not_read_when_no_code_uses_them(library, books):
    """The fields' URIs come from the page's keys; the hook reads only columns: no review
    or tag rows are read, however many books the page holds."""
    library(books)
    same_answers("shelved/")
    queries = [sql.replace("`", '"') for sql in v3_queries("shelved/")]  # MySQL quotes so
    assert not [sql for sql in queries if '"testapp_review"."stars"' in sql]
    assert not [sql for sql in queries if '"testapp_tag"."name" FROM' in sql]
    assert len(queries) == 4  # count, rows, the tags' keys, the reviews' keys


@pytest.mark.parametrize("books", [4, 12])
def test_a_hook_using_a_field_s_relation_loads_it_once_for_the_page(library, books):
    """count(), exists() and iteration of an unordered reverse foreign key (reviews) and an
    ordered many-to-many (tags) the fields name: ModelResource's answers, one query of
    each relation's objects for the whole page, as the page's prefetch gave them."""
    library(books)
    body = same_answers("counted/")
    assert any(obj["review_count"] for obj in body["objects"])
    queries = [sql.replace("`", '"') for sql in v3_queries("counted/")]
    assert len([sql for sql in queries if '"testapp_review"."stars"' in sql]) == 1
    assert len([sql for sql in queries if '"testapp_tag"."name" FROM' in sql]) == 1
    assert not [sql for sql in queries if "COUNT(" in sql and "testapp_review" in sql]
