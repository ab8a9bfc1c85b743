"""``djony_verify`` on the ``get_object_list()`` overrides Tastypie users write, on both bases.

Each pattern is a resource on ``ModelResource`` and one on ``DjonyResource``, so both
twins are built: ``super().get_object_list(request).filter(...)`` (on a DjonyResource
its ModelResource twin once raised ``AttributeError('as_object_list')``), ``.exclude()``,
``.select_related()``, ``.annotate()``, another model's manager, an override inherited
from a mixin or a parent class (once handed to the hooks as Django instances by the
DjonyResource twin), ``Meta.queryset`` with a custom manager, and one resource class
mounted under two Apis, one of them in a namespace.  Every run must compare real
answers (most of them 200s) and find them the same.
"""

from __future__ import annotations

import pytest
from django.db.models import Count
from django.test import RequestFactory
from django.urls import include, path
from tastypie.api import Api, NamespacedApi
from tastypie.authorization import Authorization
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.fields import ToOneField
from tastypie.resources import ModelResource, NamespacedModelResource

from tastypie_djony.objectlist import DjonyObjectList
from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify.twins import Twins
from tests.patterns.models import Critique, Novel, Scribe
from tests.testapp.models import Author, Book, Country, Tag
from tests.verify.helpers import verify

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.test_overrides")]


class AuthorResource(ModelResource):
    class Meta:
        queryset = Author.objects.all()
        resource_name = "author"
        filtering = {"name": ALL}


# -- the patterns, as mixins (an override inherited from a class the metaclass did not build)
class FilteredMixin:
    def get_object_list(self, request):
        return super().get_object_list(request).filter(author__name__startswith="A")


class ExcludedMixin:
    def get_object_list(self, request):
        return super().get_object_list(request).exclude(in_print=False)


class JoinedMixin:
    def get_object_list(self, request):
        return super().get_object_list(request).select_related("author", "editor")


class AnnotatedMixin:
    def get_object_list(self, request):
        return super().get_object_list(request).annotate(tag_count=Count("tags"))

    def dehydrate(self, bundle):
        bundle.data["tag_count"] = bundle.obj.tag_count
        return bundle


class OtherManagerMixin:
    """A queryset from another model's manager: the books of German authors."""

    def get_object_list(self, request):
        germans = Author.objects.filter(country__code="de")
        return Book.objects.filter(author__in=germans)


class RelatedManagerMixin:
    """A queryset from a related manager of another model's object."""

    def get_object_list(self, request):
        return Author.objects.get(name="Ada").books.all()


PATTERNS = {
    "filtered": FilteredMixin,
    "excluded": ExcludedMixin,
    "joined": JoinedMixin,
    "annotated": AnnotatedMixin,
    "othermanager": OtherManagerMixin,
    "relatedmanager": RelatedManagerMixin,
}


def book_meta(name: str) -> type:
    return type(
        "Meta",
        (),
        {
            "queryset": Book.objects.all(),
            "resource_name": name,
            # (terms of each kind, not every one: the overrides are the subject here, every
            # lookup term is tests/differential/test_filters.py's)
            "filtering": {
                "title": ["exact", "iexact", "contains", "startswith", "in", "isnull"],
                "pages": ["exact", "gt", "lte", "range", "in"],
                "author": ALL_WITH_RELATIONS,
            },
            "ordering": ["title", "pages"],
            "authorization": Authorization(),
        },
    )


def book_resource(mixin: type, base: type, name: str) -> type:
    namespace = {
        "Meta": book_meta(name),
        "author": ToOneField(AuthorResource, "author"),
        "__module__": __name__,
    }
    return type(f"{name.title()}Resource", (mixin, base), namespace)


# -- the same patterns written in the class itself -------------------------------------------
class OwnFilterResource(DjonyResource):
    author = ToOneField(AuthorResource, "author")

    class Meta:
        queryset = Book.objects.all()
        resource_name = "ownfilter"
        filtering = {"title": ALL}

    def get_object_list(self, request):
        return super().get_object_list(request).filter(author__name__startswith="A")


class OwnExcludeResource(ModelResource):
    class Meta:
        queryset = Book.objects.all()
        resource_name = "ownexclude"
        filtering = {"title": ALL}

    def get_object_list(self, request):
        return super().get_object_list(request).exclude(in_print=False).select_related("author")


# -- an override in a parent class, as django-oppia's -----------------------------------------
class TenantBase(DjonyResource):
    class Meta:
        abstract = True

    def get_object_list(self, request):
        return super().get_object_list(request).filter(pages__gte=100)


class TenantBookResource(TenantBase):
    class Meta:
        queryset = Book.objects.all()
        resource_name = "tenantbook"
        filtering = {"title": ALL}


class ModelTenantBase(ModelResource):
    class Meta:
        abstract = True

    def get_object_list(self, request):
        return super().get_object_list(request).filter(pages__gte=100)


class ModelTenantBookResource(ModelTenantBase):
    class Meta:
        queryset = Book.objects.all()
        resource_name = "modeltenantbook"
        filtering = {"title": ALL}


# -- Meta.queryset with custom managers ---------------------------------------------------------
class CritiqueResource(DjonyResource):
    class Meta:
        queryset = Critique.objects.all()  # PublishedManager: unpublished rows are hidden
        resource_name = "critique"
        filtering = {"text": ALL}


class EveryCritiqueResource(ModelResource):
    class Meta:
        queryset = Critique.everything.filter(novel__year__gte=1990)
        resource_name = "everycritique"
        filtering = {"text": ALL, "published": ALL}


# -- one class under two Apis, one of them namespaced ------------------------------------------
class CountryResource(DjonyResource):
    class Meta:
        queryset = Country.objects.all()
        resource_name = "country"
        filtering = {"name": ALL, "code": ALL}


class NamespacedCountryResource(NamespacedModelResource):
    """Tastypie's own namespaced resource, under a ``NamespacedApi``."""

    class Meta:
        queryset = Country.objects.all()
        resource_name = "country"
        filtering = {"name": ALL, "code": ALL}


RESOURCES = [
    *(book_resource(mixin, base, f"{name}{base.__name__[:5].lower()}")
      for name, mixin in PATTERNS.items() for base in (ModelResource, DjonyResource)),
    OwnFilterResource, OwnExcludeResource, TenantBookResource, ModelTenantBookResource,
    CritiqueResource, EveryCritiqueResource, CountryResource,
]  # fmt: skip
patterns_api = Api(api_name="patterns")
patterns_api.register(AuthorResource())
for resource_class in RESOURCES:
    patterns_api.register(resource_class())
second = NamespacedApi(api_name="second", urlconf_namespace="second")
second.register(NamespacedCountryResource())
urlpatterns = [
    path("api/", include(patterns_api.urls)),
    path("two/", include((second.urls, "second"), namespace="second")),
]
URIS = sorted(
    [f"/api/patterns/{cls._meta.resource_name}/" for cls in RESOURCES] + ["/two/second/country/"]
)


@pytest.fixture
def rows():
    de, fr = (
        Country.objects.create(code="de", name="Germany"),
        Country.objects.create(code="fr", name="France"),
    )
    ada = Author.objects.create(name="Ada", country=de)
    bert = Author.objects.create(name="Bert", country=fr)
    anna = Author.objects.create(name="Anna", country=de)
    tags = [Tag.objects.create(name=n) for n in ("red", "green", "blue")]
    for index, (title, author) in enumerate(
        [("Dune", ada), ("Emma", bert), ("Faust", anna), ("Gilgamesh", ada), ("Heidi", bert)]
    ):
        book = Book.objects.create(
            title=title, author=author, pages=50 + 40 * index, in_print=index != 3
        )
        book.tags.set(tags[: index % 3 + 1])
    scribe = Scribe.objects.create(name="Sam")
    for year in (1980, 1995, 2005):
        novel = Novel.objects.create(title=f"N{year}", year=year, writer=scribe)
        Critique.everything.create(novel=novel, text=f"good {year}", published=True)
        Critique.everything.create(novel=novel, text=f"draft {year}", published=False)


@pytest.mark.parametrize("uri", URIS)
def test_each_override_pattern_verifies_clean(rows, uri):
    run = verify("--resource", uri)
    assert run.code == 0, run.out
    assert run.reason == ""
    figures = run.resource(uri)
    assert figures["different"] == 0
    assert figures["identical"] >= 20  # real answers compared, not errors
    assert "Every answer is the same on both bases." in run.out


@pytest.mark.parametrize(
    "resource_class",
    [book_resource(FilteredMixin, ModelResource, "probe"), ModelTenantBookResource,
     TenantBookResource],
)  # fmt: skip
def test_an_inherited_override_hands_the_djony_side_pony_objects(rows, resource_class):
    """The override comes from a mixin or a parent: DjonyResource serves its result."""
    resource = resource_class()
    djony = resource if isinstance(resource, DjonyResource) else Twins().instance(resource)
    request = RequestFactory().get("/")
    object_list = djony.get_object_list(request)
    assert isinstance(object_list, DjonyObjectList)
    expected = set(type(resource).get_object_list(resource, request).values_list("pk", flat=True))
    if isinstance(resource, DjonyResource):  # its ModelResource twin gets a Django QuerySet
        twin = Twins().instance(resource)
        queryset = twin.get_object_list(request)
        assert not isinstance(queryset, DjonyObjectList)
        expected = set(queryset.values_list("pk", flat=True))
    assert {obj.pk for obj in object_list} == expected
