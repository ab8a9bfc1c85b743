"""``schema/`` of resources with related fields: the links to related schemas are
ModelResource's under every URLconf, script prefix and namespace, and a related resource
of the project's own construction is built as Tastypie builds it
(``tastypie_djony.schema.build_schema``).

The same API is mounted on ``ModelResource`` (``/sl2/``) and on ``DjonyResource``
(``/sl3/``), under a namespace (``/ns2/``, ``/ns3/``: ``NamespacedModelResource``'s
``_build_reverse_url`` and one of the project's own) and in a second URLconf that mounts
them elsewhere; each ``schema/`` answers the same bytes on both, request after request.
"""

from __future__ import annotations

import json
import re
import sys
import types

import pytest
from django.test import Client, override_settings
from django.urls import include, path, set_script_prefix
from tastypie import fields
from tastypie.api import Api, NamespacedApi
from tastypie.resources import ModelResource, NamespacedModelResource

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Book, Tag

#: The related resources of the project's own construction that were built, by base.
BUILT: dict[str, int] = {}
#: How many URIs the ``_build_reverse_url`` of the project's own built, by API.
REVERSED: dict[str, int] = {}


class Namespaced:
    """``NamespacedModelResource``'s ``_build_reverse_url`` mixed into either base."""

    _build_reverse_url = NamespacedModelResource._build_reverse_url


class OwnReverse:
    """A ``_build_reverse_url`` of the project's own: it numbers the URIs it builds."""

    def _build_reverse_url(self, name, args=None, kwargs=None):
        built = REVERSED[self._meta.api_name] = REVERSED.get(self._meta.api_name, 0) + 1
        return super()._build_reverse_url(name, args=args, kwargs=kwargs) + f"?n={built}"


def build_api(api_name: str, base: type, namespace: str | None = None) -> Api:
    mixins = (Namespaced,) if namespace else ()

    class Common:
        urlconf_namespace = namespace

    class TagResource(*mixins, base):
        class Meta(Common):
            queryset = Tag.objects.all()
            resource_name = "tag"

    class AuthorResource(*mixins, base):
        class Meta(Common):
            queryset = Author.objects.all()
            resource_name = "author"

    class PublisherLikeResource(*mixins, base):
        """A related resource that counts its constructions (a project's own ``__init__``)."""

        class Meta(Common):
            queryset = Author.objects.all()
            resource_name = "editor"

        def __init__(self, *args, **kwargs):
            BUILT[api_name] = BUILT.get(api_name, 0) + 1
            super().__init__(*args, **kwargs)

    class BookResource(*mixins, base):
        author = fields.ForeignKey(AuthorResource, "author")
        editor = fields.ForeignKey(PublisherLikeResource, "editor", null=True)
        tags = fields.ToManyField(TagResource, "tags", null=True)
        unknown = fields.ForeignKey("tests.serve.test_schema_links.Unregistered", "author")

        class Meta(Common):
            queryset = Book.objects.all()
            resource_name = "book"

    class OwnReverseBookResource(OwnReverse, BookResource):
        class Meta(BookResource.Meta):
            resource_name = "ownbook"

    api = (
        NamespacedApi(api_name=api_name, urlconf_namespace=namespace)
        if namespace
        else Api(api_name=api_name)
    )
    for resource in (TagResource, AuthorResource, PublisherLikeResource, BookResource):
        api.register(resource())
    api.register(OwnReverseBookResource())
    return api


class Unregistered(DjonyResource):
    """A related resource no API registers: its schema link is ``""`` on both."""

    class Meta:
        queryset = Author.objects.all()
        resource_name = "unregistered"


BASES = {"sl2": ModelResource, "sl3": DjonyResource}
NAMESPACED = {"ns2": ModelResource, "ns3": DjonyResource}

urlpatterns = [path("", include(build_api(name, base).urls)) for name, base in BASES.items()]
urlpatterns += [
    path("", include((build_api(name, base, namespace=name).urls, name), namespace=name))
    for name, base in NAMESPACED.items()
]

#: A second URLconf mounting the same APIs under another path.
elsewhere = types.ModuleType("tests.serve.test_schema_links_elsewhere")
elsewhere.urlpatterns = [path("mounted/", include(__name__))]
sys.modules[elsewhere.__name__] = elsewhere

SCHEMAS = ["book/schema/", "ownbook/schema/", "author/schema/", "tag/schema/"]


#: ``Book.published``'s default is ``timezone.now``: the time of each request.
NOW = re.compile(rb'"default": "\d{4}-\d\d-\d\dT[\d:.]+"')


def schema(client: Client, prefix: str, url: str) -> tuple:
    response = client.get(f"{prefix}{url}", {"format": "json"})
    body = NOW.sub(b'"default": "<now>"', response.content)
    return response.status_code, response["Content-Type"], body


def same_answers(mount: str = "/") -> None:
    client = Client()
    REVERSED.clear()
    for reference, switched in (("sl2", "sl3"), ("ns2", "ns3")):
        for url in SCHEMAS:
            for _ in range(2):  # the second answer comes from what the first one reversed
                want = schema(client, f"{mount}{reference}/", url)
                got = schema(client, f"{mount}{switched}/", url)
                assert want[0] == 200, want
                assert got[:2] == want[:2]
                assert got[2] == want[2].replace(
                    f"/{reference}/".encode(), f"/{switched}/".encode()
                ), url


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_related_schema_links_are_modelresource_s():
    same_answers()
    links = json.loads(Client().get("/sl3/book/schema/").content)["fields"]
    assert links["author"]["related_schema"] == "/sl3/author/schema/"
    assert links["tags"]["related_schema"] == "/sl3/tag/schema/"
    assert links["editor"]["related_schema"] == "/sl3/editor/schema/"
    assert links["unknown"]["related_schema"] == ""
    before = REVERSED.get("sl3", 0)
    own = json.loads(Client().get("/sl3/ownbook/schema/").content)["fields"]
    assert own["author"]["related_schema"] == f"/sl3/author/schema/?n={before + 1}"


@pytest.mark.django_db
def test_each_urlconf_and_script_prefix_gets_its_own_links():
    with override_settings(ROOT_URLCONF=__name__):
        same_answers()
    with override_settings(ROOT_URLCONF=elsewhere.__name__):
        same_answers("/mounted/")
        links = json.loads(Client().get("/mounted/sl3/book/schema/").content)["fields"]
        assert links["author"]["related_schema"] == "/mounted/sl3/author/schema/"
    with override_settings(ROOT_URLCONF=__name__):
        set_script_prefix("/site/")  # as a WSGI server mounting the site under /site does
        try:
            same_answers()
            links = json.loads(Client().get("/sl3/book/schema/").content)["fields"]
        finally:
            set_script_prefix("/")
        assert links["author"]["related_schema"] == "/site/sl3/author/schema/"
        links = json.loads(Client().get("/sl3/book/schema/").content)["fields"]
        assert links["author"]["related_schema"] == "/sl3/author/schema/"


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_a_related_resource_of_the_project_s_own_is_built_as_on_modelresource():
    client = Client()
    before = dict(BUILT)
    for base in ("sl2", "sl3"):
        client.get(f"/{base}/book/schema/")
    assert BUILT["sl3"] - before.get("sl3", 0) == BUILT["sl2"] - before.get("sl2", 0) == 1
