"""DjonyResource APIs of the tenant app used only by tests/test_kept_state.py: resource
instances no other test has served, so what they keep is what that module's requests made."""

from django.urls import include, path

from tastypie_djony.resources import DjonyResource
from tests.tenants.api import build_api

NAMES = ("tenants/kept", "tenants/pa", "tenants/pb")
APIS = {name: build_api(name, DjonyResource) for name in NAMES}

urlpatterns = [path("", include(api.urls)) for api in APIS.values()]
