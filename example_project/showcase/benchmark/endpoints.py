"""The three APIs and the endpoints ``compare`` measures on each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Api:
    key: str  # "v2", "v3", "drf"
    prefix: str  # "/api/v2/"
    label: str  # what it is, for tables and charts


@dataclass(frozen=True)
class Endpoint:
    name: str  # "user-detail"
    path: str  # below the API prefix: "auth/user/3/?format=json"
    default_requests: int = 100  # ab -n of the article (20 for the full user list)

    def url(self, api: Api) -> str:
        return api.prefix + self.path


V2 = Api("v2", "/api/v2/", "Tastypie ModelResource")
V3 = Api("v3", "/api/v3/", "DjonyResource")
DRF = Api("drf", "/api/drf/", "DRF ModelSerializer")
APIS = (V2, V3, DRF)
APIS_BY_KEY = {api.key: api for api in APIS}

ENDPOINTS = (
    Endpoint("user-detail", "auth/user/3/?format=json"),
    Endpoint("user-list", "auth/user/?format=json&limit=0", default_requests=20),
    Endpoint("permission-list", "auth/permission/?format=json&limit=0"),
)
ENDPOINTS_BY_NAME = {endpoint.name: endpoint for endpoint in ENDPOINTS}

PING = "/ping/"
