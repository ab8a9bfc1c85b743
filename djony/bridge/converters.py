"""Pony value converters that store values exactly as Django does.

Pony and Django disagree on how some types live in the database: Pony keeps
UUIDs as 16 raw bytes and durations as fractions of a day on SQLite, while
Django keeps 32 hex characters and whole microseconds; Django keeps aware
datetimes as naive UTC on SQLite and MySQL.  The converters here follow
Django's ``DatabaseOperations`` for each backend, so rows written by either
ORM read back identically through the other, and query parameters compare
against Django's stored values.

:func:`converter_classes` builds a provider's converter table (Pony picks a
converter by the Python type of the attribute or parameter, first match
wins); each backend module (:mod:`djony.bridge.backends`) says which converters
its database needs, and overrides one by type where its database differs
(PostgreSQL's zoned datetimes, SQLite's decimals, MySQL's ``TIME``).
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

from django.conf import settings
from django.utils import timezone
from pony.orm import dbapiprovider, ormtypes

from djony.bridge.fieldvalues import CONVERTER_ENTRY

UTC = datetime.timezone.utc


def _to_naive_utc(value: datetime.datetime) -> datetime.datetime:
    """The value Django stores for a datetime on SQLite and MySQL."""
    if timezone.is_aware(value):
        if not settings.USE_TZ:
            raise ValueError(
                f"{value!r} is timezone-aware but USE_TZ is False; "
                "pass a naive datetime or set USE_TZ = True."
            )
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def _aware_if_use_tz(value: datetime.datetime) -> datetime.datetime:
    if settings.USE_TZ and timezone.is_naive(value):
        return value.replace(tzinfo=UTC)
    return value


class DatetimeConverter(dbapiprovider.DatetimeConverter):
    """Aware datetimes in Python, naive UTC in columns that have no zone."""

    def validate(self, val: Any, obj: Any = None) -> Any:
        val = super().validate(val, obj)
        if settings.USE_TZ and timezone.is_naive(val):
            # What Django does (with a RuntimeWarning): read it in the current zone.
            val = timezone.make_aware(val, timezone.get_current_timezone())
        if settings.USE_TZ and val.astimezone(UTC) != val:
            # A wall time in a DST gap or fold never compares equal to the value
            # read back, which Pony would take for a concurrent update: keep UTC.
            val = val.astimezone(UTC)
        return val

    def py2sql(self, val: datetime.datetime) -> Any:
        return str(_to_naive_utc(val))

    def sql2py(self, val: Any) -> Any:
        if isinstance(val, str):
            val = datetime.datetime.fromisoformat(val)
        return _aware_if_use_tz(val)


class TimeConverter(dbapiprovider.TimeConverter):
    """Times as ISO text in the query, read back from the text a driver may return."""

    def py2sql(self, val: datetime.time) -> Any:
        return str(val)

    def sql2py(self, val: Any) -> Any:
        if isinstance(val, str):
            return datetime.time.fromisoformat(val)
        return val


class MicrosecondsDurationConverter(dbapiprovider.TimedeltaConverter):
    """Django's DurationField on backends without an interval type: bigint µs."""

    def py2sql(self, val: datetime.timedelta) -> int:
        return (val.days * 86400 + val.seconds) * 1_000_000 + val.microseconds

    def sql2py(self, val: Any) -> Any:
        if isinstance(val, datetime.timedelta):
            return val
        return datetime.timedelta(microseconds=int(val))


class HexUUIDConverter(dbapiprovider.UuidConverter):
    """Django's UUIDField on backends without a uuid type: char(32) hex."""

    def py2sql(self, val: uuid.UUID) -> str:
        return val.hex

    def sql2py(self, val: Any) -> Any:
        if isinstance(val, uuid.UUID):
            return val
        return uuid.UUID(hex=val)


class DecimalConverter(dbapiprovider.DecimalConverter):
    """Decimals with any scale (Pony refuses ``decimal_places=0``)."""

    def init(self, kwargs: dict) -> None:
        attr = self.attr
        self.precision = kwargs.pop("precision", 65)
        self.scale = kwargs.pop("scale", 0)
        self.exp = decimal.Decimal(1).scaleb(-self.scale)
        self.context = decimal.Context(prec=self.precision)
        self.min_val = kwargs.pop("min", None)
        self.max_val = kwargs.pop("max", None)
        if attr.args:
            raise TypeError(f"{attr}: pass precision and scale as keywords")

    def py2sql(self, val: Any) -> Any:
        return val

    def sql2py(self, val: Any) -> Any:
        if isinstance(val, decimal.Decimal):
            return val
        return decimal.Decimal(val)


class JsonConverter(dbapiprovider.JsonConverter):
    """JSON text byte-for-byte as Django's JSONField writes it; ``None`` is SQL NULL.

    (Pony writes an update's ``None`` as the JSON text ``null``; Django's
    ``JSONField`` stores ``None`` as SQL NULL.)  No optimistic check on JSON
    columns: Pony would compare them with ``CAST(... AS JSON)``, which MariaDB
    does not accept, and two JSON texts of one value need not be equal anyway.
    """

    json_kwargs: dict = {}
    optimistic = False

    def val2dbval(self, val: Any, obj: Any = None) -> Any:
        return None if val is None else super().val2dbval(val, obj)


class BoolConverter(dbapiprovider.BoolConverter):
    def sql2py(self, val: Any) -> Any:
        return bool(val)


#: Django's storage on a database without uuid and interval types (SQLite, MySQL).
DJANGO_STORAGE: dict[type, type] = {
    datetime.datetime: DatetimeConverter,
    datetime.time: TimeConverter,
    datetime.timedelta: MicrosecondsDurationConverter,
    uuid.UUID: HexUUIDConverter,
    decimal.Decimal: DecimalConverter,
    ormtypes.Json: JsonConverter,
    bool: BoolConverter,
}


def converter_classes(provider: type, overrides: dict[type, type]) -> list[tuple[Any, type]]:
    """``provider``'s converter table with ``overrides`` (Django's storage conventions).

    An override that does not derive from Pony's converter for that type is
    mixed with it, so the provider's SQL type names are kept.
    """
    table = [CONVERTER_ENTRY]  # custom fields that convert their own values
    for py_type, converter in provider.converter_classes:
        replacement = overrides.get(py_type) if isinstance(py_type, type) else None
        if replacement is not None and issubclass(replacement, converter):
            converter = replacement
        elif replacement is not None:
            converter = type(replacement.__name__, (replacement, converter), {})
        table.append((py_type, converter))
    return table


class _KeepEach(dict):
    """A deduplication table that keeps every value as it came."""

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return default


class ExactDeduplication(dict):
    """Pony's per-session value deduplication, minus the types where equal is not same.

    Pony shares one object among equal values read in a session, per type.
    ``Decimal("0") == Decimal("0.0000")``, ``0.0 == -0.0`` and aware datetimes
    in two zones compare equal, so sharing would hand one column another
    column's scale, sign or zone.  Those types keep their own values.
    """

    EXACT_TYPES = (decimal.Decimal, float, datetime.datetime, datetime.time)

    def __missing__(self, value_type: type) -> dict:
        table = _KeepEach() if issubclass(value_type, self.EXACT_TYPES) else {}
        self[value_type] = table
        return table
