"""The format a request asks for (``format``, ``callback``, ``Accept``), as on ModelResource.

The same resources on ModelResource (``/fm2/``) and DjonyResource (``/fm3/``) answer each
request with the same status, type and bytes, whatever the client's ``Accept`` header:
a browser's, an HTTP library's, one naming no format the serializer writes, one
``mimeparse`` refuses (Tastypie's 400), the ``format`` parameter over the header, JSONP
for a ``callback``.  DjonyResource matches a header once (``tastypie_djony.formats``);
a resource with a ``determine_format`` of its own is asked as Tastypie asks it.
"""

from __future__ import annotations

import mimeparse
import pytest
from django.test import Client
from django.urls import include, path
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource
from tastypie.serializers import Serializer

from tastypie_djony import formats
from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author

BASES = {"fm2": ModelResource, "fm3": DjonyResource}


class ShortSerializer(Serializer):
    """JSON and XML only."""

    formats = ["json", "xml"]


def meta(resource_name: str, **options) -> type:
    """A ``Meta`` of the authors' resources."""
    fields = ["id", "name"]
    queryset = Author.objects.order_by("id")
    return type(
        "Meta",
        (),
        {
            "queryset": queryset,
            "resource_name": resource_name,
            "fields": fields,
            "authorization": Authorization(),
            **options,
        },
    )


def build_api(api_name: str, base: type) -> Api:
    class AuthorResource(base):
        Meta = meta("author")

    class ShortAuthorResource(base):
        Meta = meta("short", serializer=ShortSerializer())

    class XmlFirstAuthorResource(base):
        """Answers XML unless the ``format`` parameter asks otherwise."""

        Meta = meta("xmlfirst")

        def determine_format(self, request):
            return self._meta.serializer.get_mime_for_format(request.GET.get("format", "xml"))

    api = Api(api_name=api_name)
    for resource in (AuthorResource, ShortAuthorResource, XmlFirstAuthorResource):
        api.register(resource())
    return api


APIS = {name: build_api(name, base) for name, base in BASES.items()}
urlpatterns = [path("", include(api.urls)) for api in APIS.values()]
pytestmark = pytest.mark.urls(__name__)

ACCEPTS = [
    "*/*",
    "application/json, text/plain, */*",  # axios, fetch()
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8",  # a browser
    "application/xml",
    "text/yaml; q=0.5, application/json",
    "image/png",  # nothing the serializer writes: the default
    "application/json;q=x",  # a quality mimeparse reads as 1
    "json",  # no type/subtype: mimeparse refuses it, Tastypie answers 400
]


@pytest.fixture
def authors(db) -> list[Author]:
    return [Author.objects.create(name=name) for name in ("Ann", "Bob")]


def answer(url: str, accept: str) -> tuple[int, str, bytes]:
    response = Client().get(url, HTTP_ACCEPT=accept)
    return response.status_code, response["Content-Type"], response.content


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("resource", ["author", "short", "xmlfirst"])
@pytest.mark.parametrize("page", ["", "{pk}/", "?format=xml", "{pk}/?callback=f"])
def test_answers_are_modelresource_s(authors, resource, page, accept) -> None:
    url = f"{resource}/{page.format(pk=authors[1].pk)}"
    for _ in range(2):  # the match asked, then kept
        expected = answer(f"/fm2/{url}", accept)
        status, kind, body = answer(f"/fm3/{url}", accept)
        assert (status, kind, body.replace(b"/fm3/", b"/fm2/")) == expected


def test_a_refused_header_is_tastypie_s_400_every_time(authors) -> None:
    for _ in range(2):
        status, _, body = answer("/fm3/author/", "json")
        assert status == 400
        assert b"Invalid Accept header" in body
    assert not any(accept == "json" for _, accept in formats._BEST_MATCH)


def test_a_match_is_kept_per_header_and_formats(authors) -> None:
    header = "text/yaml, application/json;q=0.5"
    for resource in ("author", "short"):
        assert answer(f"/fm3/{resource}/", header)[0] == 200
    full = tuple(APIS["fm3"]._registry["author"]._meta.serializer.supported_formats_reversed)
    short = tuple(APIS["fm3"]._registry["short"]._meta.serializer.supported_formats_reversed)
    assert formats._BEST_MATCH[(full, header)] == "text/yaml"
    assert formats._BEST_MATCH[(short, header)] == "application/json"
    assert mimeparse.best_match(list(short), header) == "application/json"


def test_a_determine_format_of_the_resource_s_own_is_asked(authors) -> None:
    status, kind, body = answer("/fm3/xmlfirst/", "application/json")
    assert (status, kind) == (200, "application/xml; charset=utf-8")
    assert body.startswith(b"<?xml")
