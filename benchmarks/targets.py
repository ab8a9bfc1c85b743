"""Where each variant is served, in each flavour, and how its answers are compared.

A *target* is one (variant, flavour) pair: ``("hooked", "v3")`` is the hooked
user resource on DjonyResource.  Flavours: ``v2`` ModelResource, ``v2p``
ModelResource + the variant's ``prefetch_related``, ``v3`` DjonyResource, ``drf``
DRF ModelSerializer + prefetch, ``raw`` the hand-written SQL floor.  The plain
variant is the example's API (its v3 is the drop-in spelling, ``/api/v3q/``, as
the variants are written).

:func:`check_variant` asserts, before anything is timed, that every flavour
answers 200 and that the Tastypie flavours and the raw floor return the bytes
of ``v2`` once each API's own URL prefix is replaced by a common one; DRF
writes JSON in another key order, so its *data* must be equal instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tastypie_djony.verify.differences import byte_difference, decode_json, json_difference

VARIANTS = ("hooked", "field", "both", "full", "related")  # built in benchmarks.variants
ALL_VARIANTS = ("plain", *VARIANTS)
FLAVOURS = ("v2", "v2p", "v3", "drf", "raw")
ENDPOINTS = {
    "list": "auth/user/?format=json&limit={limit}",
    "detail": "auth/user/3/?format=json",
    "page": "auth/user/?format=json",  # Tastypie's default page: 20 users, a next link
}
#: The raw floor's query for an endpoint (it writes the page ``meta`` Tastypie writes).
RAW_QUERIES = {"page": "?format=json&limit=20"}
PLAIN_PREFIXES = {
    "v2": "/api/v2/",
    "v2p": "/api/v2p/",
    "v3": "/api/v3q/",
    "drf": "/api/drf/",
    "raw": "/api/v2/",
}
COMMON_PREFIX = b"/api/<api>/"


class NotIdentical(Exception):
    """A flavour's answer differs from ModelResource's: nothing is timed."""


@dataclass(frozen=True)
class Target:
    variant: str
    flavour: str

    @property
    def prefix(self) -> str:
        """The URL prefix of the API's own links (the raw floor writes v2's)."""
        if self.variant == "plain":
            return PLAIN_PREFIXES[self.flavour]
        flavour = "v2" if self.flavour == "raw" else self.flavour
        return f"/api/{self.variant}-{flavour}/"

    def url(self, endpoint: str, limit: int = 0) -> str:
        path = ENDPOINTS[endpoint].format(limit=limit)
        if self.flavour != "raw":
            return self.prefix + path
        path = path.split("?")[0] + RAW_QUERIES.get(endpoint, "")
        return f"/raw/{path}" if self.variant == "plain" else f"/raw/{self.variant}/{path}"

    def label(self) -> str:
        return f"{self.variant}/{self.flavour}"


def credentials(variant: str) -> dict[str, str]:
    """Request headers for ``variant``: the demo superuser's ``ApiKey`` for ``full``."""
    if variant != "full":
        return {}
    from example_project.showcase import seeding

    username, key = seeding.demo_api_key()
    return {"HTTP_AUTHORIZATION": f"ApiKey {username}:{key}"}


def get(client: Any, target: Target, endpoint: str, limit: int = 0) -> Any:
    """One request of ``target`` through Django's test client."""
    return client.get(target.url(endpoint, limit), **credentials(target.variant))


def check_variant(client: Any, variant: str, endpoint: str, flavours: tuple[str, ...]) -> int:
    """Raise :class:`NotIdentical` unless every flavour of ``variant`` answers as v2 does;
    return the length of v2's body."""
    reference = Target(variant, "v2")
    response = get(client, reference, endpoint)
    if response.status_code != 200:
        raise NotIdentical(f"{reference.label()} {endpoint}: HTTP {response.status_code}")
    expected = response.content.replace(reference.prefix.encode(), COMMON_PREFIX)
    for flavour in flavours:
        target = Target(variant, flavour)
        if flavour == "v2":
            continue
        answer = get(client, target, endpoint)
        if answer.status_code != 200:
            raise NotIdentical(
                f"{target.label()} {endpoint}: HTTP {answer.status_code} "
                f"{answer.content[:300]!r}; not benchmarking a failure"
            )
        body = answer.content.replace(target.prefix.encode(), COMMON_PREFIX)
        if flavour == "drf":
            where = json_difference(decode_json(expected), decode_json(body))
            if where is not None:
                raise NotIdentical(
                    f"{target.label()} {endpoint}: data differs from v2's at {where}"
                )
        elif body != expected:
            raise NotIdentical(
                f"{target.label()} {endpoint}: body differs from v2's: "
                + byte_difference(expected, body, context=120, labels=("v2", flavour))
            )
    return len(response.content)
