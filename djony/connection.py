"""The bridge that makes Pony run on the connection Django holds.

Pony normally owns its connections: it opens them, switches autocommit,
issues ``BEGIN IMMEDIATE``, commits, rolls back and, on PostgreSQL, runs
``DISCARD ALL`` when it is done.  None of that may happen to a connection
Django owns, so this module gives Pony:

* :class:`DjangoPool`, a "pool" that hands out ``connections[alias]`` for the
  current thread (Django's own ``DatabaseWrapper``, so ``CONN_MAX_AGE``,
  ``close_old_connections`` and reconnects keep working), and
* :func:`provider_class`, a subclass of each Pony provider whose transaction
  hooks defer to Django: a Pony ``db_session`` that writes runs in a
  transaction of its own when Django is in autocommit (committed when the
  session ends) and in a savepoint inside Django's atomic block otherwise,
  so Pony never commits or rolls back a transaction Django owns (see
  :mod:`djony.transactions`).

Every statement goes through Django's cursor wrapper, so Pony's queries
appear in ``connection.queries``, ``assertNumQueries`` and
``CaptureQueriesContext`` and pass through ``connection.execute_wrapper``.
"""

from __future__ import annotations

from typing import Any

from django.db import connections
from django.db.utils import Error as DjangoDatabaseError
from pony.orm.dbapiprovider import wrap_dbapi_exceptions

from djony import converters, transactions


class PonyCursor:
    """A Django cursor, re-raising the driver's own exceptions.

    Django turns driver exceptions into ``django.db.utils`` ones; Pony only
    understands the driver's (which it turns into ``pony.orm`` exceptions).
    Django has already recorded the error on the connection by then, so its
    health checks still see it.  Before each statement the session's
    transaction scope is checked (see :func:`djony.transactions.ensure_scope`).
    """

    __slots__ = ("_cursor", "_connection")

    def __init__(self, cursor: Any, connection: PonyConnection) -> None:
        self._cursor = cursor
        self._connection = connection

    def execute(self, sql: str, params: Any = None) -> Any:
        self._connection.before_statement()
        try:
            return self._cursor.execute(sql, params)
        except DjangoDatabaseError as exc:
            raise (exc.__cause__ or exc) from None

    def executemany(self, sql: str, param_list: Any) -> Any:
        self._connection.before_statement()
        try:
            return self._cursor.executemany(sql, param_list)
        except DjangoDatabaseError as exc:
            raise (exc.__cause__ or exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __iter__(self):
        return iter(self._cursor)


class PonyConnection:
    """What Pony holds as "the connection": Django's wrapper for one alias.

    ``session`` is the Pony session cache using it, set by the provider when
    the session connects.
    """

    __slots__ = ("django", "alias", "session")

    def __init__(self, django_connection: Any, alias: str) -> None:
        self.django = django_connection
        self.alias = alias
        self.session: Any = None

    def cursor(self) -> PonyCursor:
        return PonyCursor(self.django.cursor(), self)

    def before_statement(self) -> None:
        if getattr(self.django, "djony_orphans", None):
            transactions.settle_orphans(self.alias)
        if self.session is not None and self.session.is_alive:
            transactions.ensure_scope(self.session, self.alias)

    def __getattr__(self, name: str) -> Any:
        # server_version and friends, read by Pony's inspect_connection().
        return getattr(self.django.connection, name)


class DjangoPool:
    """Pony's pool interface, backed by ``django.db.connections[alias]``.

    ``connections[alias]`` is already per thread, so this object is shared
    by all threads.  Releasing or dropping a connection is Django's business
    (request end, ``close_old_connections``), never Pony's.
    """

    def __init__(self, alias: str) -> None:
        self.alias = alias

    def connect(self) -> tuple[PonyConnection, bool]:
        django_connection = connections[self.alias]
        django_connection.ensure_connection()
        converters.prepare_raw_connection(django_connection)
        _prepare_mysql_session(django_connection)
        if getattr(django_connection, "djony_orphans", None):
            transactions.settle_orphans(self.alias)
        return PonyConnection(django_connection, self.alias), False

    def release(self, connection: PonyConnection) -> None:
        """Django keeps the connection; nothing to hand back."""

    def drop(self, connection: PonyConnection) -> None:
        """A failed connection is closed by Django at the end of the request."""

    def disconnect(self) -> None:
        """Django closes its connections itself."""


def _prepare_mysql_session(django_connection: Any) -> None:
    """What Pony's MySQL provider sets on each connection it opens, once per raw connection.

    Pony only does it for the connection it inspects at bind time; Django
    opens new ones (requests, reconnects, threads).  Without it MySQL cuts
    ``group_concat()`` results at 1024 bytes.
    """
    if django_connection.vendor != "mysql":
        return
    raw = django_connection.connection
    if getattr(django_connection, "_djony_session_prepared", None) is raw:
        return
    with raw.cursor() as cursor:
        cursor.execute("SET SESSION group_concat_max_len = 4294967295")
    django_connection._djony_session_prepared = raw


class DjangoTransactionsMixin:
    """Pony provider hooks that leave transactions to Django.

    ``set_transaction_mode`` is where Pony starts a transaction before its
    first write; here it opens a scope in Django's transaction instead (see
    :mod:`djony.transactions`).  ``commit`` and ``rollback`` close that scope.
    """

    alias: str

    @wrap_dbapi_exceptions
    def set_transaction_mode(self, connection: PonyConnection, cache: Any) -> None:
        connection.session = cache
        if not isinstance(cache.dbvals_deduplication_cache, converters.ExactDeduplication):
            cache.dbvals_deduplication_cache = converters.ExactDeduplication()
        transactions.ensure_scope(cache, self.alias)

    def commit(self, connection: PonyConnection, cache: Any = None) -> None:
        if cache is not None:
            transactions.close_scope(cache, failed=False)

    def rollback(self, connection: PonyConnection, cache: Any = None) -> None:
        if cache is not None:
            transactions.close_scope(cache, failed=True)

    def release(self, connection: PonyConnection, cache: Any = None) -> None:
        connection.session = None
        if cache is not None and getattr(cache, "djony_scope", None) is not None:
            transactions.close_scope(cache, failed=True)

    def drop(self, connection: PonyConnection, cache: Any = None) -> None:
        self.release(connection, cache)

    def disconnect(self) -> None:
        """Django owns the connections."""

    def should_reconnect(self, exc: Exception) -> bool:
        # Django reconnects between requests; a query never silently retries
        # on a new connection in the middle of a transaction.
        return False


def provider_class(vendor: str) -> type:
    """The Pony provider class for a Django database vendor, bridged to Django."""
    base = _base_provider(vendor)
    attributes: dict[str, Any] = {"converter_classes": converters.converter_classes(vendor, base)}
    if vendor == "sqlite":
        # Django's SQLite cursor takes "%s" placeholders (and "%%" for a literal
        # "%"), and formats the SQL with them for connection.queries.
        attributes["paramstyle"] = "format"
    return type("Django" + base.__name__, (DjangoTransactionsMixin, base), attributes)


def _base_provider(vendor: str) -> type:
    if vendor == "sqlite":
        from pony.orm.dbproviders.sqlite import SQLiteProvider

        return SQLiteProvider
    if vendor == "postgresql":
        from pony.orm.dbproviders.postgres import PGProvider

        return PGProvider
    if vendor == "mysql":
        from pony.orm.dbproviders.mysql import MySQLProvider

        return MySQLProvider
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        f"djony supports the sqlite, postgresql and mysql database backends; "
        f"this database uses {vendor!r}. Leave this alias out of djony."
    )


def bind(database: Any, alias: str) -> None:
    """Bind a Pony ``Database`` to the Django database ``alias``."""
    django_connection = connections[alias]
    _check_driver(alias, django_connection)
    provider = provider_class(django_connection.vendor)
    provider.alias = alias
    kwargs: dict[str, Any] = {"pony_pool_mockup": DjangoPool(alias)}
    if django_connection.vendor == "sqlite":
        kwargs["filename"] = ":memory:"  # unused: the pool hands out Django's
    database.bind(provider, **kwargs)


def _check_driver(alias: str, django_connection: Any) -> None:
    if django_connection.vendor != "postgresql":
        return
    module = getattr(django_connection.Database, "__name__", "")
    if not module.startswith("psycopg2"):
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            f"Database {alias!r} uses the {module!r} driver, but Pony ORM 0.7 "
            "speaks psycopg2 only. Install psycopg2 (pip install psycopg2-binary) "
            "and uninstall psycopg, so Django picks psycopg2 too."
        )
