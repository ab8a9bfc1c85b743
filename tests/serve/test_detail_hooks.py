"""A resource overriding what only a detail calls keeps the plans for its lists.

``obj_get`` and ``cached_obj_get`` are called by ``get_detail`` (and ``set/``) only: a list
page never reaches them, and neither do a related resource's nested rows.  The same
resources on ModelResource (``/dh2/``) and DjonyResource (``/dh3/``) answer the same; the
lists (and a ``full=True`` field over such a resource) are served by a plan, the details
by Tastypie's general path, whose ``obj_get`` is the resource's.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import include, path
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Book

BASES = {"dh2": ModelResource, "dh3": DjonyResource}


def build_api(api_name: str, base: type) -> Api:
    class HiddenAuthorResource(base):
        """Authors whose name starts with "Secret" have no detail."""

        class Meta:
            queryset = Author.objects.all()
            resource_name = "author"
            fields = ["id", "name"]
            authorization = Authorization()

        def obj_get(self, bundle, **kwargs):
            found = super().obj_get(bundle, **kwargs)
            if found.name.startswith("Secret"):
                raise Author.DoesNotExist("No such author.")
            return found

    class CachedBookResource(base):
        author = fields.ToOneField(HiddenAuthorResource, "author", full=True)

        class Meta:
            queryset = Book.objects.all()
            resource_name = "book"
            fields = ["id", "title", "author"]
            authorization = Authorization()

        def cached_obj_get(self, bundle, **kwargs):
            found = super().cached_obj_get(bundle, **kwargs)
            found.title = found.title.upper()
            return found

    class CountedAuthorResource(base):
        """A list whose data gets a key of its own: its details take the row-built plan."""

        class Meta:
            queryset = Author.objects.all()
            resource_name = "counted"
            fields = ["id", "name"]
            authorization = Authorization()

        def alter_list_data_to_serialize(self, request, data):
            data["meta"]["authors"] = len(data["objects"])
            return data

    api = Api(api_name=api_name)
    for resource in (HiddenAuthorResource, CachedBookResource, CountedAuthorResource):
        api.register(resource())
    return api


APIS = {name: build_api(name, base) for name, base in BASES.items()}
urlpatterns = [path("", include(api.urls)) for api in APIS.values()]
pytestmark = pytest.mark.urls(__name__)


@pytest.fixture
def books(db) -> list[Book]:
    ann = Author.objects.create(name="Ann")
    secret = Author.objects.create(name="Secret Sam")
    return [
        Book.objects.create(title=title, author=author)
        for title, author in [("aeon", ann), ("dune", secret), ("emma", ann)]
    ]


def answer(url: str) -> tuple[int, str, bytes]:
    response = Client().get(url)
    return response.status_code, response["Content-Type"], response.content


def urls(books: list[Book]) -> list[str]:
    ann, secret = books[0].author_id, books[1].author_id
    return [
        "author/",
        f"author/{ann}/",
        f"author/{secret}/",
        f"author/set/{ann};{secret}/",
        "book/",
        f"book/{books[1].pk}/",
        f"book/set/{books[0].pk};{books[1].pk}/",
        "counted/",
        f"counted/{ann}/",
    ]


def test_answers_are_modelresource_s(books) -> None:
    for url in urls(books):
        want = answer(f"/dh2/{url}")
        got = answer(f"/dh3/{url}")
        assert got == (want[0], want[1], want[2].replace(b"/dh2/", b"/dh3/")), url
    assert answer(f"/dh3/author/{books[1].author_id}/")[0] == 404  # the override ran
    assert b"DUNE" in answer(f"/dh3/book/{books[1].pk}/")[2]
    page = json.loads(answer("/dh3/book/")[2])
    assert [book["title"] for book in page["objects"]] == ["aeon", "dune", "emma"]


@pytest.mark.parametrize(("name", "hook"), [("author", "obj_get"), ("book", "cached_obj_get")])
def test_lists_take_a_plan_details_the_general_path(name, hook) -> None:
    resource = APIS["dh3"]._registry[name]
    paths = resource.served_by()
    assert not paths["list"].startswith("Tastypie's general path"), paths
    assert paths["detail"].startswith("Tastypie's general path"), paths
    assert hook in paths["detail"]


def test_a_list_only_hook_leaves_details_to_the_row_built_plan() -> None:
    resource = APIS["dh3"]._registry["counted"]
    assert resource.served_by() == {"list": "the bundle plan", "detail": "the row-built plan"}
