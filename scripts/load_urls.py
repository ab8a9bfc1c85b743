"""The example project's URLs plus ``/api/w3/``: the example's v3 API with writes
open to anyone (no API key), for the reliability scripts only, which run on a
database of their own."""

from django.urls import include, path

from example_project.showcase.apis import build_api
from example_project.urls import urlpatterns as example_urlpatterns
from tastypie_djony.resources import DjonyResource

api = build_api("w3", DjonyResource, spelling="2013", open_writes=True)

urlpatterns = [*example_urlpatterns, path("api/", include(api.urls))]
