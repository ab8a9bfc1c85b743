"""The example's URLs plus the benchmark's extra variants and the raw floors."""

from django.urls import include, path

from benchmarks import drf_variants, raw, resources, variants
from example_project.urls import urlpatterns as example_urls

urlpatterns = [
    *example_urls,
    path("api/", include(resources.prefetching.urls)),
    path("api/", include(resources.drop_in.urls)),
    path("api/", include(resources.prefetching_unlimited.urls)),
    path("api/", include(resources.drop_in_unlimited.urls)),
    path("raw/auth/user/", raw.user_list),
    path("raw/auth/user/<int:pk>/", raw.user_detail),
    *(path("api/", include(api.urls)) for api in variants.APIS.values()),
    *(
        path(f"api/{variant}-drf/", include(router.urls))
        for variant, router in drf_variants.ROUTERS.items()
    ),
    *(
        path(f"raw/{variant}/auth/user/", raw.user_list, {"variant": variant})
        for variant in variants.VARIANTS
    ),
    *(
        path(f"raw/{variant}/auth/user/<int:pk>/", raw.user_detail, {"variant": variant})
        for variant in variants.VARIANTS
    ),
]
