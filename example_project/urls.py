"""URLs: ``/api/v2/`` (ModelResource), ``/api/v3/`` (DjonyResource),
``/api/drf/`` (DRF), ``/ping/`` (trivial view) and ``/`` (index)."""

from django.urls import include, path

from example_project.showcase import api_drf, api_v2, api_v3, views

urlpatterns = [
    path("", views.index),
    path("ping/", views.ping),
    path("api/", include(api_v2.api.urls)),
    path("api/", include(api_v3.api.urls)),
    path("api/drf/", include(api_drf.router.urls)),
]
