"""The bridge that makes Pony run on the connection Django holds.

Pony normally owns its connections: it opens them, switches autocommit,
issues ``BEGIN IMMEDIATE``, commits, rolls back and, on PostgreSQL, runs
``DISCARD ALL`` when it is done.  None of that may happen to a connection
Django owns, so this module gives Pony:

* :class:`DjangoPool`, a "pool" that hands out ``connections[alias]`` for the
  current thread (Django's own ``DatabaseWrapper``, so ``CONN_MAX_AGE``,
  ``close_old_connections`` and reconnects keep working), and
* :func:`provider_class`, a subclass of the backend's Pony provider (see
  :mod:`djony.bridge.backends`) whose transaction hooks defer to Django: a Pony
  ``db_session`` that writes runs in a transaction of its own when Django is
  in autocommit (committed when the session ends) and in a savepoint inside
  Django's atomic block otherwise,
  so Pony never commits or rolls back a transaction Django owns (see
  :mod:`djony.bridge.transactions`).

Every statement goes through Django's cursor wrapper, so Pony's queries
appear in ``connection.queries``, ``assertNumQueries`` and
``CaptureQueriesContext`` and pass through ``connection.execute_wrapper``.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.db.utils import Error as DjangoDatabaseError
from pony.orm.dbapiprovider import wrap_dbapi_exceptions

from djony.bridge import backends, converters, transactions


class PonyCursor:
    """A Django cursor, re-raising the driver's own exceptions.

    Django turns driver exceptions into ``django.db.utils`` ones; Pony only
    understands the driver's (which it turns into ``pony.orm`` exceptions).
    Django has already recorded the error on the connection by then, so its
    health checks still see it.  Before each statement the session's
    transaction scope is checked (see :func:`djony.bridge.transactions.ensure_scope`).
    """

    __slots__ = ("_cursor", "_connection")

    def _driver_error(self, exc: DjangoDatabaseError) -> BaseException:
        return self._connection.backend.driver_error(exc.__cause__ or exc)

    def __init__(self, cursor: Any, connection: PonyConnection) -> None:
        self._cursor = cursor
        self._connection = connection

    def execute(self, sql: str, params: Any = None) -> Any:
        self._connection.before_statement()
        try:
            return self._cursor.execute(sql, params)
        except DjangoDatabaseError as exc:
            raise self._driver_error(exc) from None

    def executemany(self, sql: str, param_list: Any) -> Any:
        self._connection.before_statement()
        try:
            return self._cursor.executemany(sql, param_list)
        except DjangoDatabaseError as exc:
            raise self._driver_error(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __iter__(self):
        return iter(self._cursor)


class PonyConnection:
    """What Pony holds as "the connection": Django's wrapper for one alias.

    ``session`` is the Pony session cache using it, set by the provider when
    the session connects; ``backend`` is djony's backend for its vendor.
    """

    __slots__ = ("django", "alias", "session", "backend")

    def __init__(self, django_connection: Any, alias: str) -> None:
        self.django = django_connection
        self.alias = alias
        self.session: Any = None
        self.backend = backends.for_connection(django_connection)

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
        connection = PonyConnection(django_connection, self.alias)
        connection.backend.prepare_connection(django_connection)
        if getattr(django_connection, "djony_orphans", None):
            transactions.settle_orphans(self.alias)
        return connection, False

    def release(self, connection: PonyConnection) -> None:
        """Django keeps the connection; nothing to hand back."""

    def drop(self, connection: PonyConnection) -> None:
        """A failed connection is closed by Django at the end of the request."""

    def disconnect(self) -> None:
        """Django closes its connections itself."""


class DjangoTransactionsMixin:
    """Pony provider hooks that leave transactions to Django.

    ``set_transaction_mode`` is where Pony starts a transaction before its
    first write; here it opens a scope in Django's transaction instead (see
    :mod:`djony.bridge.transactions`).  ``commit`` and ``rollback`` close that scope.
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


def provider_class(django_connection: Any, alias: str) -> type:
    """The Pony provider class for Django's database ``alias``, bridged to Django."""
    base = backends.for_connection(django_connection).provider(django_connection)
    return type("Django" + base.__name__, (DjangoTransactionsMixin, base), {"alias": alias})


def bind(database: Any, alias: str) -> None:
    """Bind a Pony ``Database`` to the Django database ``alias`` (see :func:`alias_of`)."""
    django_connection = connections[alias]
    backend = backends.for_connection(django_connection)
    problem = backend.problem(django_connection)
    if problem is not None:
        raise ImproperlyConfigured(f"Database {alias!r}: {problem}")
    database.djony_alias = alias
    database.bind(
        provider_class(django_connection, alias),
        pony_pool_mockup=DjangoPool(alias),
        **backend.bind_kwargs(),
    )


def alias_of(database: Any) -> str:
    """The Django alias a Pony ``Database`` bound by :func:`bind` runs on."""
    return database.djony_alias
