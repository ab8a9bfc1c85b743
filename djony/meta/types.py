"""The field-type table: Django internal type -> how Pony declares the column.

Each entry is a small function taking the Django field and returning a
:class:`ColumnType` (the Python type Pony converts with, plus options for
Pony's attribute), or ``None`` when the field cannot be mapped.

Projects with custom fields extend the table with the ``DJONY_DATA_TYPES``
setting, read when the mapping is built (not at import time)::

    DJONY_DATA_TYPES = {
        "MoneyField": "myproject.djony_types.money",   # dotted path or callable
    }

where ``money(field)`` returns ``ColumnType(decimal.Decimal, {"precision": 12,
"scale": 2})``.  A field whose ``get_internal_type()`` is not in the table is
reported by the ``djony.W001`` system check and left out of the entity.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Callable
from typing import Any, NamedTuple

from django.conf import settings
from django.db import models
from django.utils.module_loading import import_string
from pony.orm import Json


class ColumnType(NamedTuple):
    """The Python type Pony stores the column as, and extra attribute options."""

    py_type: Any
    options: dict[str, Any]


TypeFunction = Callable[[models.Field], "ColumnType | None"]


def integer(field: models.Field) -> ColumnType:
    # 64-bit everywhere: the database, not Pony, decides what is out of range.
    return ColumnType(int, {"size": 64})


def text(field: models.Field) -> ColumnType:
    # Pony strips surrounding whitespace by default; Django stores text as given.
    return ColumnType(str, {"autostrip": False})


def floating(field: models.Field) -> ColumnType:
    # No optimistic check: a float read back need not equal the one written.
    return ColumnType(float, {"optimistic": False})


def decimal_number(field: models.Field) -> ColumnType:
    return ColumnType(
        decimal.Decimal,
        {"precision": field.max_digits, "scale": field.decimal_places},
    )


def boolean(field: models.Field) -> ColumnType:
    return ColumnType(bool, {})


def date(field: models.Field) -> ColumnType:
    return ColumnType(datetime.date, {})


def date_time(field: models.Field) -> ColumnType:
    return ColumnType(datetime.datetime, {"precision": 6})


def time(field: models.Field) -> ColumnType:
    return ColumnType(datetime.time, {"precision": 6})


def duration(field: models.Field) -> ColumnType:
    return ColumnType(datetime.timedelta, {"precision": 6})


def uuid_value(field: models.Field) -> ColumnType:
    return ColumnType(uuid.UUID, {})


def binary(field: models.Field) -> ColumnType:
    return ColumnType(bytes, {})


def json_value(field: models.Field) -> ColumnType:
    # How the database compares JSON is the backends' (djony.bridge.converters.JsonConverter).
    return ColumnType(Json, {})


DEFAULT_DATA_TYPES: dict[str, TypeFunction] = {
    "AutoField": integer,
    "BigAutoField": integer,
    "SmallAutoField": integer,
    "IntegerField": integer,
    "BigIntegerField": integer,
    "SmallIntegerField": integer,
    "PositiveIntegerField": integer,
    "PositiveBigIntegerField": integer,
    "PositiveSmallIntegerField": integer,
    "CharField": text,
    "TextField": text,
    "SlugField": text,
    "EmailField": text,
    "URLField": text,
    "FilePathField": text,
    "FileField": text,
    "ImageField": text,
    "GenericIPAddressField": text,
    "IPAddressField": text,
    "FloatField": floating,
    "DecimalField": decimal_number,
    "BooleanField": boolean,
    "NullBooleanField": boolean,
    "DateField": date,
    "DateTimeField": date_time,
    "TimeField": time,
    "DurationField": duration,
    "UUIDField": uuid_value,
    "BinaryField": binary,
    "JSONField": json_value,
}


def data_types() -> dict[str, TypeFunction]:
    """The table in force: the defaults merged with ``DJONY_DATA_TYPES``."""
    table = dict(DEFAULT_DATA_TYPES)
    for internal_type, function in getattr(settings, "DJONY_DATA_TYPES", {}).items():
        table[internal_type] = import_string(function) if isinstance(function, str) else function
    return table


def column_type(field: models.Field, table: dict[str, TypeFunction]) -> ColumnType | None:
    """How to declare ``field``, or ``None`` when the table has no entry for it."""
    function = table.get(field.get_internal_type())
    return function(field) if function is not None else None
