"""Throttles: ``throttle_check`` and ``log_throttled_access`` answer as on ModelResource.

Both steps are skipped only where they do nothing (Tastypie's ``BaseThrottle`` and an
authentication whose identifier is Tastypie's own: ``stock.inert_throttle``).  Each test
sends the same requests to a ModelResource and its DjonyResource twin: a throttle that
throttles answers 429 at the same request with the same headers, and a project's
``get_identifier`` or throttle is called as often as on ModelResource.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.test import RequestFactory
from tastypie import throttle as throttle_module
from tastypie.authentication import (
    ApiKeyAuthentication,
    Authentication,
    BasicAuthentication,
    MultiAuthentication,
)
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource
from tastypie.throttle import BaseThrottle, CacheThrottle

from tastypie_djony.resources import DjonyResource
from tastypie_djony.stock import inert_throttle
from tests.testapp.models import Tag

pytestmark = pytest.mark.django_db


def _twins(throttle, authentication=None):
    def resource(base):
        class Meta:
            queryset = Tag.objects.all()
            resource_name = "tag"
            authorization = Authorization()

        Meta.throttle = throttle()
        Meta.authentication = (authentication or Authentication)()
        return type(f"Tag{base.__name__}", (base,), {"Meta": Meta})()

    return resource(ModelResource), resource(DjonyResource)


def _answers(resource, requests: int) -> list[tuple]:
    cache.clear()
    found = []
    for _ in range(requests):
        view = resource.wrap_view("dispatch_list")
        response = view(RequestFactory().get("/", {"format": "json"}))
        found.append((response.status_code, response.get("Retry-After"), response.content))
    return found


@pytest.fixture
def tags(db):
    for name in ("sf", "art"):
        Tag.objects.create(name=name)


def test_a_throttle_that_throttles_answers_429_at_the_same_request(tags, monkeypatch):
    # CacheThrottle's Retry-After counts whole seconds since the first access: one clock
    # for both runs, or a run that crosses a second boundary answers 59 where the other 60.
    monkeypatch.setattr(throttle_module, "time", SimpleNamespace(time=lambda: 1_700_000_000.5))
    reference, switched = _twins(lambda: CacheThrottle(throttle_at=2, timeframe=60))
    assert not inert_throttle(switched)
    expected = _answers(reference, 4)
    assert [status for status, *_ in expected] == [200, 200, 429, 429]
    assert _answers(switched, 4) == expected


def test_a_project_s_throttle_and_identifier_are_asked_as_often(tags):
    calls: list[str] = []

    class CountingThrottle(BaseThrottle):
        def should_be_throttled(self, identifier, **kwargs):
            calls.append(f"check {identifier}")
            return False

    class NamedAuthentication(Authentication):
        def get_identifier(self, request):
            calls.append("identifier")
            return "named"

    for throttle, authentication in (
        (CountingThrottle, None),
        (BaseThrottle, NamedAuthentication),
        (BaseThrottle, lambda: MultiAuthentication(NamedAuthentication())),
    ):
        reference, switched = _twins(throttle, authentication)
        assert not inert_throttle(switched)
        counts = []
        for resource in (reference, switched):
            calls.clear()
            answers = _answers(resource, 2)
            counts.append((list(calls), answers))
        assert counts[0][0]  # the project's code was asked
        assert counts[1] == counts[0]


def test_an_instance_s_own_step_is_kept():
    throttle = BaseThrottle()
    throttle.should_be_throttled = lambda identifier, **kwargs: 30
    reference, switched = _twins(lambda: throttle)
    assert not inert_throttle(switched)
    assert _answers(switched, 1) == _answers(reference, 1)
    assert _answers(switched, 1)[0][:2] == (429, "30")


@pytest.mark.parametrize(
    "authentication",
    [
        Authentication,
        ApiKeyAuthentication,
        lambda: MultiAuthentication(BasicAuthentication(), ApiKeyAuthentication()),
    ],
    ids=["Authentication", "ApiKeyAuthentication", "MultiAuthentication"],
)
def test_the_default_throttle_with_tastypie_s_authentication_is_skipped(tags, authentication):
    reference, switched = _twins(BaseThrottle, authentication)
    assert inert_throttle(switched)
    assert _answers(switched, 2) == _answers(reference, 2)
