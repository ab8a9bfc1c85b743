"""A small DjonyResource API over the test app, for the unit tests of the serving pieces.

The tests of the sources (:mod:`tests.serve.sources`), of the URIs
(:mod:`tests.serve.test_uris`) and of the related data (:mod:`tests.serve.test_related`)
build their sources, URIs and relations from these resources.  ``urlpatterns`` mounts
them under ``/units/`` so that their URIs reverse: a test module using URIs marks itself
``pytest.mark.urls("tests.serve.unit_api")``.  Each test makes its own instances
(:func:`resource`): what an instance keeps (its URI templates) starts empty.
"""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from django.utils import timezone
from tastypie import fields
from tastypie.api import Api

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import (
    AllTypes,
    Author,
    Book,
    BookDetail,
    Country,
    Loan,
    Publisher,
    Tag,
)

API_NAME = "units"


class CountryResource(DjonyResource):
    class Meta:
        queryset = Country.objects.all()
        resource_name = "country"


class CountryByCodeResource(DjonyResource):
    """Detail URIs keyed by ``code``, a unique column other than the primary key."""

    class Meta:
        queryset = Country.objects.all()
        resource_name = "country-by-code"
        detail_uri_name = "code"


class OwnUrisCountryResource(DjonyResource):
    """Builds its detail URIs itself (``detail_uri_kwargs`` overridden)."""

    def detail_uri_kwargs(self, bundle_or_obj: Any) -> dict:
        return super().detail_uri_kwargs(bundle_or_obj)

    class Meta:
        queryset = Country.objects.all()
        resource_name = "own-uris-country"


class NoColumnCountryResource(DjonyResource):
    """``detail_uri_name`` names no column (a reverse relation of the model)."""

    class Meta:
        queryset = Country.objects.all()
        resource_name = "no-column-country"
        detail_uri_name = "authors"


class TagResource(DjonyResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "tag"


class TagByNameResource(DjonyResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "tag-by-name"
        detail_uri_name = "name"


class OwnUrisTagResource(DjonyResource):
    """Builds its detail URIs itself (``detail_uri_kwargs`` overridden)."""

    def detail_uri_kwargs(self, bundle_or_obj: Any) -> dict:
        return super().detail_uri_kwargs(bundle_or_obj)

    class Meta:
        queryset = Tag.objects.all()
        resource_name = "own-uris-tag"


class NoColumnTagResource(DjonyResource):
    """``detail_uri_name`` names no column (the reverse many-to-many ``books``)."""

    class Meta:
        queryset = Tag.objects.all()
        resource_name = "no-column-tag"
        detail_uri_name = "books"


class UnplannedTagResource(DjonyResource):
    """Served by Tastypie's own path only (``Meta.fast_path = False``)."""

    class Meta:
        queryset = Tag.objects.all()
        resource_name = "unplanned-tag"
        fast_path = False


class PublisherResource(DjonyResource):
    class Meta:
        queryset = Publisher.objects.all()
        resource_name = "publisher"


class AuthorResource(DjonyResource):
    country = fields.ToOneField(CountryResource, "country", null=True)
    #: ``to_field="code"``, shown by a resource keyed by the primary key: a join.
    country_by_code = fields.ToOneField(CountryResource, "country_by_code", null=True)
    #: The same relation, shown by a resource keyed by ``code``: the row holds the key.
    country_code = fields.ToOneField(CountryByCodeResource, "country_by_code", null=True)
    own_uris_country = fields.ToOneField(OwnUrisCountryResource, "country", null=True)
    books = fields.ToManyField("tests.serve.unit_api.BookResource", "books")
    follows = fields.ToManyField("self", "follows")

    class Meta:
        queryset = Author.objects.all()
        resource_name = "author"


class BookDetailResource(DjonyResource):
    class Meta:
        queryset = BookDetail.objects.all()
        resource_name = "book-detail"


class BookResource(DjonyResource):
    #: Scalars with each of Tastypie's null/default rules.
    heading = fields.CharField(attribute="title")
    rated = fields.FloatField(attribute="rating", null=True)
    length = fields.IntegerField(attribute="pages", default=100)
    issued = fields.DateTimeField(attribute="published", default=timezone.now)
    #: Scalars the rows cannot give.
    author_key = fields.IntegerField(attribute="author_id")
    author_name = fields.CharField(attribute="author__name")
    nowhere = fields.CharField(attribute="no_such_column", null=True)
    #: Related fields.
    author = fields.ToOneField(AuthorResource, "author")
    editor = fields.ToOneField(AuthorResource, "editor", null=True)
    publisher = fields.ToOneField(PublisherResource, "publisher", null=True)
    detail = fields.ToOneField(BookDetailResource, "detail", null=True)
    tags = fields.ToManyField(TagResource, "tags")
    tag_names = fields.ToManyField(TagByNameResource, "tags")
    tags_by_callable = fields.ToManyField(TagResource, lambda bundle: bundle.obj.tags.all())
    #: ``full=True`` related fields.
    author_full = fields.ToOneField(AuthorResource, "author", full=True)
    tags_full = fields.ToManyField(TagResource, "tags", full=True)
    tags_full_per_bundle = fields.ToManyField(
        TagResource, "tags", full=True, full_list=lambda bundle: True
    )
    #: Fields no source knows.
    extras = fields.DictField(attribute="title", null=True)
    listed = fields.ListField(attribute="title", null=True)

    class Meta:
        queryset = Book.objects.all()
        resource_name = "book"


class LoanResource(DjonyResource):
    #: A ForeignKey without its database constraint: its key may name no row.
    book = fields.ToOneField(BookResource, "book")
    #: ``to_field="code"``.
    branch = fields.ToOneField(CountryResource, "branch", null=True)

    class Meta:
        queryset = Loan.objects.all()
        resource_name = "loan"


class AllTypesResource(DjonyResource):
    #: A Tastypie ``CharField`` over a model ``FileField`` (read through its descriptor).
    file_name = fields.CharField(attribute="file", null=True)
    #: A Tastypie ``FileField`` over a column that is no file.
    not_a_file = fields.FileField(attribute="char", null=True)

    class Meta:
        queryset = AllTypes.objects.all()
        resource_name = "alltypes"


RESOURCES = (
    CountryResource,
    CountryByCodeResource,
    OwnUrisCountryResource,
    NoColumnCountryResource,
    TagResource,
    TagByNameResource,
    OwnUrisTagResource,
    NoColumnTagResource,
    UnplannedTagResource,
    PublisherResource,
    AuthorResource,
    BookDetailResource,
    BookResource,
    LoanResource,
    AllTypesResource,
)

api = Api(api_name=API_NAME)
for resource_class in RESOURCES:
    api.register(resource_class())

urlpatterns: list = [path("", include(api.urls))]


def resource(resource_class: type) -> Any:
    """A fresh instance of ``resource_class`` (nothing kept from another test)."""
    return resource_class(api_name=API_NAME)
