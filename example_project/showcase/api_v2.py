"""API v2: stock Tastypie ``ModelResource`` over ``django.contrib.auth``.

The resources of the article, in today's spelling
(``_meta.get_fields()`` instead of ``get_all_field_names()``).  No
authentication and read-only authorization (Tastypie's defaults), so the
benchmark measures the ORM and serialisation only.
"""

from django.contrib.auth.models import Permission, User
from tastypie.api import Api
from tastypie.constants import ALL_WITH_RELATIONS
from tastypie.fields import ToManyField
from tastypie.resources import ModelResource


def filter_everything(model: type) -> dict[str, int]:
    """``Meta.filtering`` allowing every lookup on every field of ``model``."""
    return {field.name: ALL_WITH_RELATIONS for field in model._meta.get_fields()}


class PermissionResource(ModelResource):
    class Meta:
        queryset = Permission.objects.all()
        filtering = filter_everything(Permission)
        resource_name = "auth/permission"


class UserResource(ModelResource):
    user_permissions = ToManyField(
        PermissionResource, "user_permissions", related_name="user_set", null=True
    )

    class Meta:
        queryset = User.objects.all()
        filtering = filter_everything(User)
        resource_name = "auth/user"


api = Api(api_name="v2")
api.register(PermissionResource())
api.register(UserResource())
