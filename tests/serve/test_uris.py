""":mod:`tastypie_djony.uris`: a resource's detail URIs, built from the key alone where
Tastypie's URI methods are the resource's, and always the URI ``reverse()`` gives."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.urls import re_path, set_script_prefix
from django.utils import translation
from tastypie.resources import Resource

from tastypie_djony.resources import DjonyResource
from tastypie_djony.stock import DETAIL_URL, URI_METHODS, URL_ADDING
from tastypie_djony.uris import DetailUris, uris_of
from tests.serve.sources.helpers import detail_uri
from tests.serve.unit_api import (
    BookResource,
    CountryByCodeResource,
    NoColumnCountryResource,
    PublisherResource,
    TagByNameResource,
    resource,
)
from tests.testapp.models import Author, Book, Country, Loan, Publisher, Tag

pytestmark = pytest.mark.urls("tests.serve.unit_api")


def overriding(name: str) -> type:
    """A subclass of ``BookResource`` whose URI method ``name`` is its own (the same code)."""

    def method(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(BookResource, name)(self, *args, **kwargs)

    return type(f"Own{name.strip('_').title()}BookResource", (BookResource,), {name: method})


#: One resource class per URI method it overrides (built once: resource classes register).
OVERRIDING = {name: overriding(name) for name in URI_METHODS}


def adding(name: str, url_name: str) -> type:
    """A subclass of ``BookResource`` whose ``name`` (``prepend_urls``, ``override_urls``)
    adds one pattern named ``url_name``."""

    def method(self) -> list:
        pattern = rf"^(?P<resource_name>{self._meta.resource_name})/by-title/(?P<title>[^/]+)/$"
        return [re_path(pattern, self.wrap_view("dispatch_detail"), name=url_name)]

    suffix = "Detail" if url_name == DETAIL_URL else "Endpoint"
    return type(
        f"Adding{name.strip('_').title()}{suffix}BookResource", (BookResource,), {name: method}
    )


#: Resources adding an endpoint of another name, and a pattern of the detail URL's name.
ADDING_ENDPOINTS = {name: adding(name, "api_book_by_title") for name in URL_ADDING}
ADDING_A_DETAIL_URL = {name: adding(name, DETAIL_URL) for name in URL_ADDING}


class ByAuthorResource(BookResource):
    """``detail_uri_name`` names a relation."""

    class Meta(BookResource.Meta):
        resource_name = "book-by-author"
        detail_uri_name = "author"


class ByAuthorIdResource(BookResource):
    """``detail_uri_name`` names the relation's column."""

    class Meta(BookResource.Meta):
        resource_name = "book-by-author-id"
        detail_uri_name = "author_id"


class UnmountedBookResource(BookResource):
    """A resource no URLconf mounts."""

    class Meta(BookResource.Meta):
        resource_name = "unmounted-book"


class Spy:
    """Counts the values a :class:`DetailUris` reverses (its ``reverse``, spied on)."""

    def __init__(self, uris: DetailUris) -> None:
        self.values: list = []
        original = uris.reverse

        def spied(value: Any) -> str:
            self.values.append(value)
            return original(value)

        uris.reverse = spied


def test_uris_of_is_one_per_resource_instance() -> None:
    """Each resource instance has one ``DetailUris``; another instance has its own."""
    book = resource(BookResource)
    assert uris_of(book) is uris_of(book)
    assert uris_of(book).resource is book
    assert uris_of(resource(BookResource)) is not uris_of(book)


def test_uris_are_from_the_key_with_tastypie_s_uri_methods() -> None:
    """A resource with Tastypie's URI methods builds its URIs from the key alone."""
    assert uris_of(resource(BookResource)).from_key


@pytest.mark.parametrize("name", [name for name in URI_METHODS if name not in URL_ADDING])
def test_a_uri_method_of_the_resource_s_own_builds_from_the_object(name) -> None:
    """Overriding any URI method that builds URIs (even with the same code) keeps the URI
    the resource's method builds from the object: not from the key."""
    assert not uris_of(resource(OVERRIDING[name])).from_key


@pytest.mark.parametrize("name", URL_ADDING)
def test_added_endpoints_keep_the_uris_from_the_key(name) -> None:
    """A ``prepend_urls``/``override_urls`` of the resource's own whose patterns add
    endpoints of other names than the detail URL's leaves the URIs Tastypie's: built from
    the key."""
    assert uris_of(resource(OVERRIDING[name])).from_key
    assert uris_of(resource(ADDING_ENDPOINTS[name])).from_key


@pytest.mark.parametrize("name", URL_ADDING)
def test_an_added_detail_url_builds_from_the_object(name) -> None:
    """A pattern of the detail URL's name (a slug detail) changes how a detail URI is
    built: the resource's methods build it from the object."""
    assert not uris_of(resource(ADDING_A_DETAIL_URL[name])).from_key


@pytest.mark.parametrize(
    "resource_class, model, key_field",
    [
        (BookResource, None, "id"),
        (BookResource, Publisher, "uid"),
        (PublisherResource, None, "uid"),
        (CountryByCodeResource, None, "code"),
        (CountryByCodeResource, Country, "code"),
        (CountryByCodeResource, Loan, None),
        (TagByNameResource, Tag, "name"),
        (NoColumnCountryResource, None, None),
        (ByAuthorResource, None, None),
        (ByAuthorIdResource, None, None),
        (ByAuthorIdResource, Author, None),
    ],
    ids=[
        "pk",
        "pk-of-another-model",
        "uuid-pk",
        "unique-column",
        "unique-column-of-a-model",
        "no-such-field",
        "name",
        "reverse-relation",
        "relation",
        "relation-column",
        "relation-column-no-field",
    ],
)
def test_key_field_is_the_concrete_field_holding_the_uri_s_key(
    resource_class, model, key_field
) -> None:
    """``key_field`` names the concrete, non-relation field of the model (the resource's own,
    or the one given) that ``detail_uri_name`` names; ``pk`` is the model's primary key;
    anything else (no field, a relation or its column) is ``None``."""
    assert uris_of(resource(resource_class)).key_field(model) == key_field


@pytest.mark.parametrize(
    "resource_class, resource_name, key, values",
    [
        (BookResource, "book", "pk", [7, 0, 123456789012]),
        (PublisherResource, "publisher", "pk", [uuid.UUID("11111111-1111-4111-8111-111111111111")]),
        (
            CountryByCodeResource,
            "country-by-code",
            "code",
            ["fr", "a-b_C9", "a b", "ü", "a/b", "x.y", "50%", "?q"],
        ),
    ],
    ids=["integers", "uuid", "strings"],
)
def test_the_builder_gives_what_reverse_gives(resource_class, resource_name, key, values) -> None:
    """For every key the built URI is Django's ``reverse()`` of the detail URL, and what
    Tastypie's own ``get_resource_uri`` gives for ``reverse()`` (``DetailUris.reverse``)."""
    uris = uris_of(resource(resource_class))
    build = uris.builder()
    for value in values:
        assert build(value) == detail_uri(resource_name, **{key: value}) == uris.reverse(value)


def test_reverse_is_tastypie_s_get_resource_uri() -> None:
    """``DetailUris.reverse`` is Tastypie's ``get_resource_uri`` of an object with that key."""
    book = resource(BookResource)
    assert uris_of(book).reverse(7) == Resource.get_resource_uri(book, Book(pk=7))


def test_plain_keys_take_the_template_others_go_through_reverse() -> None:
    """The builder reverses once, with a sentinel key, and puts integers, UUIDs and plain
    strings in its place; a string ``reverse()`` would quote goes through ``reverse()``."""
    uris = uris_of(resource(CountryByCodeResource))
    spy = Spy(uris)
    build = uris.builder()
    assert len(spy.values) == 1  # the sentinel
    for plain in ("fr", "a-b_C9", 7, uuid.uuid4()):
        build(plain)
    assert len(spy.values) == 1
    assert build("a b") == detail_uri("country-by-code", code="a b")
    assert spy.values[1:] == ["a b"]


def test_the_template_is_made_once_per_script_prefix_and_language() -> None:
    """A builder of the same script prefix and language reuses the template; another script
    prefix (a site mounted elsewhere) or language reverses again, and its URIs carry it."""
    uris = uris_of(resource(BookResource))
    spy = Spy(uris)
    assert uris.builder()(7) == uris.builder()(7) == detail_uri("book", pk=7)
    assert len(spy.values) == 1
    set_script_prefix("/mounted/")
    try:
        mounted = uris.builder()(7)
        assert mounted == detail_uri("book", pk=7)
        assert mounted.startswith("/mounted/")
    finally:
        set_script_prefix("/")
    assert len(spy.values) == 2
    other = "de" if translation.get_language() != "de" else "fr"
    with translation.override(other):
        uris.builder()
    assert len(spy.values) == 3
    uris.builder()
    assert len(spy.values) == 3


def test_a_resource_reverse_cannot_place_falls_back_to_reverse() -> None:
    """Where the sentinel URI cannot be reversed (a resource the URLconf does not mount), the
    builder is ``reverse`` itself, which answers what Tastypie does: ``""``."""
    unmounted = resource(UnmountedBookResource)
    uris = uris_of(unmounted)
    build = uris.builder()
    assert build == uris.reverse
    assert build(7) == "" == Resource.get_resource_uri(unmounted, Book(pk=7))


def test_the_list_uri_is_tastypie_s_reversed_once_per_script_prefix(monkeypatch) -> None:
    """``get_resource_uri()`` (a page's ``meta`` links start from it) is Tastypie's own,
    reversed once per script prefix (and what else ``reverse()`` depends on); a resource
    whose URI methods are its own, and another URL name, reverse on every call."""
    import tastypie.resources

    reversed_names = []
    original = tastypie.resources.reverse

    def counted(name, *args, **kwargs):
        reversed_names.append(name)
        return original(name, *args, **kwargs)

    monkeypatch.setattr(tastypie.resources, "reverse", counted)
    book = resource(BookResource)
    expected = Resource.get_resource_uri(book)
    reversed_names.clear()
    assert book.get_resource_uri() == book.get_resource_uri() == expected
    assert reversed_names == ["api_dispatch_list"]
    set_script_prefix("/mounted/")
    try:
        assert book.get_resource_uri() == Resource.get_resource_uri(book)
        assert book.get_resource_uri().startswith("/mounted/")
    finally:
        set_script_prefix("/")
    assert book.get_resource_uri(url_name="api_get_schema") == Resource.get_resource_uri(
        book, url_name="api_get_schema"
    )
    unmounted = resource(UnmountedBookResource)
    assert unmounted.get_resource_uri() == "" == Resource.get_resource_uri(unmounted)
    own = resource(OVERRIDING["_build_reverse_url"])
    reversed_names.clear()
    assert own.get_resource_uri() == own.get_resource_uri() == expected
    assert len(reversed_names) == 2


def test_a_page_s_builders_read_what_reverse_depends_on_once(monkeypatch) -> None:
    """A plan's page makes one builder per resource its URIs are of, all at once (nothing
    runs between them that could change the script prefix, the URLconf or the language):
    those are read once for the page, and each builder gives what it gives reading them
    itself."""
    import tastypie_djony.serve.plans as plans_module
    import tastypie_djony.uris as uris_module

    reads = []
    original = uris_module.reverse_environment

    def counted() -> tuple:
        reads.append(1)
        return original()

    monkeypatch.setattr(uris_module, "reverse_environment", counted)
    monkeypatch.setattr(plans_module, "reverse_environment", counted)
    plan = plans_module.BundlePlan(resource(BookResource), DjonyResource)
    assert len(plan.uris) >= 3  # the book's related resources: authors, publishers, tags ...
    page = plan.page([])
    assert len(reads) == 1
    reads.clear()
    for uris, build in page.builders.items():
        assert build(7) == uris.builder()(7)
    assert len(reads) == len(plan.uris)
    set_script_prefix("/mounted/")  # the next page's read is its own
    try:
        mounted = plan.page([])
    finally:
        set_script_prefix("/")
    assert all(build(7).startswith("/mounted/") for build in mounted.builders.values())
