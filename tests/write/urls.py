"""URLs of the write tests: the write API of :mod:`tests.write.api`, mounted
once per spelling (``/v2/`` ModelResource, ``/v3/`` DjonyResource,
``/v3o/`` DjonyResource in the 2013 spelling).

Use with ``@override_settings(ROOT_URLCONF="tests.write.urls")``.
"""

from django.urls import include, path

from tests.write.api import APIS, build_write_api

urlpatterns: list = [
    path("", include(build_write_api(api_name, spelling).urls))
    for api_name, spelling in APIS.items()
]
