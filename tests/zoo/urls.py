"""The zoo's APIs: ``/zm/`` (ModelResource), ``/zf/`` (DjonyResource), ``/zg/`` (DjonyResource
without the fast path), each also under ``/ns/`` in a URL namespace of its own."""

from django.urls import include, path

from tests.zoo.api import KINDS, build_zoo_api

APIS = {api_name: build_zoo_api(api_name, kind) for api_name, kind in KINDS.items()}

urlpatterns: list = [path("", include(api.urls)) for api, _ in APIS.values()] + [
    path("ns/", include((namespaced.urls, "zoo"), namespace=f"zoo-{api_name}"))
    for api_name, (_, namespaced) in APIS.items()
]
