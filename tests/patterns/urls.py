"""URLs of the corpus, included under ``patterns/`` by :mod:`tests.urls`."""

from django.urls import include, path

from tests.patterns.api import APIS

urlpatterns: list = [path("", include(api.urls)) for api in APIS.values()]
