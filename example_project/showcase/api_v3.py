"""API v3: the same resources on ``DjonyResource``, in the 2013 spelling.

Compared with :mod:`.api_v2` only the base class changes, plus the two
spellings the 2013 code used and that keep working: ``Meta.object_model``
instead of ``Meta.queryset`` and ``SetField`` instead of ``ToManyField``.
"""

from django.contrib.auth.models import Permission, User
from tastypie.api import Api

from example_project.showcase.api_v2 import filter_everything
from tastypie_djony.fields import SetField
from tastypie_djony.resources import DjonyResource


class PermissionResource(DjonyResource):
    class Meta:
        object_model = Permission
        filtering = filter_everything(Permission)
        resource_name = "auth/permission"


class UserResource(DjonyResource):
    user_permissions = SetField(
        PermissionResource, "user_permissions", related_name="user_set", null=True
    )

    class Meta:
        object_model = User
        filtering = filter_everything(User)
        resource_name = "auth/user"


api = Api(api_name="v3")
api.register(PermissionResource())
api.register(UserResource())
