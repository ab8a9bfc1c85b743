"""Configurations under which the row-built path once answered otherwise than ModelResource,
as differential tests over the zoo.

ModelResource (``/zm/``) is the reference; DjonyResource with the fast path (``/zf/``, also
checked by ``DJONY_VERIFY_FAST_PATH``) and without it (``/zg/``) must give the same status,
headers and bytes, in JSON and XML.
"""

import pytest
from django.test import override_settings
from django.utils import translation

from tests.zoo.testing import FORMATS, with_format, zoo  # noqa: F401

pytestmark = pytest.mark.django_db

URLS = [
    # null before default; TextField(null=True) gets Tastypie's default ''
    "animal/",
    "animal/<a3>/",
    "defaults_animal/",
    "defaults_animal/<a0>/",
    # detail_uri_name other than the key: own, to-one and to-many URIs
    "animal_by_slug/",
    "animal_by_slug/<slug1>/",
    "animal_by_number/",
    "animal_by_number/<n0>/",
    "habitat/",
    "habitat/<savanna>/",
    "habitat/<river>/",
    "keeper_animals/",
    "keeper_animals/<k0>/",
    # UUID keys, proxy, multi-table inheritance, self relations
    "label/",
    "label/<l1>/",
    "pet/",
    "pet/<a1>/",
    "bird/",
    "bird/<bird>/",
    "animal/<a0>/",
    "animal/?number__gt=10&order_by=-name",
    # DISTINCT over few columns
    "distinct_animal/",
    "distinct_animal/?limit=2&offset=1",
    # related resources: not a DjonyResource, get_resource_uri/detail_uri_kwargs overridden,
    # resource_uri_kwargs overridden
    "mixed_animal/",
    "mixed_animal/<a1>/",
    "kwargs_animal/",
    "kwargs_animal/<a1>/",
    "tagged_keeper/",
    # custom paginator meta; resource_uri with an attribute
    "stamped_animal/",
    "uri_attribute_animal/",
    "uri_attribute_animal/<a2>/",
    # include_absolute_url: the model's get_absolute_url on the object
    "absolute_animal/",
    "absolute_animal/<a1>/",
    # to_field, db_constraint=False, dotted to-many
    "enclosure/",
    "enclosure/<e1>/",
    "guarded_enclosure/",
    "guarded_enclosure/<e0>/",
    "guarded_enclosure/<lost>/",
    "zone_enclosures/",
    "zone_enclosures/<north>/",
    # reverse FK under the default accessor, in Meta.ordering through the default manager
    "keeper_animals/<k1>/",
    # generic relations: detail, list, schema, set/
    "animal/<a3>/",
    "animal/schema/",
    "animal/set/<a0>;<a3>/",
    "note/",
]

#: ``set/``: the identifiers' order, one twice, one missing, keys that are no column's
#: value, another ``detail_uri_name``, UUID keys, a list the authorization narrows, hooks.
SETS = [
    "animal/set/<a3>;<a0>;<a3>;999999/",
    "animal/set/<a1>/",
    "animal_by_slug/set/<slug1>;nope;<slug1>/",
    "animal_by_number/set/<n0>;7;<n0>/",
    "label/set/<l1>;00000000-0000-0000-0000-000000000000/",
    "label/set/not-a-uuid/",
    "bird/set/<bird>;<a0>/",
    "guarded_enclosure/set/<e0>;<lost>;<e1>/",
    "keeper_animals/set/<k1>;<k0>/",
    "distinct_animal/set/<a0>;<a1>/",
    "habitat/set/<river>;<savanna>/",
    "mixed_animal/set/<a1>;<a2>/",
    "absolute_animal/set/<a2>;<a1>/",
    "narrow_list/set/<a0>;<a1>;<a2>;<a3>/",
    "denied_list/set/<a0>/",
    "hooked_animal/set/<a1>;<a2>;<a1>/",
    "full_hooked_animal/set/<a2>;<a0>;<a2>/",
    "hooked_keeper/set/<k0>;<k1>;<k0>/",
    "nesting_animal/set/<a1>;<a3>/",
    "replacing_animal/set/<a1>;<a2>/",
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("url", URLS)
def test_same_answer(zoo, url, fmt):  # noqa: F811
    zoo.check(with_format(url, fmt))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("url", SETS)
def test_same_set(zoo, url, fmt):  # noqa: F811
    zoo.check(with_format(url, fmt))


@pytest.mark.parametrize("url", ["keeper/", "keeper/<k1>/", "animal/", "animal/<a1>/"])
def test_url_namespace(zoo, url):  # noqa: F811
    """``_build_reverse_url`` overridden as Tastypie's ``NamespacedModelResource`` does."""
    answer = zoo.check(url, prefix="/ns")
    assert answer.status == 200
    assert b"/ns/API/" in answer.exact or url.startswith("keeper/<")


@override_settings(ROOT_URLCONF="tests.zoo.i18n_urls")
@pytest.mark.parametrize("url", ["animal/", "animal/<a1>/", "habitat/"])
def test_language_prefix(zoo, url):  # noqa: F811
    """Under ``i18n_patterns`` every language gets its own prefix from the same resources."""
    for language in ("en", "de", "fr", "en"):
        with translation.override(language):
            answer = zoo.check(url, prefix=f"/{language}")
        assert answer.status == 200
        assert f"/{language}/API/".encode() in answer.exact


@pytest.fixture
def database_time_zone():
    """``DATABASES["default"]["TIME_ZONE"]``, as Django's own tests set it."""
    from django.db import connection

    before = connection.settings_dict["TIME_ZONE"]  # Django fills in None
    connection.settings_dict["TIME_ZONE"] = "America/New_York"
    for name in ("timezone", "timezone_name"):
        connection.__dict__.pop(name, None)
    connection.ensure_timezone()
    yield
    connection.settings_dict["TIME_ZONE"] = before
    for name in ("timezone", "timezone_name"):
        connection.__dict__.pop(name, None)
    connection.ensure_timezone()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("url", ["animal/", "animal/<a0>/"])
def test_database_time_zone(zoo, database_time_zone, url, fmt):  # noqa: F811
    zoo.check(with_format(url, fmt))
