"""Fields djony cannot map: a system check, the rest of the model working, a clear error.

``DJONY_DATA_TYPES`` maps them; the setting is read when the mapping is
built, so these tests rebuild it with :func:`djony.registry.reset`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core import checks
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from pony.orm import db_session

from djony import registry
from djony.checks import check_mapping
from djony.meta.types import ColumnType
from djony.objects.pages import Page
from tests.testapp.models import Landmark, Point

pytestmark = pytest.mark.django_db


def point_as_text(field) -> ColumnType:
    """``DJONY_DATA_TYPES`` entry for the test app's PointField: its "x,y" text."""
    return ColumnType(str, {})


@pytest.fixture
def fresh_mapping() -> Iterator[None]:
    """Rebuild the mapping for the test, and again after it (under the real settings)."""
    registry.reset()
    yield
    registry.reset()


def djony_messages(app_label: str = "testapp") -> list[checks.CheckMessage]:
    from django.apps import apps

    return check_mapping(app_configs=[apps.get_app_config(app_label)])


def test_unknown_field_type_gives_w001_naming_the_setting() -> None:
    messages = [m for m in djony_messages() if m.id == "djony.W001"]
    assert len(messages) == 1
    (message,) = messages
    assert message.obj is Landmark._meta.get_field("location")
    assert "testapp.Landmark.location" in message.msg
    assert "PointField" in message.msg
    assert "DJONY_DATA_TYPES" in message.msg + message.hint
    assert isinstance(message, checks.Warning)


def test_partly_mapped_relations_give_w002() -> None:
    partial = {m.obj.name for m in djony_messages() if m.id == "djony.W002"}
    assert {"country_by_code", "members", "branch"} <= partial


def test_check_is_registered_with_django() -> None:
    ids = {message.id for message in checks.run_checks(tags=["djony"])}
    assert "djony.W001" in ids


def test_rest_of_the_model_works_and_the_field_is_read_by_django() -> None:
    landmark = Landmark.objects.create(name="Tower", location=Point(1.5, 2.5))
    Landmark.objects.create(name="Gate")
    with db_session:
        entity = Landmark.p[landmark.pk]
        assert entity.name == "Tower"
        # Read as Django reads it (from_db_value), for the whole page in one query.
        assert (entity.location.x, entity.location.y) == (1.5, 2.5)
        page = Landmark.p.select().order_by(Landmark.p.id)[:]
        Page.mark(page)
        with CaptureQueriesContext(connection) as queries:
            assert [None if o.location is None else o.location.x for o in page] == [1.5, None]
        assert len(queries) == 1
        with pytest.raises(NotImplementedError, match="DJONY_DATA_TYPES"):
            entity.location = Point(0, 0)
        with pytest.raises(
            NotImplementedError, match="testapp.Landmark.location.*DJONY_DATA_TYPES"
        ):
            Landmark.p(name="x", location=Point(0, 0))
        created = Landmark.p(name="Bridge")
        created.flush()
        pk = created.id
    bridge = Landmark.objects.get(pk=pk)
    assert (bridge.name, bridge.location) == ("Bridge", None)


@pytest.mark.parametrize("entry", [point_as_text, "tests.djony.test_checks.point_as_text"])
def test_data_types_setting_maps_the_field(fresh_mapping: None, entry) -> None:
    landmark = Landmark.objects.create(name="Tower", location=Point(1.5, 2.5))
    with override_settings(DJONY_DATA_TYPES={"PointField": entry}):
        assert not [m for m in djony_messages() if m.id == "djony.W001"]
        with db_session:
            assert Landmark.p[landmark.pk].location == "1.5,2.5"
            Landmark.p(name="Bridge", location="3.0,4.0")
        assert Landmark.p._djony_info_.unmapped == {}
    bridge = Landmark.objects.get(name="Bridge")
    assert (bridge.location.x, bridge.location.y) == (3.0, 4.0)


def test_unmappable_primary_key_is_an_error(fresh_mapping: None) -> None:
    with override_settings(DJONY_DATA_TYPES={"AutoField": lambda field: None}):
        (message,) = djony_messages()
    assert message.id == "djony.E001"
    assert isinstance(message, checks.Error)
    assert "DJONY_DATA_TYPES" in message.msg
