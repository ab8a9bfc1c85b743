"""Resources with hooks, served by the bundle plan (:mod:`tastypie_djony.serve.plans`).

ModelResource (``/zm/``) is the reference for every answer; ``/zf/`` serves these through
:class:`~tastypie_djony.serve.plans.BundlePlan` (``DJONY_VERIFY_FAST_PATH`` also renders its
general path), ``/zg/`` takes the general path.  The hooks write what they saw into the
answer (which fields ``bundle.data`` held, its values' types, the object's ``repr``), so a
hook that ran in another order or on other values changes the bytes.
"""

import pytest
from django.test import RequestFactory

from tastypie_djony.convert import simple
from tastypie_djony.objectlist import DjonyObjectList
from tastypie_djony.serve.bundles import PageBundle
from tastypie_djony.serve.plans import BundlePlan
from tests.zoo.testing import FORMATS, with_format, zoo  # noqa: F401
from tests.zoo.urls import APIS

pytestmark = pytest.mark.django_db

HOOKED = ["hooked_animal", "full_hooked_animal", "replacing_animal", "nesting_animal"]
URLS = [
    *(f"{name}/" for name in HOOKED),
    *(f"{name}/<a1>/" for name in HOOKED),
    "hooked_animal/?order_by=-name&limit=3&offset=1",
    "hooked_animal/?number__gt=10",
    "hooked_animal/?number__gt=1000",
    "full_hooked_animal/?name=Zebra",
    "hooked_keeper/",
    "hooked_keeper/<k0>/",
]


def resource(api_name: str, name: str):
    return APIS[api_name][0]._registry[name]


def request(url: str = "/"):
    return RequestFactory().get(url, HTTP_ACCEPT="application/json")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("url", URLS)
def test_same_answer(zoo, url, fmt):  # noqa: F811
    zoo.check(with_format(url, fmt))


@pytest.mark.parametrize("name", HOOKED)
def test_served_by_the_bundle_plan(name):
    assert resource("zf", name).list_plan(request()) is None
    assert isinstance(resource("zf", name).bundle_plan(request()), BundlePlan)
    assert resource("zg", name).bundle_plan(request()) is None
    assert isinstance(resource("zf", name).bundle_plan(request("/?format=xml")), BundlePlan)


@pytest.fixture
def page_objects_built(monkeypatch):
    """How many times a page's objects were built from its rows."""
    built = []
    rows_and_objects = DjonyObjectList.rows_and_objects

    def spy(self, fields, kept=None):
        rows, objects = rows_and_objects(self, fields, kept)

        def counted():
            if self._result is None:
                built.append(len(rows))
            return objects()

        return rows, counted

    monkeypatch.setattr(DjonyObjectList, "rows_and_objects", spy)
    return built


def test_objects_are_built_once_when_a_hook_reads_one(zoo, page_objects_built):  # noqa: F811
    answer = zoo.client.get("/zf/hooked_animal/?format=json")
    assert answer.status_code == 200
    assert page_objects_built == [6]  # odd numbers read bundle.obj: one build for all six


def test_no_object_is_built_when_no_hook_reads_one(zoo, page_objects_built):  # noqa: F811
    answer = zoo.client.get("/zf/hooked_animal/?format=json&number__in=12,40")
    assert answer.status_code == 200
    assert b'"object"' not in answer.content  # even numbers: their hooks skip the object
    assert page_objects_built == []


def test_a_page_bundle_is_the_bundle_tastypie_builds():
    built = []

    def objects():
        built.append(1)
        return ["first", "second"]

    bundle = PageBundle(objects, 1, request())
    assert (bundle.data, bundle.errors, bundle.via_uri, bundle.related_obj) == ({}, {}, None, None)
    assert built == []
    assert bundle.obj == "second"
    assert bundle.obj == "second"
    assert built == [1]
    bundle.obj = "other"
    assert bundle.obj == "other"


def test_simple_is_to_simple():
    import datetime
    from decimal import Decimal

    from tastypie.bundle import Bundle
    from tastypie.serializers import Serializer

    class Text(str):
        pass

    serializer = Serializer()
    inner = Bundle(data={"when": datetime.time(1, 2), "n": 1})
    data = {
        "a": [1, 2.5, True, None, "x", Text("t"), (Decimal("1.10"), datetime.date(2020, 1, 2))],
        "b": {"c": inner, "d": PageBundle(lambda: [], 0, request())},
        "e": datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
        7: object,
    }
    assert simple(data, serializer, {}) == serializer.to_simple(data, {})
