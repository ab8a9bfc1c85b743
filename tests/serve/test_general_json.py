"""The general path's JSON: ``create_response`` writes what Tastypie's serializer writes.

A request no plan serves (``Meta.fast_path = False`` here, a declined resource in a
project), ``schema/``, ``set/`` and the answers of writes go through
``create_response``; with Tastypie's own ``Serializer`` its JSON is written by
``tastypie_djony.convert``.  The bytes are ModelResource's for every kind of value a
``dehydrate`` may put in a bundle, and a serializer or resource that writes JSON its own
way (``to_json``/``to_simple`` set on the instance, ``serialize`` overridden) is honoured.
"""

from __future__ import annotations

import datetime
import decimal
import json
import zoneinfo

import pytest
from django.test import RequestFactory
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy
from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.bundle import Bundle
from tastypie.resources import ModelResource
from tastypie.serializers import Serializer

from tastypie_djony.resources import DjonyResource
from tastypie_djony.stock import writes_stock_json
from tests.testapp.models import Author, Book

pytestmark = pytest.mark.django_db


def _rich(bundle: Bundle) -> Bundle:
    """A ``dehydrate`` putting every kind of value in the bundle."""
    bundle.data["rich"] = {
        "decimal": decimal.Decimal("1.50"),
        "when": datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc),
        "naive": datetime.datetime(2024, 5, 1, 12, 30),
        "day": datetime.date(2024, 5, 1),
        "time": datetime.time(7, 5),
        "tuple": (1, "two", None),
        "set": {3},
        "lazy": gettext_lazy("Author"),
        "safe": mark_safe("<b>x</b>"),
        "text": "Ångström",
        "int keys": {1: "one", 2: "two"},
        "nested": [{"flag": True, "none": None, "float": 0.5}],
        "bundle": Bundle(data={"inner": decimal.Decimal("2")}),
    }
    return bundle


def _twins(serializer_for=Serializer, **members):
    def resource(base):
        class Meta:
            queryset = Author.objects.all()
            resource_name = "author"
            authorization = Authorization()
            fast_path = False
            serializer = serializer_for()

        body = {
            "Meta": Meta,
            "books": fields.ToManyField("tests.serve.test_general_json.BookStub", "books"),
            "dehydrate": lambda self, bundle: _rich(bundle),
            **members,
        }
        if base is ModelResource:
            del Meta.fast_path
        return type(f"Author{base.__name__}", (base,), body)()

    return resource(ModelResource), resource(DjonyResource)


class BookStub(ModelResource):
    class Meta:
        queryset = Book.objects.all()
        resource_name = "book"


@pytest.fixture
def authors(db):
    ann = Author.objects.create(name="Ann", born=datetime.date(1970, 1, 2))
    Book.objects.create(title="Aeon", author=ann, price="4.50")
    Author.objects.create(name="Bob")
    return ann


def _answers(twins, view: str, **kwargs) -> list[tuple]:
    request = RequestFactory().get("/", {"format": "json"})
    found = []
    for resource in twins:
        response = getattr(resource, view)(request, **kwargs)
        found.append((response.status_code, response["Content-Type"], response.content))
    return found


@pytest.mark.parametrize(
    ("view", "kwargs"),
    [("get_list", {}), ("get_detail", {"pk": "first"}), ("get_schema", {})],
    ids=["list", "detail", "schema"],
)
def test_the_general_path_writes_modelresource_s_bytes(authors, view, kwargs):
    kwargs = {k: str(authors.pk) if v == "first" else v for k, v in kwargs.items()}
    twins = _twins()
    assert writes_stock_json(twins[1], RequestFactory().get("/", {"format": "json"}))
    reference, switched = _answers(twins, view, **kwargs)
    assert reference[0] == 200
    assert switched == reference


def test_a_to_json_set_on_the_serializer_is_the_writer(authors):
    def compact(data, options=None):
        return json.dumps(["compact", sorted(data.data)])

    def serializer():
        made = Serializer()
        made.to_json = compact
        made._to_methods["application/json"] = compact
        return made

    twins = _twins(serializer)
    assert not writes_stock_json(twins[1], RequestFactory().get("/", {"format": "json"}))
    reference, switched = _answers(twins, "get_detail", pk=str(authors.pk))
    assert reference[2].startswith(b'["compact"')
    assert switched == reference


def test_an_overridden_serialize_is_the_writer(authors):
    def serialize(self, request, data, format, options=None):
        return "written by serialize"

    twins = _twins(serialize=serialize)
    reference, switched = _answers(twins, "get_list")
    assert reference[2] == b"written by serialize"
    assert switched == reference


@pytest.mark.parametrize("use_tz", [True, False])
@pytest.mark.parametrize("zone", ["UTC", "Etc/UTC", "Asia/Kathmandu", "America/St_Johns"])
def test_datetimes_are_written_as_tastypie_s_format_datetime(settings, use_tz, zone):
    from tastypie_djony.convert import simple

    settings.USE_TZ, settings.TIME_ZONE = use_tz, zone
    serializer = Serializer()
    values = [
        datetime.datetime(2024, 3, 31, 1, 59, 59, 999999, tzinfo=datetime.timezone.utc),
        datetime.datetime(
            2024, 11, 3, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))
        ),
        datetime.datetime(1999, 12, 31, 23, 59),
        datetime.datetime(2024, 1, 15, 10, 0, tzinfo=zoneinfo.ZoneInfo("Europe/London")),
        datetime.datetime(2024, 7, 15, 10, 0, tzinfo=zoneinfo.ZoneInfo("Europe/London")),
    ]
    data = {"when": values, "one": values[0]}
    assert simple(data, serializer, {}) == serializer.to_simple(data, {})


def test_a_format_datetime_set_on_the_serializer_writes_the_datetimes():
    from tastypie_djony.convert import simple

    serializer = Serializer()
    serializer.format_datetime = lambda value: "a day"
    assert simple({"at": datetime.datetime(2024, 1, 1)}, serializer, {}) == {"at": "a day"}
    strict = Serializer(datetime_formatting="iso-8601-strict")
    at = datetime.datetime(2024, 1, 1, 1, 1, 1, 5)
    assert simple([at], strict, {}) == strict.to_simple([at], {}) == ["2024-01-01T01:01:01"]
