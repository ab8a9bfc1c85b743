"""The tenant app's two APIs (ModelResource and DjonyResource), for ``ROOT_URLCONF``."""

from django.urls import include, path

from tests.tenants.api import APIS

urlpatterns = [path("", include(api.urls)) for api in APIS.values()]
