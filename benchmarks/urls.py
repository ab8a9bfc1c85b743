"""The example's URLs plus the benchmark's extra variants and the raw floors.

``urlpatterns`` holds everything; ``URLCONFS`` the patterns of each API alone,
which :class:`benchmarks.urlconfs.OneApiPerUrlconf` serves each request with.
"""

from django.urls import include, path
from tastypie.api import Api

from benchmarks import (
    drf_variants,
    raw,
    realshapes_apis,
    realshapes_drf,
    realshapes_raw,
    resources,
    tutorial_drf,
    tutorial_raw,
    variants,
)
from example_project.showcase import api_drf, api_v2, api_v3
from example_project.urls import urlpatterns as example_urls

TASTYPIE_APIS: list[Api] = [
    api_v2.api,
    api_v3.api,
    resources.prefetching,
    resources.drop_in,
    resources.prefetching_unlimited,
    resources.drop_in_unlimited,
    *variants.APIS.values(),
    *realshapes_apis.APIS,
]
DRF_ROUTERS = {
    "drf": api_drf.router,
    tutorial_drf.NAME: tutorial_drf.router,
    realshapes_drf.NAME: realshapes_drf.router,
} | {f"{variant}-drf": router for variant, router in drf_variants.ROUTERS.items()}


def _raw(variant: str) -> list:
    prefix = "raw/auth/user/" if variant == "plain" else f"raw/{variant}/auth/user/"
    extra = {"variant": variant}
    return [
        path(prefix, raw.user_list, extra),
        path(f"{prefix}<int:pk>/", raw.user_detail, extra),
    ]


TUTORIAL_RAW = [
    path("raw/tutorial/<str:resource>/", tutorial_raw.tutorial_list),
    path("raw/tutorial/<str:resource>/<int:pk>/", tutorial_raw.tutorial_detail),
]

SHAPES_RAW = [
    path("raw/shapes/<str:resource>/", realshapes_raw.shape_list),
    path("raw/shapes/<str:resource>/<str:key>/", realshapes_raw.shape_detail),
]

RAW_APIS = {"plain": api_v2.api} | {v: variants.APIS[(v, "v2")] for v in variants.VARIANTS}

URLCONFS: dict[tuple[str, str], list] = {
    **{("api", api.api_name): [path("api/", include(api.urls))] for api in TASTYPIE_APIS},
    **{
        ("api", name): [path(f"api/{name}/", include(router.urls))]
        for name, router in DRF_ROUTERS.items()
    },
    **{
        ("raw", "auth" if variant == "plain" else variant): [
            *_raw(variant),
            path("api/", include(api.urls)),
        ]
        for variant, api in RAW_APIS.items()
    },
    ("raw", "tutorial"): [*TUTORIAL_RAW, path("api/", include(api_v2.api.urls))],
    ("raw", "shapes"): [*SHAPES_RAW, path("api/", include(realshapes_apis.modelresource.urls))],
}

urlpatterns = [
    *example_urls,
    *(path("api/", include(api.urls)) for api in TASTYPIE_APIS[2:]),
    *(
        path(f"api/{name}/", include(router.urls))
        for name, router in DRF_ROUTERS.items()
        if name != "drf"
    ),
    *(pattern for variant in RAW_APIS for pattern in _raw(variant)),
    *TUTORIAL_RAW,
    *SHAPES_RAW,
]
