"""A resource with a serializer of its own class answers as on ModelResource, served by a plan.

Projects subclass Tastypie's ``Serializer`` to change how JSON is written (compact, sorted
keys), how dates are formatted, or what a value becomes.  The same resources on
ModelResource (``/os2/``) and DjonyResource (``/os3/``) give the same status, type and
bytes in every format, and the bundle plan serves the JSON (its values are the general
path's; the resource's serializer writes them).
"""

from __future__ import annotations

import datetime
import json

import pytest
from django.test import Client
from django.urls import include, path
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource
from tastypie.serializers import Serializer

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Book

BASES = {"os2": ModelResource, "os3": DjonyResource}


class CompactSerializer(Serializer):
    """JSON without spaces, keys sorted."""

    def to_json(self, data, options=None):
        options = options or {}
        return json.dumps(self.to_simple(data, options), sort_keys=True, separators=(",", ":"))


class DaySerializer(Serializer):
    """Dates and times as days since 2000."""

    def format_datetime(self, data):
        return f"day {(data.date() - datetime.date(2000, 1, 1)).days}"


class LoudSerializer(Serializer):
    """Every string upper-cased."""

    def to_simple(self, data, options):
        simple = super().to_simple(data, options)
        return simple.upper() if isinstance(simple, str) else simple


SERIALIZERS = {"compact": CompactSerializer, "days": DaySerializer, "loud": LoudSerializer}


def build_api(api_name: str, base: type) -> Api:
    class AuthorResource(base):
        class Meta:
            queryset = Author.objects.all()
            resource_name = "author"
            fields = ["id", "name"]
            authorization = Authorization()
            serializer = CompactSerializer()

    api = Api(api_name=api_name)
    api.register(AuthorResource())
    for name, serializer in SERIALIZERS.items():

        class BookResource(base):
            author = fields.ToOneField(AuthorResource, "author", full=True)

            class Meta:
                queryset = Book.objects.all()
                resource_name = f"book-{name}"
                fields = ["id", "title", "price", "published", "author"]
                authorization = Authorization()

        BookResource._meta.serializer = serializer()
        api.register(BookResource())
    return api


APIS = {name: build_api(name, base) for name, base in BASES.items()}
urlpatterns = [path("", include(api.urls)) for api in APIS.values()]
pytestmark = pytest.mark.urls(__name__)


@pytest.fixture
def books(db) -> list[Book]:
    ann = Author.objects.create(name="Ann")
    bob = Author.objects.create(name="Bob")
    published = datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.timezone.utc)
    return [
        Book.objects.create(title=title, author=author, published=published, price=price)
        for title, author, price in [("Aeon", ann, "4.50"), ("Dune", bob, "9.99")]
    ]


def answer(url: str, accept: str) -> tuple[int, str, bytes]:
    response = Client().get(url, HTTP_ACCEPT=accept)
    return response.status_code, response["Content-Type"], response.content


@pytest.mark.parametrize("accept", ["application/json", "application/xml"])
@pytest.mark.parametrize("name", SERIALIZERS)
@pytest.mark.parametrize("page", ["", "{pk}/"])
def test_answers_are_modelresource_s(books, name, page, accept) -> None:
    url = f"book-{name}/{page.format(pk=books[1].pk)}"
    status, kind, body = answer(f"/os2/{url}", accept)
    assert status == 200
    body = body.replace(b"/os2/", b"/os3/").replace(b"/OS2/", b"/OS3/")  # loud: upper-cased
    assert answer(f"/os3/{url}", accept) == (status, kind, body)


def test_the_serializer_s_own_json_is_written(books) -> None:
    _, _, body = answer(f"/os3/book-compact/{books[0].pk}/", "application/json")
    assert body.startswith(b'{"author":{"id":')
    _, _, body = answer(f"/os3/book-loud/{books[0].pk}/", "application/json")
    assert b'"AEON"' in body
    _, _, body = answer(f"/os3/book-days/{books[0].pk}/", "application/json")
    assert b'"day 8887"' in body


@pytest.mark.parametrize("name", SERIALIZERS)
def test_the_bundle_plan_serves_them(name) -> None:
    resource = APIS["os3"]._registry[f"book-{name}"]
    assert resource.served_by() == {"list": "the bundle plan", "detail": "the bundle plan"}
    assert resource.declined_plans()["row-built list"] == "a serializer of its own class"
