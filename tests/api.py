"""One Tastypie API, built once per spelling, for the differential tests.

``build_api(api_name, spelling)`` returns a ``tastypie.api.Api`` whose
resources differ only in what the spelling asks for:

``model``
    ``ModelResource``, ``Meta.queryset``, stock ``ToManyField``/``ToOneField``
    (the v2 API of the seed article, and the reference behaviour).
``djony``
    ``DjonyResource`` as a pure drop-in: only the base class changes.
``djony2013``
    ``DjonyResource`` with ``Meta.object_model`` and ``SetField``, as the 2013
    article wrote it.  A ``Meta.queryset`` that filters or orders has no
    ``object_model`` spelling, so that one resource keeps ``queryset``.

Each API gets its own ``api_name`` (``v2``, ``v3``, ``v3o``), which is also
its URL prefix, so two responses differ only in that prefix.
"""

from __future__ import annotations

from django.contrib.auth.models import Permission, User
from tastypie import fields
from tastypie.api import Api
from tastypie.authentication import (
    ApiKeyAuthentication,
    BasicAuthentication,
    MultiAuthentication,
    SessionAuthentication,
)
from tastypie.authorization import (
    Authorization,
    DjangoAuthorization,
    ReadOnlyAuthorization,
)
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.resources import ModelResource
from tastypie.serializers import Serializer

from tastypie_djony.fields import SetField
from tastypie_djony.resources import DjonyResource
from tests.testapp.models import (
    AllTypes,
    Author,
    Book,
    BookDetail,
    Club,
    Country,
    Pizzeria,
    Publisher,
    Restaurant,
    Tag,
)

SPELLINGS = ("model", "djony", "djony2013")

# Every format Tastypie can write here, JSONP included (it is off by default).
ALL_FORMATS = ["json", "jsonp", "xml", "yaml", "plist"]


class AuthorsStartingWithA(Authorization):
    """Reads only books whose author's name starts with 'A'.

    ``read_list`` narrows the object list with a Django lookup, which a
    DjonyResource object list accepts like a queryset; ``read_detail`` walks
    attributes, which a Django instance and a Pony entity both have.
    """

    def read_list(self, object_list, bundle):
        return object_list.filter(author__name__startswith="A")

    def read_detail(self, object_list, bundle):
        return bundle.obj.author.name.startswith("A")


def filtering_all(model, value=ALL) -> dict:
    """``filtering`` allowing ``value`` on every field of ``model``, as the
    seed article wrote it with ``_meta.get_all_field_names()``."""
    return {f.name: value for f in model._meta.get_fields()}


def build_api(api_name: str, spelling: str) -> Api:
    """Build the test API with resources written in ``spelling``."""
    if spelling not in SPELLINGS:
        raise ValueError(f"spelling={spelling!r}: use one of {SPELLINGS}.")
    base = ModelResource if spelling == "model" else DjonyResource
    to_many = SetField if spelling == "djony2013" else fields.ToManyField

    def meta(model, **options) -> type:
        """A ``Meta`` naming the data source the way ``spelling`` does."""
        if spelling == "djony2013":
            options["object_model"] = model
        else:
            options["queryset"] = model.objects.all()
        return type("Meta", (), options)

    # --- the seed article: django.contrib.auth, no authentication ---------
    class PermissionResource(base):
        Meta = meta(
            Permission,
            resource_name="auth/permission",
            filtering=filtering_all(Permission, ALL_WITH_RELATIONS),
        )

    class UserResource(base):
        user_permissions = to_many(
            PermissionResource, "user_permissions", related_name="user_set", null=True
        )
        Meta = meta(
            User,
            resource_name="auth/user",
            filtering=filtering_all(User, ALL_WITH_RELATIONS),
        )

    # --- the test models ---------------------------------------------------
    class CountryResource(base):
        Meta = meta(
            Country,
            resource_name="country",
            filtering={"id": ALL, "code": ALL, "name": ALL},
            ordering=["name", "code", "id"],
        )

    class TagResource(base):
        Meta = meta(
            Tag,
            resource_name="tag",
            filtering={"id": ALL, "name": ALL, "books": ALL_WITH_RELATIONS},
            ordering=["name", "id"],
            serializer=Serializer(formats=ALL_FORMATS),
        )

    class PublisherResource(base):
        Meta = meta(
            Publisher,
            resource_name="publisher",
            filtering={"uid": ALL, "name": ALL},
            ordering=["name"],
        )

    class AuthorResource(base):
        country = fields.ToOneField(CountryResource, "country", null=True)
        country_by_code = fields.ToOneField(CountryResource, "country_by_code", null=True)
        mentor = fields.ToOneField("self", "mentor", null=True)
        books = to_many(f"{__name__}.{api_name}_BookResource", "books", null=True)
        friends = to_many("self", "friends", null=True)
        followers = to_many("self", "followers", null=True)
        Meta = meta(
            Author,
            resource_name="author",
            filtering={
                "id": ALL,
                "name": ALL,
                "email": ALL,
                "born": ALL,
                "country": ALL_WITH_RELATIONS,
                "country_by_code": ALL_WITH_RELATIONS,
                "mentor": ALL_WITH_RELATIONS,
                "books": ALL_WITH_RELATIONS,
                "friends": ALL_WITH_RELATIONS,
                "followers": ALL,
            },
            ordering=["id", "name", "born", "email", "country", "mentor"],
        )

    book_filtering = {
        "id": ALL,
        "title": ALL,
        "isbn": ALL,
        "price": ALL,
        "pages": ["exact", "gt", "lt"],
        "published": ALL,
        "in_print": ALL,
        "rating": ALL,
        "author": ALL_WITH_RELATIONS,
        "editor": ALL_WITH_RELATIONS,
        "publisher": ALL_WITH_RELATIONS,
        "tags": ALL_WITH_RELATIONS,
    }
    book_ordering = [
        "id",
        "title",
        "price",
        "pages",
        "published",
        "in_print",
        "rating",
        "author",
        "editor",
        "tags",
    ]

    class BookResource(base):
        author = fields.ToOneField(AuthorResource, "author")
        editor = fields.ToOneField(AuthorResource, "editor", null=True)
        publisher = fields.ToOneField(PublisherResource, "publisher", null=True)
        tags = to_many(TagResource, "tags", null=True)
        Meta = meta(
            Book,
            resource_name="book",
            filtering=book_filtering,
            ordering=book_ordering,
            serializer=Serializer(formats=ALL_FORMATS),
        )

    class BookDetailResource(base):
        book = fields.ToOneField(BookResource, "book")
        Meta = meta(BookDetail, resource_name="bookdetail", filtering={"book": ALL_WITH_RELATIONS})

    class BookFullResource(base):
        """Every related resource in full."""

        author = fields.ToOneField(AuthorResource, "author", full=True)
        editor = fields.ToOneField(AuthorResource, "editor", null=True, full=True)
        publisher = fields.ToOneField(PublisherResource, "publisher", null=True, full=True)
        tags = to_many(TagResource, "tags", null=True, full=True)
        detail = fields.ToOneField(BookDetailResource, "detail", null=True, full=True)
        Meta = meta(
            Book,
            resource_name="bookfull",
            filtering=book_filtering,
            ordering=book_ordering,
        )

    class BookMixedResource(base):
        """``full_list``, ``full_detail`` and ``use_in`` in their variants."""

        author = fields.ToOneField(AuthorResource, "author", full=True, full_list=False)
        editor = fields.ToOneField(AuthorResource, "editor", null=True, full=True, use_in="detail")
        publisher = fields.ToOneField(PublisherResource, "publisher", null=True, use_in="list")
        tags = to_many(TagResource, "tags", null=True, full=True, full_detail=False)
        detail = fields.ToOneField(
            BookDetailResource,
            "detail",
            null=True,
            full=True,
            full_list=lambda bundle: bundle.request.GET.get("nested") == "1",
            use_in=lambda bundle: bundle.obj.pages % 2 == 0,
        )
        Meta = meta(
            Book,
            resource_name="bookmixed",
            excludes=["isbn", "rating"],
            filtering=book_filtering,
            ordering=book_ordering,
        )

    class InPrintResource(base):
        """A ``Meta.queryset`` that filters and orders."""

        author = fields.ToOneField(AuthorResource, "author")
        tags = to_many(TagResource, "tags", null=True)

        class Meta:  # the same in every spelling: object_model cannot say this
            queryset = Book.objects.filter(in_print=True).order_by("-pages")
            resource_name = "inprint"
            fields = ["id", "title", "pages", "price"]
            filtering = {"title": ALL, "pages": ALL, "author": ALL_WITH_RELATIONS}
            ordering = ["title", "pages"]

    class AllTypesResource(base):
        """Every field type.  ``blob`` is left out: ModelResource renders a
        BinaryField with ``str()``, on PostgreSQL ``<memory at 0x...>``."""

        Meta = meta(
            AllTypes,
            resource_name="alltypes",
            excludes=["blob"],
            filtering=filtering_all(AllTypes),
            ordering=[f.name for f in AllTypes._meta.fields],
        )

    class RestaurantResource(base):
        """Multi-table inheritance: the parent's fields are visible."""

        Meta = meta(
            Restaurant,
            resource_name="restaurant",
            filtering={"id": ALL, "name": ALL, "address": ALL, "serves_pizza": ALL},
            ordering=["id", "name"],
        )

    class PizzeriaResource(base):
        Meta = meta(
            Pizzeria,
            resource_name="pizzeria",
            filtering={"id": ALL, "name": ALL, "serves_pizza": ALL, "ovens": ALL},
            ordering=["id", "ovens"],
        )

    class ClubResource(base):
        """An M2M through an explicit model."""

        members = to_many(AuthorResource, "members", null=True)
        Meta = meta(
            Club,
            resource_name="club",
            filtering={"name": ALL, "members": ALL_WITH_RELATIONS},
            ordering=["name"],
        )

    # --- paging and methods ------------------------------------------------
    class PagedAuthorResource(base):
        country = fields.ToOneField(CountryResource, "country", null=True)
        Meta = meta(
            Author,
            resource_name="paged",
            limit=5,
            max_limit=12,
            filtering={"name": ALL, "id": ALL},
            ordering=["name", "id"],
        )

    class UnlimitedTagResource(base):
        Meta = meta(Tag, resource_name="unlimited", limit=0, max_limit=None)

    class ReadOnlyBookResource(base):
        Meta = meta(
            Book,
            resource_name="readonly",
            fields=["id", "title"],
            allowed_methods=["get"],
        )

    class ListOnlyTagResource(base):
        Meta = meta(
            Tag,
            resource_name="listonly",
            list_allowed_methods=["get"],
            detail_allowed_methods=[],
        )

    # --- authentication and authorization ------------------------------------
    def secure_book(name, authentication, authorization):
        class SecureBookResource(base):
            author = fields.ToOneField(AuthorResource, "author")
            tags = to_many(TagResource, "tags", null=True)
            Meta = meta(
                Book,
                resource_name=f"secure/{name}",
                fields=["id", "title", "pages"],
                authentication=authentication,
                authorization=authorization,
                filtering={"title": ALL, "author": ALL_WITH_RELATIONS},
                ordering=["title", "pages"],
            )

        return SecureBookResource

    secure = [
        secure_book("basic", BasicAuthentication(), ReadOnlyAuthorization()),
        secure_book("apikey", ApiKeyAuthentication(), DjangoAuthorization()),
        secure_book("session", SessionAuthentication(), AuthorsStartingWithA()),
        secure_book(
            "multi",
            MultiAuthentication(BasicAuthentication(), ApiKeyAuthentication()),
            DjangoAuthorization(),
        ),
        secure_book("basic-a", BasicAuthentication(), AuthorsStartingWithA()),
        secure_book("session-django", SessionAuthentication(), DjangoAuthorization()),
    ]

    resources = [
        PermissionResource,
        UserResource,
        CountryResource,
        TagResource,
        PublisherResource,
        AuthorResource,
        BookResource,
        BookDetailResource,
        BookFullResource,
        BookMixedResource,
        InPrintResource,
        AllTypesResource,
        RestaurantResource,
        PizzeriaResource,
        ClubResource,
        PagedAuthorResource,
        UnlimitedTagResource,
        ReadOnlyBookResource,
        ListOnlyTagResource,
        *secure,
    ]
    # AuthorResource names BookResource by dotted path (the two refer to
    # each other); this is where Tastypie looks it up.
    globals()[f"{api_name}_BookResource"] = BookResource

    api = Api(api_name=api_name)
    for resource in resources:
        api.register(resource())
    return api
