"""DRF twins of the tutorial's resources (:mod:`example_project.showcase.tutorial`).

Written as a DRF user would: ``ModelSerializer`` subclasses, nested serializers for
``full=True``, ``to_representation`` for ``dehydrate()``, ``select_related`` /
``prefetch_related`` querysets, the ``ApiKey`` header and the ``change`` permission
(Tastypie's read permission) where the Tastypie resource has ``ApiKeyAuthentication``
and ``DjangoAuthorization``.  Served at ``/api/tutorial-drf/``; the benchmark checks
their data equals ModelResource's before timing.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import permissions, routers, viewsets

from benchmarks.drf_variants import ReadNeedsChangePermission, TastypieApiKeyAuthentication
from example_project.showcase.api_drf import (
    RelativeIdentityField,
    RelativeLinkField,
    TastypieLikeSerializer,
    TastypiePagination,
)
from example_project.showcase.models import Entry

NAME = "tutorial-drf"
USER_FIELDS = ["date_joined", "first_name", "id", "last_login", "last_name", "username"]
ENTRY_FIELDS = ["body", "id", "pub_date", "slug", "title"]


class UserSerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-user-detail")

    class Meta:
        model = User
        fields = [*USER_FIELDS, "resource_uri"]


class EntrySerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-entry-detail")
    user = UserSerializer(read_only=True)

    class Meta:
        model = Entry
        fields = [*ENTRY_FIELDS, "resource_uri", "user"]

    def to_representation(self, instance: Entry) -> dict:
        data = super().to_representation(instance)
        data["word_count"] = len(instance.body.split())
        data["headline"] = instance.title.upper()
        return data


class PlainEntrySerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-plainentry-detail")

    class Meta:
        model = Entry
        fields = [*ENTRY_FIELDS, "resource_uri"]


class MyEntrySerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-myentry-detail")
    user = RelativeLinkField(view_name=f"{NAME}-user-detail", read_only=True)

    class Meta:
        model = Entry
        fields = [*ENTRY_FIELDS, "resource_uri", "user"]


class AuthorSerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-author-detail")
    entries = PlainEntrySerializer(source="entry_set", many=True, read_only=True)

    class Meta:
        model = User
        fields = [*USER_FIELDS, "entries", "resource_uri"]


def _viewset(serializer: type, queryset: Any, keyed: bool, per_user: bool = False) -> type:
    options: dict[str, Any] = {
        "queryset": queryset,
        "serializer_class": serializer,
        "pagination_class": TastypiePagination,
    }
    if keyed:
        options["authentication_classes"] = [TastypieApiKeyAuthentication]
        options["permission_classes"] = (
            [permissions.IsAuthenticated] if per_user else [ReadNeedsChangePermission]
        )
    if per_user:

        def get_queryset(self: Any) -> Any:
            return Entry.objects.filter(user=self.request.user)

        options["get_queryset"] = get_queryset
    return type(f"{serializer.__name__}ViewSet", (viewsets.ReadOnlyModelViewSet,), options)


router = routers.SimpleRouter()
for prefix, viewset in (
    ("user", _viewset(UserSerializer, User.objects.all(), keyed=False)),
    ("entry", _viewset(EntrySerializer, Entry.objects.select_related("user"), keyed=True)),
    ("plainentry", _viewset(PlainEntrySerializer, Entry.objects.all(), keyed=False)),
    ("myentry", _viewset(MyEntrySerializer, Entry.objects.all(), keyed=True, per_user=True)),
    ("author", _viewset(AuthorSerializer, User.objects.prefetch_related("entry_set"), keyed=True)),
):
    router.register(prefix, viewset, basename=f"{NAME}-{prefix}")
