"""The sources of a column of the resource's own row (:mod:`tastypie_djony.sources.scalar`):
scalars with Tastypie's null/default rule and conversion, files as their storage's URL, and
``resource_uri`` from the key column, each with the reason it declines a field."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone
from tastypie import fields
from tastypie.bundle import Bundle
from tastypie.exceptions import ApiFieldError

from tastypie_djony.declines import Fallback
from tastypie_djony.sources import source_for
from tastypie_djony.sources.scalar import FileSource, ResourceUriSource, ScalarSource
from tastypie_djony.uris import uris_of
from tests.serve.sources.helpers import bind, detail_uri, page_for, plan_of, source_of
from tests.serve.unit_api import (
    AllTypesResource,
    AuthorResource,
    BookResource,
    CountryByCodeResource,
    NoColumnCountryResource,
    OwnUrisCountryResource,
)
from tests.testapp.models import AllTypes, Book

pytestmark = pytest.mark.urls("tests.serve.unit_api")

MOMENT = datetime.datetime(2024, 2, 29, 23, 30, 15, 250000, tzinfo=datetime.timezone.utc)


# --- ScalarSource -----------------------------------------------------------------
@pytest.mark.parametrize(
    "name, column", [("heading", "title"), ("length", "pages"), ("issued", "published")]
)
def test_a_scalar_reads_its_attribute_s_column(name, column) -> None:
    """A scalar field's source reads the one column its attribute names."""
    source = source_of(plan_of(BookResource), name)
    assert type(source) is ScalarSource
    assert source.columns() == [column]


@pytest.mark.parametrize(
    "name, raw",
    [
        ("heading", "Dune"),
        ("heading", 42),
        ("length", 412),
        ("rated", 4.5),
        ("issued", MOMENT),
    ],
)
def test_a_scalar_value_is_the_field_s_conversion_of_the_column(name, raw) -> None:
    """On the bundle plan a scalar's value is what Tastypie's ``convert`` makes of the row's
    value (what a hook finds in ``bundle.data``)."""
    plan = plan_of(BookResource)
    source = source_of(plan, name)
    bind(source)
    assert source.value((raw,), page_for(source, [])) == plan.resource.fields[name].convert(raw)


@pytest.mark.parametrize("name, raw", [("issued", MOMENT), ("rated", 4.5), ("heading", "Dune")])
def test_a_row_built_scalar_value_is_what_the_serializer_makes_of_it(name, raw) -> None:
    """On the row-built plan (``simple``) the value is the serializer's ``to_simple`` of the
    field's conversion: what the response body holds."""
    plan = plan_of(BookResource, simple=True)
    source = source_of(plan, name)
    bind(source)
    field = plan.resource.fields[name]
    expected = plan.resource._meta.serializer.to_simple(field.convert(raw), None)
    assert source.value((raw,), page_for(source, [])) == expected


def test_decimal_values_keep_their_precision() -> None:
    """A decimal column's value is Tastypie's ``DecimalField`` conversion: the same
    ``Decimal``, every digit kept."""
    plan = plan_of(AllTypesResource)
    source = source_of(plan, "amount")
    bind(source)
    value = source.value((Decimal("12345678.1234"),), page_for(source, []))
    assert value == Decimal("12345678.1234") and str(value) == "12345678.1234"


@pytest.mark.parametrize("name, attribute", [("rated", "rating"), ("length", "pages")])
def test_a_missing_value_follows_tastypie_s_null_then_default_rule(name, attribute) -> None:
    """A NULL column gives what Tastypie's ``dehydrate`` gives for a ``None`` attribute: ``None``
    for a ``null`` field, else its default."""
    plan = plan_of(BookResource)
    source = source_of(plan, name)
    bind(source)
    tastypies = plan.resource.fields[name].dehydrate(Bundle(obj=Book(**{attribute: None})))
    assert source.value((None,), page_for(source, [])) == tastypies
    assert tastypies == (None if name == "rated" else 100)


def test_a_callable_default_is_called_for_each_missing_value() -> None:
    """A callable default (``timezone.now``) is called when the value is missing, each time."""
    source = source_of(plan_of(BookResource), "issued")
    bind(source)
    page = page_for(source, [])
    before = timezone.now()
    first = source.value((None,), page)
    second = source.value((None,), page)
    assert before <= first <= second <= timezone.now()


def test_a_missing_value_without_null_or_default_sends_the_row_to_the_general_path() -> None:
    """Where Tastypie's ``dehydrate`` raises ``ApiFieldError`` (no ``null``, no default), the
    source raises ``Fallback``, so that Tastypie's own path raises its error."""
    plan = plan_of(BookResource)
    source = source_of(plan, "heading")
    bind(source)
    with pytest.raises(ApiFieldError):
        plan.resource.fields["heading"].dehydrate(Bundle(obj=Book(title=None)))
    with pytest.raises(Fallback):
        source.value((None,), page_for(source, []))


@pytest.mark.parametrize(
    "resource_class, field, reason",
    [
        (BookResource, fields.IntegerField(attribute="author_id"), "x reads a relation"),
        (AuthorResource, fields.CharField(attribute="books"), "x reads a relation"),
        (
            BookResource,
            fields.CharField(attribute="author__name"),
            "attribute 'author__name' follows a relation",
        ),
        (
            BookResource,
            fields.CharField(attribute="no_such_column"),
            "attribute 'no_such_column' is not a model field",
        ),
        (
            BookResource,
            fields.CharField(default="d"),
            "no attribute (the value is its default or a hook's)",
        ),
        (
            BookResource,
            fields.CharField(attribute=lambda bundle: "x"),
            "a callable attribute (only an object can give its value)",
        ),
        (
            AllTypesResource,
            fields.CharField(attribute="file"),
            "x: AllTypes.file is read through FileDescriptor",
        ),
    ],
    ids=[
        "foreign-key-column",
        "reverse-relation",
        "path",
        "no-field",
        "no-attribute",
        "callable",
        "file",
    ],
)
def test_a_scalar_the_row_cannot_give_is_declined_with_the_reason(
    resource_class, field, reason
) -> None:
    """A scalar whose attribute is no plain column of the model (a relation, a path, a name no
    field has, none, a column read through a descriptor of its own) declines, saying why."""
    assert ScalarSource(plan_of(resource_class), "x", field).declined == reason


# --- FileSource -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["", None, "uploads/report.txt", "uploads/ü ber.pdf"])
def test_a_file_is_its_storage_s_url_as_tastypie_shows_it(name) -> None:
    """A Tastypie ``FileField`` over a model file field shows the stored name's URL, and
    ``None`` for no file: what Tastypie's ``dehydrate`` shows for the instance."""
    plan = plan_of(AllTypesResource)
    source = source_of(plan, "file")
    assert type(source) is FileSource and source.columns() == ["file"]
    bind(source)
    tastypies = plan.resource.fields["file"].dehydrate(Bundle(obj=AllTypes(file=name)))
    assert source.value((name,), page_for(source, [])) == tastypies
    if name:
        assert tastypies == AllTypes(file=name).file.url


def test_a_file_field_over_another_column_is_declined() -> None:
    """A Tastypie ``FileField`` over a column that is no file field declines, naming the
    column's class."""
    source = FileSource(plan_of(AllTypesResource), "not_a_file", fields.FileField(attribute="char"))
    assert source.declined == "not_a_file: a FileField over CharField"


# --- ResourceUriSource ------------------------------------------------------------
def test_resource_uri_is_the_detail_uri_of_the_row_s_key() -> None:
    """``resource_uri`` reads the primary key and is Django's ``reverse()`` of the resource's
    detail URL for it."""
    plan = plan_of(BookResource)
    source = source_of(plan, "resource_uri")
    assert source.columns() == ["pk"]
    assert source.uris() == [uris_of(plan.resource)]
    bind(source)
    page = page_for(source, [])
    assert source.value((7,), page) == detail_uri("book", pk=7)


def test_resource_uri_reads_the_column_detail_uri_name_names() -> None:
    """With ``detail_uri_name = "code"`` the URI's key is the ``code`` column."""
    source = source_of(plan_of(CountryByCodeResource), "resource_uri")
    assert source.columns() == ["code"]
    bind(source)
    assert source.value(("fr",), page_for(source, [])) == detail_uri("country-by-code", code="fr")


def test_resource_uri_over_an_attribute_reads_the_attribute_first() -> None:
    """A ``resource_uri`` with an attribute reads it as its field would: a missing value the
    field allows no default for sends the row to the general path."""
    source = source_for(plan_of(BookResource), "resource_uri", fields.CharField(attribute="title"))
    bind(source)
    page = page_for(source, [])
    assert source.value(("Dune", 3), page) == detail_uri("book", pk=3)
    with pytest.raises(Fallback):
        source.value((None, 3), page)


@pytest.mark.parametrize(
    "resource_class, reason",
    [
        (OwnUrisCountryResource, "OwnUrisCountryResource builds its URIs itself"),
        (NoColumnCountryResource, "resource_uri: detail_uri_name is not a column"),
    ],
)
def test_resource_uri_not_a_function_of_a_column_is_declined(resource_class, reason) -> None:
    """A resource whose URI methods are its own, or whose ``detail_uri_name`` is no column,
    gets no ``resource_uri`` from rows."""
    plan = plan_of(resource_class)
    field = plan.resource.fields["resource_uri"]
    assert ResourceUriSource(plan, "resource_uri", field).declined == reason
