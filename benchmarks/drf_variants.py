"""DRF twins of :mod:`benchmarks.variants`, written the way a DRF user would.

``ModelSerializer`` subclasses of the example's DRF API
(:mod:`example_project.showcase.api_drf`), each on the prefetching queryset of
its variant: ``to_representation`` stands for ``dehydrate()``, a
``SerializerMethodField`` for ``dehydrate_<field>``, nested serializers for
``full=True``; the ``full`` twin authenticates the same ``ApiKey`` header and
needs the same ``auth.change_user`` permission (Tastypie's read permission).
Served at ``/api/<variant>-drf/``; its JSON carries the same data as the
Tastypie variants' (checked before timing), in DRF's key order.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from rest_framework import authentication, exceptions, permissions, routers, serializers, viewsets

from benchmarks.variants import VARIANTS, prefetched_users
from example_project.showcase.api_drf import (
    RelativeIdentityField,
    RelativeLinkField,
    TastypieLikeSerializer,
    TastypiePagination,
)

USER_FIELDS = [
    "date_joined", "email", "first_name", "id", "is_active", "is_staff", "is_superuser",
    "last_login", "last_name", "password", "resource_uri", "user_permissions", "username",
]  # fmt: skip


class TastypieApiKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: ApiKey <username>:<key>``, checked as Tastypie's
    ``ApiKeyAuthentication`` checks it (one query: the user with its key)."""

    def authenticate(self, request: Any) -> tuple[User, None] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        kind, _, credentials = header.partition(" ")
        if kind.lower() != "apikey" or ":" not in credentials:
            return None
        username, key = credentials.split(":", 1)
        user = User.objects.select_related("api_key").filter(username=username).first()
        if user is None or not user.is_active or getattr(user, "api_key", None) is None:
            raise exceptions.AuthenticationFailed()
        if user.api_key.key != key:
            raise exceptions.AuthenticationFailed()
        return user, None


class ReadNeedsChangePermission(permissions.DjangoModelPermissions):
    """Reading needs ``<app>.change_<model>``, as Tastypie's ``DjangoAuthorization``."""

    perms_map = {
        **permissions.DjangoModelPermissions.perms_map,
        "GET": ["%(app_label)s.change_%(model_name)s"],
    }


def build_router(variant: str) -> routers.SimpleRouter:
    """The ``<variant>-drf`` API's router (its URL names start with ``<variant>-drf-``)."""
    name = f"{variant}-drf"
    full = variant == "full"

    class ContentTypeSerializer(TastypieLikeSerializer):
        resource_uri = RelativeIdentityField(view_name=f"{name}-contenttype-detail")

        class Meta:
            model = ContentType
            fields = ["app_label", "id", "model", "resource_uri"]

    class GroupSerializer(TastypieLikeSerializer):
        resource_uri = RelativeIdentityField(view_name=f"{name}-group-detail")

        class Meta:
            model = Group
            fields = ["id", "name", "resource_uri"]

    class PermissionSerializer(TastypieLikeSerializer):
        resource_uri = RelativeIdentityField(view_name=f"{name}-permission-detail")
        if full:
            content_type = ContentTypeSerializer()

        class Meta:
            model = Permission
            fields = ["codename", "id", "name", "resource_uri"] + (["content_type"] if full else [])

    class UserSerializer(TastypieLikeSerializer):
        resource_uri = RelativeIdentityField(view_name=f"{name}-user-detail")
        if full:
            user_permissions = PermissionSerializer(many=True, read_only=True)
            groups = GroupSerializer(many=True, read_only=True)
        else:
            user_permissions = RelativeLinkField(
                view_name=f"{name}-permission-detail", many=True, read_only=True
            )
        if variant in ("field", "both"):
            username = serializers.SerializerMethodField()

            def get_username(self, user: User) -> str:
                return user.username.upper()

        if variant in ("hooked", "both"):

            def to_representation(self, instance: User) -> dict:
                return super().to_representation(instance)

        if variant == "related":

            def to_representation(self, instance: User) -> dict:
                data = super().to_representation(instance)
                data["permission_names"] = [
                    f"{permission.content_type.app_label}.{permission.codename}"
                    for permission in instance.user_permissions.all()
                ]
                data["permission_count"] = instance.user_permissions.count()
                data["in_a_group"] = instance.groups.exists()
                return data

        class Meta:
            model = User
            fields = USER_FIELDS + (["groups"] if full else [])

    def viewset(model: type, serializer: type, queryset: Any) -> type:
        options: dict[str, Any] = {
            "queryset": queryset,
            "serializer_class": serializer,
            "pagination_class": TastypiePagination,
        }
        if full:
            options["authentication_classes"] = [TastypieApiKeyAuthentication]
            options["permission_classes"] = [ReadNeedsChangePermission]
        return type(f"{model.__name__}ViewSet", (viewsets.ReadOnlyModelViewSet,), options)

    router = routers.SimpleRouter()
    for prefix, model, serializer, queryset in (
        ("contenttypes/contenttype", ContentType, ContentTypeSerializer, ContentType.objects.all()),
        ("auth/group", Group, GroupSerializer, Group.objects.all()),
        ("auth/permission", Permission, PermissionSerializer, Permission.objects.all()),
        ("auth/user", User, UserSerializer, prefetched_users(variant)),
    ):
        basename = f"{name}-{model._meta.model_name}"
        router.register(prefix, viewset(model, serializer, queryset), basename=basename)
    return router


ROUTERS = {variant: build_router(variant) for variant in VARIANTS}
