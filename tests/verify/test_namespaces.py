"""``djony_verify`` on APIs mounted under namespaces: a resource whose own ``reverse()``
misses the namespace (a plain ``Api``, nested namespaces, a ``NamespacedApi`` given
another namespace than its mount's) is compared at the URI its list URL has there, with a
note on its empty URIs; a ``NamespacedApi`` under its own namespace needs no note; a
resource none of whose URLs is Tastypie's list URL is not compared, and says why."""

from __future__ import annotations

import pytest
from django.urls import include, path, re_path
from tastypie.api import Api, NamespacedApi
from tastypie.constants import ALL
from tastypie.resources import ModelResource, NamespacedModelResource

from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify import discovery
from tests.testapp.models import Country, Tag
from tests.verify.helpers import verify

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.test_namespaces")]


class TagResource(DjonyResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "tag"
        filtering = {"name": ALL}


class CountryResource(NamespacedModelResource):
    class Meta:
        queryset = Country.objects.all()
        resource_name = "country"
        filtering = {"name": ALL}


class OwnCountryResource(CountryResource):
    class Meta(CountryResource.Meta):
        pass  # its own Meta: Api.register() writes api_name and the namespace into it


class RenamedTagResource(ModelResource):
    """Its list URL under a name of its own: no URL is Tastypie's ``api_dispatch_list``."""

    class Meta:
        queryset = Tag.objects.all()
        resource_name = "renamed"

    def base_urls(self):
        name = self._meta.resource_name
        return [re_path(rf"^(?P<resource_name>{name})/$", self.wrap_view("dispatch_list"),
                        name="renamed_list")]  # fmt: skip


nested = Api(api_name="nested")
nested.register(TagResource())
elsewhere = NamespacedApi(api_name="elsewhere", urlconf_namespace="elsewhere")
elsewhere.register(CountryResource())
own = NamespacedApi(api_name="own", urlconf_namespace="own")
own.register(OwnCountryResource())
renamed = Api(api_name="renamed")
renamed.register(RenamedTagResource())
inner = [path("", include((nested.urls, "inner"), namespace="inner"))]
urlpatterns = [
    path("outer/", include((inner, "outer"), namespace="outer")),
    path("mounted/", include((elsewhere.urls, "mounted"), namespace="mounted")),
    path("own/", include((own.urls, "own"), namespace="own")),
    path("renamed/", include((renamed.urls, "renamed"), namespace="renamed")),
]


@pytest.fixture
def rows():
    for name in ("alpha", "beta", "gamma", "delta"):
        Tag.objects.create(name=name)
    Country.objects.create(code="de", name="Germany")
    Country.objects.create(code="fr", name="France")


def test_discovery_finds_the_namespace_path_of_each_list_url():
    found = discovery.find_resources()
    namespaces = {type(r).__name__ + r._meta.api_name: found.namespaces.get(id(r))
                  for r in found.resources}  # fmt: skip
    assert namespaces == {
        "TagResourcenested": "outer:inner",
        "CountryResourceelsewhere": "mounted",
        "OwnCountryResourceown": "own",
        "RenamedTagResourcerenamed": None,
    }


def test_nested_namespaces_and_a_namespacedapi_under_another_namespace_are_compared(rows):
    run = verify("--resource", "/outer/", "--resource", "/mounted/")
    assert run.code == 0, run.out
    for uri in ("/outer/nested/tag/", "/mounted/elsewhere/country/"):
        figures = run.resource(uri)
        assert figures["different"] == 0 and figures["identical"] > 15, figures
    notes = [n for n in run.report["notes"] if n.startswith("namespaced:")]
    assert notes == [
        "namespaced: /outer/nested/tag/: TagResource reverses 'api_dispatch_list' without a "
        "namespace, but its API is mounted under the namespace 'outer:inner': its "
        "get_resource_uri() and every URI of it in the answers are '' on both sides "
        "(compared at the URI its list URL has there; a _build_reverse_url that reverses "
        "through it, as NamespacedModelResource's does with "
        "NamespacedApi(urlconf_namespace='outer:inner'), or a mount without a namespace "
        "would give the URIs)",
        "namespaced: /mounted/elsewhere/country/: CountryResource reverses "
        "'elsewhere:api_dispatch_list' (Meta.urlconf_namespace), but its API is mounted under "
        "the namespace 'mounted': its get_resource_uri() and every URI of it in the answers "
        "are '' on both sides (compared at the URI its list URL has there; a "
        "_build_reverse_url that reverses through it, as NamespacedModelResource's does with "
        "NamespacedApi(urlconf_namespace='mounted'), or a mount without a namespace would "
        "give the URIs)",
    ]


def test_a_namespacedapi_under_its_own_namespace_needs_no_note(rows):
    run = verify("--resource", "/own/")
    assert run.code == 0, run.out
    assert run.resource("/own/own/country/")["identical"] > 15
    assert run.report["notes"] == []


def test_a_resource_without_tastypie_s_list_url_is_not_compared_and_says_why(rows):
    run = verify()
    assert run.code == 0, run.out
    assert len(run.report["resources"]) == 3
    assert run.report["not_compared"] == [
        "RenamedTagResource: get_resource_uri() is '' and none of its URLs is named "
        "api_dispatch_list (a base_urls() of its own?): no list URI to send its requests to"
    ]
