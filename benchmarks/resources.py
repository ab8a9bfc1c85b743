"""The benchmark's extra variants of the example API.

* ``v2p``: ``ModelResource`` with ``prefetch_related`` (the usual fix for
  ModelResource's query per object);
* ``v3q``: ``DjonyResource`` in the drop-in spelling (``Meta.queryset`` and
  stock ``ToManyField``), beside the example's 2013-spelling ``v3``.

``v2ps``/``v3qs`` are the same with Tastypie's ``max_limit`` (1000) lifted, so
that ``?limit=0`` returns every user in the scaling run.
"""

from django.contrib.auth.models import Permission, User
from tastypie.api import Api
from tastypie.fields import ToManyField
from tastypie.resources import ModelResource

from example_project.showcase.api_v2 import filter_everything
from tastypie_djony.resources import DjonyResource


def build(api_name: str, base: type, users: object, max_limit: int | None = 1000) -> Api:
    class PermissionResource(base):
        class Meta:
            queryset = Permission.objects.all()
            filtering = filter_everything(Permission)
            resource_name = "auth/permission"

    class UserResource(base):
        user_permissions = ToManyField(
            PermissionResource, "user_permissions", related_name="user_set", null=True
        )

        class Meta:
            queryset = users
            filtering = filter_everything(User)
            resource_name = "auth/user"

    UserResource._meta.max_limit = max_limit

    api = Api(api_name=api_name)
    api.register(PermissionResource())
    api.register(UserResource())
    return api


prefetching = build("v2p", ModelResource, User.objects.prefetch_related("user_permissions"))
drop_in = build("v3q", DjonyResource, User.objects.all())
prefetching_unlimited = build(
    "v2ps", ModelResource, User.objects.prefetch_related("user_permissions"), None
)
drop_in_unlimited = build("v3qs", DjonyResource, User.objects.all(), None)
