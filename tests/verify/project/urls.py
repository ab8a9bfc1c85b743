"""The project's URLconf: its resources under ``/api/project/``."""

from django.urls import include, path
from tastypie.api import Api

from tests.verify.project import resources

api = Api(api_name="project")
for resource in (
    resources.ImprintResource,
    resources.PoetResource,
    resources.BiographyResource,
    resources.ThemeResource,
    resources.PoemResource,
    resources.ResponseResource,
    resources.DjonyResponseResource,
    resources.ShelfmarkResource,
    resources.PoemCountResource,
):
    api.register(resource())

urlpatterns = [path("api/", include(api.urls))]
