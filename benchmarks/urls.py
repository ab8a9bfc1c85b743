"""The example's URLs plus the benchmark's extra variants and the raw floor."""

from django.urls import include, path

from benchmarks import raw, resources
from example_project.urls import urlpatterns as example_urls

urlpatterns = [
    *example_urls,
    path("api/", include(resources.prefetching.urls)),
    path("api/", include(resources.drop_in.urls)),
    path("api/", include(resources.prefetching_unlimited.urls)),
    path("api/", include(resources.drop_in_unlimited.urls)),
    path("raw/auth/user/", raw.user_list),
    path("raw/auth/user/<int:pk>/", raw.user_detail),
]
