"""PostgreSQL through Django's ``postgresql`` backend, with psycopg 3 or psycopg2.

Django picks psycopg 3 when it is installed and psycopg2 otherwise; djony
follows whichever Django's connection uses.  Pony 0.7 ships a provider for
psycopg2 only: :func:`provider_for` ``("psycopg")`` is the same dialect (Pony's SQL
builder, schema and converters) with psycopg 3's exceptions.  Statements run
through Django's cursor, so values are adapted by Django's connection
(its adapters map: ``jsonb`` read as text, ``timestamptz`` in the
connection's zone, client-side binding unless ``server_side_binding``), and
Django's connection pool (``OPTIONS["pool"]``) hands out the connections.

PostgreSQL keeps datetimes with their zone, UUIDs and intervals natively, so
only datetimes, decimals and JSON need Django's conventions here.  A value
whose type a lookup cannot take is reported by SQLSTATE.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import importlib
import sys
import types
from typing import Any

from pony.orm import ormtypes
from pony.orm.dbapiprovider import wrap_dbapi_exceptions

from djony.bridge import converters
from djony.bridge.backends.base import Backend

#: SQLSTATEs for a value whose type the lookup cannot take (undefined
#: function or operator, datatype mismatch).
TYPE_MISMATCH = {"42883", "42804"}
#: libpq's transaction status of a connection whose transaction a failed statement aborted,
#: and of one whose state is unknown (the connection is broken): the same numbers in
#: psycopg 3 (``pq.TransactionStatus``) and psycopg2 (``extensions.TRANSACTION_STATUS_*``).
TRANSACTION_INERROR, TRANSACTION_UNKNOWN = 3, 4

#: The drivers Django's backend can use, by module name.
DRIVERS = ("psycopg", "psycopg2")


class PGDatetimeConverter(converters.DatetimeConverter):
    """PostgreSQL keeps zones itself; the driver returns what Django returns."""

    def py2sql(self, val: datetime.datetime) -> Any:
        return val

    def sql2py(self, val: Any) -> Any:
        return val


CONVERTERS = {
    datetime.datetime: PGDatetimeConverter,
    decimal.Decimal: converters.DecimalConverter,
    ormtypes.Json: converters.JsonConverter,
}


def _pony_postgres() -> types.ModuleType:
    """Pony's PostgreSQL dialect module, importable without psycopg2.

    The module imports psycopg2 and registers psycopg2 adapters when it is
    imported.  Where psycopg2 is missing (a project on psycopg 3 only) it is
    imported with a stand-in under that name in ``sys.modules``, only for the
    duration of that import: the stand-in's registrations do nothing (Django's
    psycopg 3 connection has its own adaptation), and the stand-in is removed
    right after, so no other code ever finds a ``psycopg2`` module.
    """
    name = "pony.orm.dbproviders.postgres"
    if name in sys.modules:
        return sys.modules[name]
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        pass
    else:
        import pony.orm.dbproviders.postgres as module

        return module
    stand_in = types.ModuleType("psycopg2")
    stand_in.extras = types.SimpleNamespace(  # type: ignore[attr-defined]
        register_uuid=lambda *args, **kwargs: None,
        register_default_json=lambda *args, **kwargs: None,
        register_default_jsonb=lambda *args, **kwargs: None,
    )
    names = ("psycopg2", "psycopg2.extras")
    saved = {name: sys.modules[name] for name in names if name in sys.modules}
    sys.modules.update({"psycopg2": stand_in, "psycopg2.extras": stand_in.extras})
    try:
        import pony.orm.dbproviders.postgres as module
    finally:
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return module


@functools.cache
def provider_for(driver_name: str) -> type:
    """djony's provider for ``driver_name``, built on first use (see :func:`_pony_postgres`)."""
    pony_pg = _pony_postgres()

    class DjangoPGProvider(pony_pg.PGProvider):
        """Pony's PostgreSQL provider with Django's storage, on Django's connection."""

        converter_classes = converters.converter_classes(pony_pg.PGProvider, CONVERTERS)
        # The driver's exceptions are the ones Pony catches.
        dbapi_module = importlib.import_module(driver_name)

        @wrap_dbapi_exceptions
        def inspect_connection(self, connection: Any) -> None:
            # Django knows the server's version, whichever driver it uses.
            self.server_version = connection.django.pg_version
            self.table_if_not_exists_syntax = True

    names = {"psycopg": "PsycopgProvider", "psycopg2": "Psycopg2Provider"}
    DjangoPGProvider.__name__ = DjangoPGProvider.__qualname__ = names[driver_name]
    return DjangoPGProvider


def driver(django_connection: Any) -> str:
    """The name of the module Django's connection uses (``psycopg`` or ``psycopg2``)."""
    return getattr(django_connection.Database, "__name__", "")


class PostgreSQLBackend(Backend):
    vendor = "postgresql"
    # "duplicate key value violates unique constraint ...", "... violates foreign key
    # constraint ...", "null value in column ... violates not-null constraint", "...
    # violates check constraint ...", "integer out of range", "value too long for type ...".
    refusal_words = {
        "unique": ("unique", "duplicate"),
        "reference": ("foreign key",),
        "required": ("null value",),
        "range": ("check constraint", "out of range"),
        "length": ("too long",),
    }

    def provider(self, django_connection: Any) -> type:
        return provider_for(driver(django_connection))

    def problem(self, django_connection: Any) -> str | None:
        name = driver(django_connection)
        if name not in DRIVERS:
            return (
                f"Django's PostgreSQL connection uses the {name!r} driver; djony serves "
                "psycopg 3 (pip install 'psycopg[binary]') and psycopg2."
            )
        return None

    def driver_error(self, exc: BaseException) -> BaseException:
        # Pony's PostgreSQL code reads psycopg2's name for the SQLSTATE.
        if not hasattr(exc, "pgcode"):
            exc.pgcode = getattr(exc, "sqlstate", None)  # type: ignore[attr-defined]
        return exc

    def refused_value_type(self, exc: BaseException) -> bool:
        return sqlstate(exc) in TYPE_MISMATCH

    def transaction_lost(self, django_connection: Any, errors: list[BaseException]) -> bool:
        """PostgreSQL aborts a transaction at its first failed statement.

        Its COMMIT then rolls back and reports no error; the driver knows the status
        from the server's last answer, without a round trip (also through PgBouncer
        and from Django's pool).
        """
        raw = django_connection.connection
        if raw is None:
            return True
        return int(raw.info.transaction_status) in (TRANSACTION_INERROR, TRANSACTION_UNKNOWN)


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a driver's error, or of the one Django's error wraps."""
    for error in (exc, exc.__cause__):
        code = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
        if code:
            return code
    return None


backend = PostgreSQLBackend()
