"""URLs of the authorization tests: the differential read APIs of
:mod:`tests.urls` (``/v2/``, ``/v3/``, ``/v3o/``) plus the security API of
:func:`build_security_api`, mounted once per spelling (``/s2/`` ModelResource,
``/s3/`` DjonyResource: prefixes of the same length, so bodies compare byte
for byte).

Use with ``override_settings(ROOT_URLCONF="tests.security.urls")``.
"""

from __future__ import annotations

from django.urls import include, path
from tastypie import fields
from tastypie.api import Api
from tastypie.authentication import Authentication, SessionAuthentication
from tastypie.authorization import Authorization, DjangoAuthorization
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.exceptions import Unauthorized
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Book, Country, Tag
from tests.urls import urlpatterns as read_urlpatterns

#: api_name -> base class
SPELLINGS = {"s2": ModelResource, "s3": DjonyResource}


def visible_authors(object_list=None):
    """Authors whose books a reader may see: name ``startswith`` 'A' as the
    database means it (case-insensitive on SQLite, whose LIKE ignores case)."""
    authors = Author.objects.all() if object_list is None else object_list
    return authors.filter(name__startswith="A")


def visible(name: str) -> bool:
    # Compared in Python: ``name=`` in SQL ignores case on MySQL, ``startswith`` does not.
    return name in set(visible_authors().values_list("name", flat=True))


class BooksByAAuthors(Authorization):
    """Object-level authorization: only books whose author's name starts with 'A'.

    ``read_list`` narrows the object list with a Django lookup (a DjonyResource
    object list takes it like a queryset); ``read_detail`` asks the object
    list the same question about the one book, and the write checks refuse
    what the client may not read.
    """

    def read_list(self, object_list, bundle):
        return object_list.filter(author__name__startswith="A")

    def read_detail(self, object_list, bundle):
        if not self.read_list(object_list, bundle).filter(pk=bundle.obj.pk).exists():
            raise Unauthorized("You may not see this book.")
        return True

    def update_detail(self, object_list, bundle):
        return self.read_detail(object_list, bundle)

    def delete_detail(self, object_list, bundle):
        return self.read_detail(object_list, bundle)

    def update_list(self, object_list, bundle):
        return self.read_list(object_list, bundle)

    def delete_list(self, object_list, bundle):
        return self.read_list(object_list, bundle)


class AAuthors(Authorization):
    """Authors whose name starts with 'A' (for filters through their books)."""

    def read_list(self, object_list, bundle):
        return object_list.filter(name__startswith="A")

    def read_detail(self, object_list, bundle):
        return self.read_list(object_list, bundle).filter(pk=bundle.obj.pk).exists()


def build_security_api(api_name: str) -> Api:
    base = SPELLINGS[api_name]

    class CountryResource(base):
        class Meta:
            queryset = Country.objects.all()
            resource_name = "country"
            filtering = {"code": ALL, "name": ALL}

    class TagResource(base):
        class Meta:
            queryset = Tag.objects.all()
            resource_name = "tag"
            filtering = {"name": ALL}

    class AuthorResource(base):
        country = fields.ToOneField(CountryResource, "country", null=True)

        class Meta:
            queryset = Author.objects.all()
            resource_name = "author"
            fields = ["id", "name", "born"]
            filtering = {"id": ALL, "name": ALL, "country": ALL_WITH_RELATIONS}
            ordering = ["id", "name"]

    book_filtering = {
        "id": ALL,
        "title": ALL,
        "pages": ALL,
        "author": ALL_WITH_RELATIONS,
        "editor": ALL_WITH_RELATIONS,
        "tags": ALL_WITH_RELATIONS,
    }

    class SecretBookResource(base):
        """Books of 'A' authors only, anyone may read (no authentication)."""

        author = fields.ToOneField(AuthorResource, "author")
        editor = fields.ToOneField(AuthorResource, "editor", null=True)
        tags = fields.ToManyField(TagResource, "tags", null=True)

        class Meta:
            queryset = Book.objects.all()
            resource_name = "secretbook"
            fields = ["id", "title", "pages"]
            authentication = Authentication()
            authorization = BooksByAAuthors()
            filtering = book_filtering
            ordering = ["id", "title", "pages", "author", "editor"]

    class SecretBookFullResource(base):
        """The same books, every related resource in full."""

        author = fields.ToOneField(AuthorResource, "author", full=True)
        editor = fields.ToOneField(AuthorResource, "editor", null=True, full=True)
        tags = fields.ToManyField(TagResource, "tags", null=True, full=True)

        class Meta:
            queryset = Book.objects.all()
            resource_name = "secretbookfull"
            fields = ["id", "title"]
            authentication = Authentication()
            authorization = BooksByAAuthors()
            filtering = book_filtering
            ordering = ["id", "title", "author"]

    class AuthorBooksResource(base):
        """Every author with their books nested in full, through the secret
        resource: Tastypie does not authorize nested resources, so v2 shows
        every book here; v3 must show exactly the same, no more."""

        books = fields.ToManyField(SecretBookResource, "books", full=True, null=True)

        class Meta:
            queryset = Author.objects.all()
            resource_name = "authorbooks"
            fields = ["id", "name"]
            filtering = {"name": ALL, "books": ALL_WITH_RELATIONS}
            ordering = ["id"]

    class SecretAuthorResource(base):
        """Authors whose name starts with 'A'; filters through their books."""

        books = fields.ToManyField(SecretBookResource, "books", null=True)

        class Meta:
            queryset = Author.objects.all()
            resource_name = "secretauthor"
            fields = ["id", "name"]
            authorization = AAuthors()
            filtering = {"name": ALL, "books": ALL_WITH_RELATIONS}
            ordering = ["id", "name"]

    class SessionTagResource(base):
        """Writable with a Django session (CSRF enforced on unsafe methods)."""

        class Meta:
            queryset = Tag.objects.all()
            resource_name = "sessiontag"
            authentication = SessionAuthentication()
            authorization = Authorization()
            always_return_data = True

    class SessionBookResource(base):
        """Session + Django's model permissions (anonymous: 401, no 500)."""

        author = fields.ToOneField(AuthorResource, "author")

        class Meta:
            queryset = Book.objects.all()
            resource_name = "sessionbook"
            fields = ["id", "title"]
            authentication = SessionAuthentication()
            authorization = DjangoAuthorization()
            filtering = {"title": ALL, "author": ALL_WITH_RELATIONS}

    api = Api(api_name=api_name)
    for resource in (
        CountryResource,
        TagResource,
        AuthorResource,
        SecretBookResource,
        SecretBookFullResource,
        AuthorBooksResource,
        SecretAuthorResource,
        SessionTagResource,
        SessionBookResource,
    ):
        api.register(resource())
    return api


APIS = {name: build_security_api(name) for name in SPELLINGS}

urlpatterns: list = [
    *read_urlpatterns,
    *(path("", include(api.urls)) for api in APIS.values()),
]
