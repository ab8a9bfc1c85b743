"""The example project's URLs plus ``/api/w3/``: a writable DjonyResource
API over ``django.contrib.auth`` users (the example's v3 API is read-only,
Tastypie's default authorization), for the reliability scripts only."""

from django.contrib.auth.models import Permission, User
from django.urls import include, path
from tastypie.api import Api
from tastypie.authorization import Authorization, ReadOnlyAuthorization
from tastypie.constants import ALL

from example_project.urls import urlpatterns as example_urlpatterns
from tastypie_djony.fields import SetField
from tastypie_djony.resources import DjonyResource


class PermissionResource(DjonyResource):
    class Meta:
        object_model = Permission
        resource_name = "auth/permission"
        authorization = ReadOnlyAuthorization()


class WritableUserResource(DjonyResource):
    user_permissions = SetField(PermissionResource, "user_permissions", null=True)

    class Meta:
        object_model = User
        resource_name = "auth/user"
        excludes = ["password"]
        authorization = Authorization()
        always_return_data = True
        filtering = {"username": ALL, "id": ALL}


api = Api(api_name="w3")
api.register(PermissionResource())
api.register(WritableUserResource())

urlpatterns = [*example_urlpatterns, path("api/", include(api.urls))]
