"""URLs of the third-party APIs, included under ``thirdparty/`` by :mod:`tests.urls`."""

from django.urls import include, path

from tests.thirdparty.api import APIS

urlpatterns: list = [path("", include(api.urls)) for api in APIS.values()]
