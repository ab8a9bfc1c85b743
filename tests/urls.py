"""URLs of the test suite.

The differential API is mounted three times, once per spelling of
:func:`tests.api.build_api`: ``/v2/`` (ModelResource, the reference),
``/v3/`` (DjonyResource as a drop-in) and ``/v3o/`` (DjonyResource in the 2013
spelling).
"""

from django.urls import include, path

from tests.api import build_api

APIS = {
    api_name: build_api(api_name, spelling)
    for api_name, spelling in {"v2": "model", "v3": "djony", "v3o": "djony2013"}.items()
}

urlpatterns: list = [path("", include(api.urls)) for api in APIS.values()]
urlpatterns.append(path("", include("tests.zoo.urls")))
# A page for tests.instances.Writer.get_absolute_url (never requested).
urlpatterns.append(path("writers/<int:pk>/", lambda request, pk: None, name="writer-page"))
urlpatterns.append(path("patterns/", include("tests.patterns.urls")))
urlpatterns.append(path("thirdparty/", include("tests.thirdparty.urls")))
