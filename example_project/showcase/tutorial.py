"""Tastypie's tutorial resource, and the other shapes real projects write, for any base class.

``tutorial_resources(ModelResource)`` and ``tutorial_resources(DjonyResource)`` give the
same resources; the example's v2 and v3 APIs register them beside the user API:

* ``entry``: the tutorial's ``EntryResource``: its ``user`` is a
  ``fields.ForeignKey(UserResource, "user", full=True)``, a ``dehydrate()`` reads
  ``bundle.obj.body`` and ``bundle.obj.title``, behind ``ApiKeyAuthentication`` and
  ``DjangoAuthorization``;
* ``user``: the tutorial's ``UserResource`` (e-mail, password and flags excluded, GET only);
* ``plainentry``: the entries with no relations and no hooks (Tastypie's defaults:
  anyone may read);
* ``myentry``: a per-user ``get_object_list`` (each API key sees its own entries), the
  user a plain ``ForeignKey``;
* ``author``: users with their entries nested, a reverse to-many with ``full=True``,
  behind ``ApiKeyAuthentication`` and ``DjangoAuthorization``.

``prefetch=True`` gives the querysets a careful ModelResource author writes
(``select_related("user")``, ``prefetch_related("entry_set")``); a DjonyResource needs
none.  ``Entry`` has ``Meta.ordering = ["id"]`` (the tutorial's has none) so that every
API lists the same rows in the same order.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from tastypie import fields
from tastypie.authentication import ApiKeyAuthentication
from tastypie.authorization import DjangoAuthorization
from tastypie.bundle import Bundle

from example_project.showcase.models import Entry

USER_EXCLUDES = ["email", "password", "is_active", "is_staff", "is_superuser"]


def tutorial_resources(base: type, prefetch: bool = False) -> list[Any]:
    """Instances of the tutorial's resources (and the other shapes) on ``base``."""
    entries = Entry.objects.select_related("user") if prefetch else Entry.objects.all()
    authors = User.objects.prefetch_related("entry_set") if prefetch else User.objects.all()

    class UserResource(base):
        class Meta:
            queryset = User.objects.all()
            resource_name = "user"
            excludes = USER_EXCLUDES
            allowed_methods = ["get"]

    class EntryResource(base):
        user = fields.ForeignKey(UserResource, "user", full=True)

        class Meta:
            queryset = entries
            resource_name = "entry"
            authentication = ApiKeyAuthentication()
            authorization = DjangoAuthorization()

        def dehydrate(self, bundle: Bundle) -> Bundle:
            bundle.data["word_count"] = len(bundle.obj.body.split())
            bundle.data["headline"] = bundle.obj.title.upper()
            return bundle

    class PlainEntryResource(base):
        class Meta:
            queryset = Entry.objects.all()
            resource_name = "plainentry"

    class MyEntryResource(base):
        user = fields.ForeignKey(UserResource, "user")

        class Meta:
            queryset = Entry.objects.all()
            resource_name = "myentry"
            authentication = ApiKeyAuthentication()

        def get_object_list(self, request: Any) -> Any:
            return super().get_object_list(request).filter(user=request.user)

    class AuthorResource(base):
        entries = fields.ToManyField(PlainEntryResource, "entry_set", full=True)

        class Meta:
            queryset = authors
            resource_name = "author"
            excludes = USER_EXCLUDES
            authentication = ApiKeyAuthentication()
            authorization = DjangoAuthorization()

    return [
        UserResource(),
        EntryResource(),
        PlainEntryResource(),
        MyEntryResource(),
        AuthorResource(),
    ]
