"""Every field type round-trips between Django and Pony, field by field.

Rows written by Django read back identical through ``Model.p``, and rows
written through ``Model.p`` read back identical through Django, on every
backend: ``None``, empty strings, non-ASCII text, decimals at full precision,
aware datetimes (``USE_TZ = True``), UUIDs, JSON, durations, times, binary.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
import zoneinfo
from typing import Any

import pytest
from django.db.models.fields.files import FieldFile
from django.utils import timezone
from pony.orm import db_session

from tests.testapp.models import AllTypes

pytestmark = pytest.mark.django_db

BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
UTC = datetime.timezone.utc

# Every column of AllTypes except the primary key and the automatic timestamps.
FIELDS = [
    f.name
    for f in AllTypes._meta.concrete_fields
    if not f.primary_key and f.name not in ("created", "updated")
]

FULL = {
    "char": "Zürich ☃ 日本 😀",
    "text": "line one\nline two — «quoted» ß",
    "slug": "a-slug_1",
    "email": "élise@example.org",
    "url": "https://example.org/ä?q=1",
    "file_path": "/tmp/x.txt",
    "file": "uploads/ü.pdf",
    "ip": "2001:db8::1",
    "integer": -2147483648,
    "big": -(2**63),
    "small": -32768,
    "positive": 2147483647,
    "positive_small": 32767,
    "positive_big": 2**63 - 1,
    "floating": 1.0 / 3.0,
    "amount": decimal.Decimal("12345678.1234"),
    "whole": decimal.Decimal("9999999999"),
    "flag": True,
    "maybe": False,
    "day": datetime.date(1999, 12, 31),
    "moment": datetime.datetime(2024, 3, 31, 2, 30, 15, 123456, tzinfo=UTC),
    "clock": datetime.time(23, 59, 58, 999999),
    "span": datetime.timedelta(days=-3, hours=5, microseconds=7),
    "uid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "blob": b"\x00\xffbinary\x80",
    "data": {"ü": [1, 2.5, None, True], "nested": {"a": "日本"}, "empty": []},
    "code": "fullrow1",
    "custom_column": 42,
    "label": "set ✓",
    "rank": -5,
}

EMPTY = {
    "char": "",
    "text": "",
    "slug": "",
    "email": "",
    "url": "",
    "file_path": "",
    "file": "",
    "ip": None,
    "integer": 0,
    "big": None,
    "small": None,
    "positive": None,
    "positive_small": None,
    "positive_big": None,
    "floating": None,
    "amount": None,
    "whole": None,
    "flag": False,
    "maybe": None,
    "day": None,
    "moment": None,
    "clock": None,
    "span": None,
    "uid": None,
    "blob": None,
    "data": None,
    "code": "empty001",
    "custom_column": None,
    "label": "",
    "rank": 0,
}

OTHER = {
    **FULL,
    "char": "  padded\t ",  # kept as given (Pony strips text by default)
    "text": "\n",
    "amount": decimal.Decimal("-0.0001"),
    "whole": decimal.Decimal("0"),
    "moment": datetime.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=BERLIN),
    "clock": datetime.time(0, 0),
    "span": datetime.timedelta(0),
    "maybe": True,
    "data": ["top", "level", 1],
    "blob": b"",
    "code": "other001",
}

# Equal values of different columns in one row: each keeps its own scale.
ZEROS = {
    **EMPTY,
    "amount": decimal.Decimal("0.0000"),
    "whole": decimal.Decimal("0"),
    "floating": 0.0,
    "big": 0,
    "code": "zeros001",
}

ROWS = [
    pytest.param(FULL, id="full"),
    pytest.param(EMPTY, id="empty"),
    pytest.param(OTHER, id="other"),
    pytest.param(ZEROS, id="zeros"),
]


def normalise(name: str, value: Any) -> Any:
    """What is stored: binary by content (PostgreSQL hands back memoryview), a file by name."""
    if name == "blob" and value is not None:
        return bytes(value)
    if isinstance(value, FieldFile):
        return value.name
    return value


def assert_same_row(django_row: AllTypes, pony_row: Any, expected: dict[str, Any]) -> None:
    for name in FIELDS:
        django_value = normalise(name, getattr(django_row, name))
        pony_value = normalise(name, getattr(pony_row, name))
        assert django_value == expected[name], name
        assert pony_value == django_value, name
        assert type(pony_value) is type(django_value) or isinstance(django_value, dict | list), name
        if isinstance(django_value, decimal.Decimal):
            assert str(pony_value) == str(django_value), name  # the same scale, not only equal
    for name in ("moment", "created", "updated"):
        value = getattr(pony_row, name)
        if value is not None:
            assert value.utcoffset() == datetime.timedelta(0), name
            assert value == getattr(django_row, name), name


@pytest.mark.parametrize("values", ROWS)
def test_django_write_pony_read(values: dict[str, Any]) -> None:
    row = AllTypes.objects.create(**values)
    django_row = AllTypes.objects.get(pk=row.pk)
    with db_session:
        pony_row = AllTypes.p[row.pk]
        assert_same_row(django_row, pony_row, values)


@pytest.mark.parametrize("values", ROWS)
def test_pony_write_django_read(values: dict[str, Any]) -> None:
    with db_session:
        row = AllTypes.p(**values)
        row.flush()
        pk = row.id
    django_row = AllTypes.objects.get(pk=pk)
    with db_session:
        assert_same_row(django_row, AllTypes.p[pk], values)


def test_pony_query_parameters_match_django_storage() -> None:
    """Filtering through Pony finds what Django stored (UUID, datetime, decimal, duration)."""
    AllTypes.objects.create(**FULL)
    AllTypes.objects.create(**EMPTY)
    with db_session:
        entity = AllTypes.p
        uid, moment, amount, span = FULL["uid"], FULL["moment"], FULL["amount"], FULL["span"]
        clock, day = FULL["clock"], FULL["day"]
        assert entity.select(lambda r: r.uid == uid).count() == 1
        assert entity.select(lambda r: r.moment == moment).count() == 1
        berlin_moment = moment.astimezone(BERLIN)
        assert entity.select(lambda r: r.moment == berlin_moment).count() == 1
        assert entity.select(lambda r: r.amount == amount).count() == 1
        assert entity.select(lambda r: r.span == span).count() == 1
        assert entity.select(lambda r: r.clock == clock).count() == 1
        assert entity.select(lambda r: r.day == day).count() == 1
        assert entity.select(lambda r: r.char == "Zürich ☃ 日本 😀").count() == 1
        assert entity.select(lambda r: r.ip is None).count() == 1
        assert entity.select(lambda r: r.text == "").count() == 1


def test_custom_db_column() -> None:
    row = AllTypes.objects.create(custom_column=7)
    with db_session:
        attr = AllTypes.p.custom_column
        assert attr.columns == ["CustomCol"]
        assert AllTypes.p[row.pk].custom_column == 7


def test_callable_default_is_called_per_insert() -> None:
    with db_session:
        first = AllTypes.p()
        second = AllTypes.p()
        codes = {first.code, second.code}
    assert len(codes) == 2
    assert set(AllTypes.objects.values_list("code", flat=True)) == codes


def test_defaults_match_django() -> None:
    """Python defaults, "" for text, NULL, and database defaults (``db_default``)."""
    with db_session:
        new = AllTypes.p(code="pony")
        new.flush()
        pk = new.id
        assert (new.label, new.rank) == ("unset", 7)  # read back from the database
    pony_row = AllTypes.objects.get(pk=pk)
    django_row = AllTypes.objects.get(pk=AllTypes.objects.create(code="django").pk)
    for name in FIELDS:
        if name != "code":
            assert getattr(pony_row, name) == getattr(django_row, name), name
    assert (pony_row.label, pony_row.rank, pony_row.integer, pony_row.text) == ("unset", 7, 0, "")


def test_json_scalars() -> None:
    for index, value in enumerate(["text", "", 3.5, 0, True, False, [], {}]):
        django_pk = AllTypes.objects.create(code=f"dj{index}", data=value).pk
        with db_session:
            assert AllTypes.p[django_pk].data == value
            read = AllTypes.p[django_pk].data
            # Pony hands out tracked subclasses of list and dict.
            assert type(read) is type(value) or (
                isinstance(value, list | dict) and isinstance(read, type(value))
            )
            new = AllTypes.p(code=f"po{index}", data=value)
            new.flush()
            pony_pk = new.id
        assert AllTypes.objects.get(pk=pony_pk).data == value
        assert type(AllTypes.objects.get(pk=pony_pk).data) is type(value)


def test_auto_now_add_and_auto_now() -> None:
    before = timezone.now()
    with db_session:
        row = AllTypes.p(code="stamps")
        row.flush()
        pk = row.id
    after_insert = timezone.now()
    django_row = AllTypes.objects.get(pk=pk)
    assert before <= django_row.created <= after_insert
    assert before <= django_row.updated <= after_insert
    created, updated = django_row.created, django_row.updated
    with db_session:
        AllTypes.p[pk].char = "changed"
    django_row.refresh_from_db()
    assert django_row.char == "changed"
    assert django_row.created == created
    assert django_row.updated > updated
    assert django_row.updated >= after_insert


def test_naive_datetime_is_read_in_current_zone_like_django() -> None:
    naive = datetime.datetime(2024, 6, 1, 12, 0)
    with db_session:
        row = AllTypes.p(code="naive", moment=naive)
        row.flush()
        pk = row.id
    expected = timezone.make_aware(naive, timezone.get_current_timezone())
    assert AllTypes.objects.get(pk=pk).moment == expected


@pytest.mark.parametrize(
    "moment, clock",
    [
        ("2024-06-01 12:00:00.5", "12:30:00.5"),  # one fractional digit
        ("2024-06-01T12:00:00", "12:30"),  # a "T", no seconds
        ("2024-06-01 12:00:00.123456", "12:30:00.123456"),  # as Django writes them
    ],
)
def test_datetime_and_time_text_reads_as_django_reads_it(moment: str, clock: str) -> None:
    """SQLite keeps datetimes and times as text, which other tools may write in forms
    Django does not write: Pony reads what Django reads, on every Python."""
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("datetimes and times are text only on SQLite")
    row = AllTypes.objects.create(code="text")
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {AllTypes._meta.db_table} SET moment = %s, clock = %s WHERE id = %s",
            [moment, clock, row.pk],
        )
    row.refresh_from_db()
    with db_session:
        pony_row = AllTypes.p[row.pk]
        assert (pony_row.moment, pony_row.clock) == (row.moment, row.clock)
