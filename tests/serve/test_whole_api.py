"""A project's whole API switches: resources without a model never take the URLconf down.

Real Tastypie APIs register resources that have no model (a base other resources
inherit from, a resource kept for its ``prepend_urls`` endpoints), subclass model-less
bases, and mix plain ``Resource`` code into their model resources.  The same API is
built on ``ModelResource`` (``/wa2/``) and on ``DjonyResource`` (``/wa3/``): ``Api.urls``
builds, and every URL answers the same status, Content-Type and body on both.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client, override_settings
from django.urls import include, path, re_path
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource, Resource
from tastypie.utils import trailing_slash

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Country

BASES = {"wa2": ModelResource, "wa3": DjonyResource}

#: The requests the project's ``determine_format`` was asked about.
FORMATS_ASKED: list = []


class StampMixin:
    """Plain code mixed into a model resource, as projects share hooks."""

    def dehydrate(self, bundle):
        bundle.data["stamp"] = f"{type(bundle.obj).__name__}:{bundle.obj.pk}"
        return bundle


def build_api(api_name: str, base: type) -> Api:
    class ProjectBase(base):
        """An abstract base: what every resource of the project shares."""

        class Meta:
            abstract = True

        def determine_format(self, request):
            FORMATS_ASKED.append(request)
            return "application/json"

    class SearchResource(base):
        """No model; one custom endpoint, registered with the Api."""

        class Meta:
            object_class = None
            resource_name = "search"
            authorization = Authorization()

        def prepend_urls(self):
            return [
                re_path(
                    rf"^(?P<resource_name>{self._meta.resource_name}){trailing_slash}$",
                    self.wrap_view("search"),
                    name="api_search",
                )
            ]

        def search(self, request, **kwargs):
            self.method_check(request, allowed=["get"])
            term = request.GET.get("q", "")
            names = list(
                Author.objects.filter(name__icontains=term)
                .order_by("id")
                .values_list("name", flat=True)
            )
            return self.create_response(request, {"names": names, "type": type(self).__name__})

    class CountryResource(ProjectBase):
        class Meta:
            queryset = Country.objects.all()
            resource_name = "country"
            authorization = Authorization()

    class AuthorResource(StampMixin, ProjectBase):
        country = fields.ToOneField(CountryResource, "country", null=True)

        class Meta:
            queryset = Author.objects.order_by("id")
            resource_name = "author"
            fields = ["id", "name", "country"]
            authorization = Authorization()

    class SearchableAuthorResource(ProjectBase):
        """A custom endpoint beside Tastypie's URLs: its URIs stay Tastypie's own."""

        country = fields.ToOneField(CountryResource, "country", null=True)

        class Meta:
            queryset = Author.objects.order_by("id")
            resource_name = "searchable"
            fields = ["id", "name", "country"]
            authorization = Authorization()

        def prepend_urls(self):
            return [
                re_path(
                    rf"^(?P<resource_name>{self._meta.resource_name})/find{trailing_slash}$",
                    self.wrap_view("find"),
                    name="api_find_author",
                )
            ]

        def find(self, request, **kwargs):
            return self.get_list(request, **kwargs)

    class CountryByCodeResource(ProjectBase):
        """A detail URL of its own, by code: its URIs are the resource's to build."""

        class Meta:
            queryset = Country.objects.order_by("id")
            resource_name = "bycode"
            detail_uri_name = "code"
            authorization = Authorization()

        def prepend_urls(self):
            return [
                re_path(
                    rf"^(?P<resource_name>{self._meta.resource_name})/(?P<code>[a-z]+){trailing_slash}$",
                    self.wrap_view("dispatch_detail"),
                    name="api_dispatch_detail",
                )
            ]

    class PlainResource(Resource):
        """A plain ``Resource`` registered beside them."""

        class Meta:
            resource_name = "plain"

    api = Api(api_name=api_name)
    for resource in (
        SearchResource,
        CountryResource,
        AuthorResource,
        SearchableAuthorResource,
        CountryByCodeResource,
        PlainResource,
    ):
        api.register(resource())
    return api


urlpatterns = [path("", include(build_api(name, base).urls)) for name, base in BASES.items()]

REQUESTS = [
    "search/?q=a",
    "search/",
    "search/schema/",
    "country/",
    "country/{country}/",
    "author/",
    "author/{author}/",
    "author/schema/",
    "plain/schema/",
    "searchable/",
    "searchable/{author}/",
    "searchable/find/",
    "bycode/",
    "bycode/fr/",
    "",
]


@pytest.fixture
def seeded(db):
    """The rows the requests read; their keys, as the sequences of the backend gave them."""
    country = Country.objects.create(code="fr", name="France")
    ann = Author.objects.create(name="Ann", country=country)
    Author.objects.create(name="Bob")
    return {"country": country.pk, "author": ann.pk}


def answer(client: Client, api: str, url: str) -> dict:
    response = client.get(f"/{api}/{url}")
    body = response.content.decode().replace(f"/{api}/", "/API/")
    return {
        "status": response.status_code,
        "type": response.get("Content-Type"),
        "body": json.loads(body) if body.startswith("{") else body,
    }


@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.parametrize("url", REQUESTS)
def test_every_url_answers_as_on_modelresource(seeded, url):
    client = Client(raise_request_exception=False, SERVER_NAME="api.example")
    url = url.format(**seeded)
    want, got = answer(client, "wa2", url), answer(client, "wa3", url)
    assert got == want
    # Tastypie's own build_schema() needs a model or Resource fields: a 500 on both.
    assert want["status"] == (500 if url in ("search/schema/", "plain/schema/") else 200), want


@override_settings(ROOT_URLCONF=__name__)
def test_the_objects_hooks_see_are_the_models(seeded):
    client = Client()
    authors = answer(client, "wa3", "author/")["body"]["objects"]
    assert [a["stamp"] for a in authors] == [f"Author:{a['id']}" for a in authors]
    assert answer(client, "wa3", "search/?q=b")["body"] == {
        "names": ["Bob"],
        "type": "SearchResource",
    }


def test_a_model_less_resource_is_served_by_tastypie():
    resource = build_api("wa9", DjonyResource).canonical_resource_for("search")
    assert resource._meta.object_class is None
    assert isinstance(resource, DjonyResource)
    assert [p.name for p in resource.urls][0] == "api_search"


def test_custom_endpoints_keep_the_plans_a_detail_url_of_its_own_builds_uris_itself():
    from tastypie_djony.uris import uris_of

    api = build_api("wa8", DjonyResource)
    searchable = api.canonical_resource_for("searchable")
    by_code = api.canonical_resource_for("bycode")
    assert uris_of(searchable).from_key
    assert searchable.served_by() == {"list": "the row-built plan", "detail": "the row-built plan"}
    assert not uris_of(by_code).from_key


@override_settings(ROOT_URLCONF=__name__, DJONY_VERIFY_FAST_PATH=False)
@pytest.mark.parametrize("url", ["country/", "country/{country}/", "author/", "author/{author}/"])
def test_the_format_is_asked_once_per_request_as_on_modelresource(seeded, url):
    """The plans ask which format once (which plan serves, how it is written), as
    Tastypie's create_response asks it once."""
    asked = {}
    for api in BASES:
        FORMATS_ASKED.clear()
        response = Client().get(f"/{api}/{url.format(**seeded)}")
        assert response.status_code == 200
        asked[api] = len(FORMATS_ASKED)
    assert asked["wa3"] == asked["wa2"] == 1
