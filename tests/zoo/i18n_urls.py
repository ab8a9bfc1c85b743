"""The zoo's APIs under ``i18n_patterns`` (``/en/zf/...``, ``/de/zf/...``), the same resource
instances answering in every language."""

from django.conf.urls.i18n import i18n_patterns
from django.urls import include, path

from tests.zoo.urls import APIS

urlpatterns: list = i18n_patterns(*[path("", include(api.urls)) for api, _ in APIS.values()])
