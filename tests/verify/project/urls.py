"""The project's URLconf: its resources under ``/api/project/``."""

from django.urls import include, path
from tastypie.api import Api

from tests.verify.project import resources

api = Api(api_name="project")
for resource in (
    resources.PublisherResource,
    resources.WriterResource,
    resources.ProfileResource,
    resources.GenreResource,
    resources.StoryResource,
    resources.ReactionResource,
    resources.DjonyReactionResource,
    resources.ShelfmarkResource,
    resources.StoryCountResource,
):
    api.register(resource())

urlpatterns = [path("api/", include(api.urls))]
