"""SQLite through Django's ``sqlite3`` backend.

Django keeps decimals as SQLite NUMERIC (read back as int or float), UUIDs as
hex text and durations as microseconds; its cursor takes ``%s`` placeholders.
Pony's SQLite dialect calls SQL functions of its own (``py_upper``,
``py_json_extract`` ...), registered on every connection Django opens.  A
``regex`` value Python's ``re`` cannot compile makes Django's ``REGEXP``
function raise inside SQLite.
"""

from __future__ import annotations

import decimal
from typing import Any

from pony.orm.dbproviders import sqlite as pony_sqlite

from djony.bridge import converters
from djony.bridge.backends.base import Backend, once_per_raw_connection


class SQLiteDecimalConverter(converters.DecimalConverter):
    """SQLite's NUMERIC affinity hands back int or float; round as Django does."""

    _from_float = decimal.Context(prec=15).create_decimal_from_float

    def py2sql(self, val: Any) -> str:
        return str(val)

    def sql2py(self, val: Any) -> Any:
        if isinstance(val, (int, float)):
            value = self._from_float(val)
        else:
            value = decimal.Decimal(val)
        if self.attr is None:
            return value
        return value.quantize(self.exp, context=self.context)


CONVERTERS = {**converters.DJANGO_STORAGE, decimal.Decimal: SQLiteDecimalConverter}


class SQLiteProvider(pony_sqlite.SQLiteProvider):
    """Pony's SQLite provider with Django's storage and Django's placeholders."""

    converter_classes = converters.converter_classes(pony_sqlite.SQLiteProvider, CONVERTERS)
    # Django's SQLite cursor takes "%s" placeholders (and "%%" for a literal
    # "%"), and formats the SQL with them for connection.queries.
    paramstyle = "format"


#: The SQL functions Pony's SQLite dialect calls: name -> (argument count, function).
PONY_FUNCTIONS = {
    "power": (2, pow),
    "py_upper": (1, pony_sqlite.py_upper),
    "py_lower": (1, pony_sqlite.py_lower),
    "py_json_unwrap": (1, pony_sqlite.py_json_unwrap),
    "py_json_extract": (-1, pony_sqlite.py_json_extract),
    "py_json_contains": (3, pony_sqlite.py_json_contains),
    "py_json_nonzero": (2, pony_sqlite.py_json_nonzero),
    "py_json_array_length": (-1, pony_sqlite.py_json_array_length),
    "py_string_slice": (3, pony_sqlite.py_string_slice),
}


class SQLiteBackend(Backend):
    vendor = "sqlite"
    # "UNIQUE constraint failed: ...", "FOREIGN KEY constraint failed",
    # "NOT NULL constraint failed: ...", "CHECK constraint failed: ...".
    refusal_words = {
        "unique": ("unique",),
        "reference": ("foreign key",),
        "required": ("not null",),
        "range": ("check constraint",),
    }

    def provider(self, django_connection: Any) -> type:
        return SQLiteProvider

    def bind_kwargs(self) -> dict[str, Any]:
        return {"filename": ":memory:"}  # unused: djony's pool hands out Django's connection

    def prepare_connection(self, django_connection: Any) -> None:
        """Register the SQL functions Pony's SQLite dialect calls, once per connection."""
        if once_per_raw_connection(django_connection, "_djony_sqlite_functions"):
            raw = django_connection.connection
            for name, (num_params, func) in PONY_FUNCTIONS.items():
                raw.create_function(name, num_params, func)

    def refused_pattern(self, exc: BaseException) -> bool:
        # Django's REGEXP function raised re.error for the pattern.
        return "user-defined function raised exception" in str(exc)

    def transaction_lost(self, django_connection: Any, errors: list[BaseException]) -> bool:
        """SQLite rolls a transaction back on some errors (a full disk, I/O, an interrupt).

        Django began the transaction with ``BEGIN`` when autocommit was on
        (``commit_on_exit``); once rolled back, the connection is no longer in one and
        every later statement commits on its own.
        """
        raw = django_connection.connection
        if raw is None:
            return True
        began = django_connection.in_atomic_block and django_connection.commit_on_exit
        return began and not raw.in_transaction


backend = SQLiteBackend()
