"""Corpus: resource methods called outside a request, as in
Tastypie's cookbook ("Using your resource in regular views") and users' own
tests: ``build_bundle``, ``obj_get``, ``obj_get_list``, ``cached_obj_get``,
``full_dehydrate``, ``obj_create``, ``obj_update``, ``obj_delete``,
``get_via_uri``.  Each runs on the v2 resource (ModelResource) and on its v3
twin from the same rows; the dehydrated data (prefix normalised) and the rows
afterwards must be the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import RequestFactory
from tastypie.bundle import Bundle

from tests.patterns import testing
from tests.patterns.api import APIS

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")


def resource(api: str, name: str):
    return APIS[api].canonical_resource_for(name)


def plain(value, api: str):
    """JSON-able data with the API prefix replaced."""
    text = json.dumps(value, default=str, sort_keys=True)
    return json.loads(text.replace(f"/patterns/{api}/", "/API/"))


def request():
    req = RequestFactory().get("/")
    req.user = User.objects.get(username="alice")
    return req


def both(operation: Callable[[object, str], object]) -> None:
    """``operation(resource_getter, api)`` on v2 then v3: same result, same rows."""
    results, rows = {}, {}
    for api in ("v2", "v3"):
        testing.reset()
        results[api] = plain(operation(lambda name, api=api: resource(api, name), api), api)
        rows[api] = plain(testing.snapshot(), api)
    assert results["v3"] == results["v2"], f"v3: {results['v3']}\nv2: {results['v2']}"
    assert rows["v3"] == rows["v2"]


def dehydrated(res, obj, **kw) -> dict:
    return res.full_dehydrate(res.build_bundle(obj=obj, **kw)).data


def test_cookbook_view() -> None:
    """The cookbook's view: build_bundle, obj_get by a field, full_dehydrate, serialize."""

    def view(get, api):
        res = get("writer")
        req = request()
        obj = res.obj_get(res.build_bundle(request=req), slug="ann")
        return json.loads(
            res.serialize(
                None, res.full_dehydrate(res.build_bundle(obj=obj, request=req)), "application/json"
            )
        )

    both(view)


def test_obj_get_list() -> None:
    def listing(get, api):
        res = get("novel")
        objects = res.obj_get_list(res.build_bundle(), year__gte=2000)
        return [dehydrated(res, obj) for obj in objects]

    both(listing)


def test_obj_get_list_authorized_per_user() -> None:
    def listing(get, api):
        res = get("note")
        bundle = res.build_bundle(request=request())
        return sorted(obj.pk for obj in res.obj_get_list(bundle))

    both(listing)


def test_cached_obj_get() -> None:
    def cached(get, api):
        res = get("cachedwriter")
        bundle = res.build_bundle()
        first = res.cached_obj_get(bundle, pk=1)
        again = res.cached_obj_get(bundle, pk=1)
        return [dehydrated(res, first), dehydrated(res, again), first == again]

    both(cached)


def test_get_via_uri() -> None:
    def via_uri(get, api):
        res = get("label")
        obj = res.get_via_uri(f"/patterns/{api}/label/3/")
        return [obj.pk, obj.name, dehydrated(res, obj)]

    both(via_uri)


def test_obj_create() -> None:
    def create(get, api):
        res = get("novel")
        bundle = res.build_bundle(
            data={
                "title": "Made",
                "year": 2020,
                "writer_id": 2,
                "labels": [f"/patterns/{api}/label/2/"],
            }
        )
        made = res.obj_create(bundle)
        return dehydrated(res, made.obj)

    both(create)


def test_obj_update() -> None:
    def update(get, api):
        res = get("writer")
        bundle = res.build_bundle(
            data={
                "name": "Ann L.",
                "slug": "ann",
                "first_name": "Ann",
                "last_name": "L.",
                "status": "r",
                "keywords": ["z"],
            }
        )
        updated = res.obj_update(bundle, pk=1)
        return dehydrated(res, updated.obj)

    both(update)


def test_obj_delete() -> None:
    def remove(get, api):
        res = get("ratedquote")
        res.obj_delete(Bundle(request=request()), pk=1)  # as Tastypie's delete_detail does
        return None

    both(remove)


def test_full_dehydrate_of_objects_from_obj_get() -> None:
    """Nested full resources and hooks on objects a caller fetched itself."""

    def detail(get, api):
        res = get("novelist")
        obj = res.obj_get(res.build_bundle(), pk=1)
        return dehydrated(res, obj, request=request())

    both(detail)
