"""The user list as real resources write it: hooks, ``full=True``, authorization.

The example's user resource (:mod:`example_project.showcase.apis`) is the plain
case, which DjonyResource serves on its row-built fast path.  Real resources
nearly always have a hook, so issue 12 measures these variants beside it:

* ``hooked``: a no-op ``dehydrate()``;
* ``field``: ``dehydrate_username()`` returning the username upper-cased;
* ``both``: the two hooks together;
* ``full``: ``user_permissions`` and ``groups`` nested with ``full=True``
  (to-many), each permission's ``content_type`` nested too (to-one), behind
  ``ApiKeyAuthentication`` and ``DjangoAuthorization`` (the request's user is the
  demo superuser, user 1);
* ``related``: a ``dehydrate()`` that reads related data through the object
  (``user_permissions.all()`` and each permission's ``content_type``,
  ``user_permissions.count()``, ``groups.exists()``).

Each is built in three Tastypie flavours from one class body, so the base class
and the queryset are all that differ: ``v2`` ``ModelResource`` on
``User.objects.all()``, ``v2p`` ``ModelResource`` with the ``prefetch_related`` a
careful user writes for that variant, ``v3`` ``DjonyResource`` on
``User.objects.all()`` (it is meant to need no prefetch).  Their DRF twins are in
:mod:`benchmarks.drf_variants`, their raw-SQL floors in :mod:`benchmarks.raw`.
An API is named ``<variant>-<flavour>`` and served at ``/api/<variant>-<flavour>/``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db.models import Prefetch, QuerySet
from tastypie.api import Api
from tastypie.authentication import ApiKeyAuthentication
from tastypie.authorization import DjangoAuthorization
from tastypie.bundle import Bundle
from tastypie.fields import ToManyField, ToOneField
from tastypie.resources import ModelResource

from benchmarks.targets import VARIANTS
from example_project.showcase.apis import (
    PERMISSION_ORDERING,
    USER_ORDERING,
    ReadsOpenWritesByPermission,
    ReadsOpenWritesWithApiKey,
    filter_everything,
)
from tastypie_djony.resources import DjonyResource

TASTYPIE_FLAVOURS = ("v2", "v2p", "v3")
BASES = {"v2": ModelResource, "v2p": ModelResource, "v3": DjonyResource}


class NoOpDehydrate:
    """A ``dehydrate()`` that changes nothing: the hook nearly every real resource has."""

    def dehydrate(self, bundle: Bundle) -> Bundle:
        return bundle


class UpperUsername:
    """A cheap per-field hook: the username, upper-cased."""

    def dehydrate_username(self, bundle: Bundle) -> str:
        return bundle.data["username"].upper()


class ReadsRelations:
    """A ``dehydrate()`` that reads related rows through ``bundle.obj``.

    ModelResource runs queries per object here unless the queryset prefetches
    ``user_permissions`` (with their content types) and ``groups``.
    """

    def dehydrate(self, bundle: Bundle) -> Bundle:
        user = bundle.obj
        bundle.data["permission_names"] = [
            f"{permission.content_type.app_label}.{permission.codename}"
            for permission in user.user_permissions.all()
        ]
        bundle.data["permission_count"] = user.user_permissions.count()
        bundle.data["in_a_group"] = user.groups.exists()
        return bundle


HOOKS: dict[str, tuple[type, ...]] = {
    "plain": (),
    "hooked": (NoOpDehydrate,),
    "field": (UpperUsername,),
    "both": (UpperUsername, NoOpDehydrate),
    "full": (),
    "related": (ReadsRelations,),
}


def prefetched_users(variant: str) -> QuerySet:
    """The users queryset a careful ModelResource (or DRF) author writes for ``variant``."""
    if variant in ("full", "related"):
        permissions = Permission.objects.select_related("content_type")
        return User.objects.prefetch_related(
            Prefetch("user_permissions", queryset=permissions), "groups"
        )
    return User.objects.prefetch_related("user_permissions")


def _meta(model: type, resource_name: str, ordering: list[str], queryset: Any, full: bool) -> type:
    options: dict[str, Any] = {
        "queryset": queryset,
        "resource_name": resource_name,
        "filtering": filter_everything(model),
        "ordering": ordering,
        "always_return_data": True,
    }
    if full:
        options["authentication"] = ApiKeyAuthentication()
        options["authorization"] = DjangoAuthorization()
    else:
        options["authentication"] = ReadsOpenWritesWithApiKey()
        options["authorization"] = ReadsOpenWritesByPermission()
    return type("Meta", (), options)


def build_variant_api(variant: str, flavour: str) -> Api:
    """The ``<variant>-<flavour>`` API: ``auth/user`` and what it links to."""
    if variant not in HOOKS or flavour not in BASES:
        raise ValueError(f"unknown variant {variant!r} or flavour {flavour!r}")
    base = BASES[flavour]
    full = variant == "full"
    users = prefetched_users(variant) if flavour == "v2p" else User.objects.all()

    class ContentTypeResource(base):
        Meta = _meta(
            ContentType,
            "contenttypes/contenttype",
            ["id", "app_label", "model"],
            ContentType.objects.all(),
            full,
        )

    class GroupResource(base):
        Meta = _meta(Group, "auth/group", ["id", "name"], Group.objects.all(), full)

    class PermissionResource(base):
        if full:
            content_type = ToOneField(ContentTypeResource, "content_type", full=True)
        Meta = _meta(
            Permission, "auth/permission", PERMISSION_ORDERING, Permission.objects.all(), full
        )

    class UserResource(*HOOKS[variant], base):
        user_permissions = ToManyField(
            PermissionResource, "user_permissions", related_name="user_set", null=True, full=full
        )
        if full:
            groups = ToManyField(GroupResource, "groups", related_name="user_set", full=True)
        Meta = _meta(User, "auth/user", USER_ORDERING, users, full)

    api = Api(api_name=f"{variant}-{flavour}")
    for resource in (ContentTypeResource, GroupResource, PermissionResource, UserResource):
        api.register(resource())
    return api


APIS = {
    (variant, flavour): build_variant_api(variant, flavour)
    for variant in VARIANTS
    for flavour in TASTYPIE_FLAVOURS
}
