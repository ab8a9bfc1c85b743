"""The example's user and permission API, written once for every base class.

``build_api("v2", ModelResource)`` is the article's stock Tastypie API and
``build_api("v3", DjonyResource, spelling="2013")`` the same resources on
djony: the class bodies below are shared, so the base class (and, for the
2013 spelling, ``Meta.object_model`` and ``SetField``) is really all that
differs.  The benchmarks (``benchmarks/resources.py``) and the reliability
scripts (``scripts/load_urls.py``) build their variants here too.

Anyone may read (the benchmark measures the ORM and serialisation, nothing
else); writes need an API key (``Authorization: ApiKey <username>:<key>``,
``manage.py seed`` prints the demo user's) and the Django permission of the
write (``auth.add_user``, ``auth.change_user``, ``auth.delete_user`` ...).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Permission, User
from django.db.models import QuerySet
from tastypie.api import Api
from tastypie.authentication import ApiKeyAuthentication, Authentication
from tastypie.authorization import Authorization, DjangoAuthorization
from tastypie.constants import ALL_WITH_RELATIONS
from tastypie.fields import ToManyField

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

USER_ORDERING = [
    "id", "username", "first_name", "last_name", "email", "date_joined", "last_login",
]  # fmt: skip
PERMISSION_ORDERING = ["id", "name", "codename"]


def filter_everything(model: type) -> dict[str, int]:
    """``Meta.filtering`` allowing every lookup on every field of ``model``."""
    return {field.name: ALL_WITH_RELATIONS for field in model._meta.get_fields()}


class ReadsOpenWritesWithApiKey(ApiKeyAuthentication):
    """Anyone may read; a write needs ``Authorization: ApiKey <username>:<key>``."""

    def is_authenticated(self, request: Any, **kwargs: Any) -> Any:
        if request.method in SAFE_METHODS:
            return True
        return super().is_authenticated(request, **kwargs)


class ReadsOpenWritesByPermission(DjangoAuthorization):
    """Anyone may read; a write needs the model's Django permission for it."""

    def read_list(self, object_list: Any, bundle: Any) -> Any:
        return object_list

    def read_detail(self, object_list: Any, bundle: Any) -> bool:
        return True


def build_api(
    api_name: str,
    base: type,
    *,
    spelling: str = "queryset",
    users: QuerySet | None = None,
    max_limit: int | None = 1000,
    open_writes: bool = False,
) -> Api:
    """An ``Api`` named ``api_name`` with ``auth/user`` and ``auth/permission`` on ``base``.

    ``spelling="2013"`` writes ``Meta.object_model`` and ``SetField`` (DjonyResource
    only); ``users`` replaces ``User.objects.all()`` (e.g. with ``prefetch_related``);
    ``max_limit=None`` lets ``?limit=0`` return every row; ``open_writes`` lets anyone
    write (the reliability scripts' load, on a database of their own).
    """
    if spelling not in ("queryset", "2013"):
        raise ValueError(f"spelling {spelling!r}: 'queryset' or '2013'")
    many: type = ToManyField
    if spelling == "2013":
        from tastypie_djony.fields import SetField

        many = SetField

    def meta(model: type, resource_name: str, ordering: list[str], queryset: Any = None) -> type:
        options: dict[str, Any] = {
            "filtering": filter_everything(model),
            "ordering": ordering,
            "resource_name": resource_name,
            "always_return_data": True,
        }
        if spelling == "2013" and queryset is None:
            options["object_model"] = model
        else:
            options["queryset"] = queryset if queryset is not None else model.objects.all()
        if open_writes:
            options["authentication"] = Authentication()
            options["authorization"] = Authorization()
        else:
            options["authentication"] = ReadsOpenWritesWithApiKey()
            options["authorization"] = ReadsOpenWritesByPermission()
        return type("Meta", (), options)

    class PermissionResource(base):
        Meta = meta(Permission, "auth/permission", PERMISSION_ORDERING)

    class UserResource(base):
        user_permissions = many(
            PermissionResource, "user_permissions", related_name="user_set", null=True
        )
        Meta = meta(User, "auth/user", USER_ORDERING, users)

    UserResource._meta.max_limit = max_limit
    api = Api(api_name=api_name)
    api.register(PermissionResource())
    api.register(UserResource())
    return api
