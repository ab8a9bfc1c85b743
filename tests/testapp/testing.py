"""Helpers shared by the djony tests.

:class:`AutocommitTestCase` runs tests in Django's normal autocommit mode,
as ``TransactionTestCase`` does, but empties only the test app's tables
afterwards instead of flushing every table (a flush costs seconds per test
on PostgreSQL).  It also checks that each test left Django's connection
outside any transaction, which is what djony promises.
"""

from __future__ import annotations

from django.db import connection, connections
from django.test import TransactionTestCase

from tests.testapp import models

# Deleted in this order (referencing models first), each with Django's delete.
CLEANUP = [
    models.Loan,
    models.Chapter,
    models.Review,
    models.BookDetail,
    models.Book,
    models.Membership,
    models.Club,
    models.Protected,
    models.Author,
    models.Country,
    models.Tag,
    models.Publisher,
    models.AllTypes,
    models.Pizzeria,
    models.Restaurant,
    models.Place,
    models.Landmark,
    models.ConcreteThing,
]


def _reset_connection() -> None:
    """Bring Django's connection back to autocommit after a test broke it."""
    connection.atomic_blocks.clear()
    connection.savepoint_ids.clear()
    connection.in_atomic_block = False
    connection.needs_rollback = False
    connection.closed_in_transaction = False
    connection.close()


class AutocommitTestCase(TransactionTestCase):
    """``TransactionTestCase`` that empties the test app's tables instead of flushing all.

    Each test also fails if it left Django's connection inside a transaction.
    """

    def _fixture_teardown(self) -> None:
        connection.close_if_unusable_or_obsolete()  # a test may break the connection
        clean = not connection.in_atomic_block and connection.get_autocommit()
        if not clean:
            _reset_connection()
        for model in CLEANUP:
            model.objects.all().delete()
        assert clean, "the test left Django's connection inside a transaction"


def committed_names(model: type = models.Tag, field: str = "name") -> set:
    """The values of ``field`` that other connections see (committed rows).

    In-memory SQLite shares one cache between connections and makes readers
    fail on a writer's table lock; there, this connection must be outside any
    transaction, and then what it sees is what is committed.
    """
    column = model._meta.get_field(field).column
    if connection.vendor == "sqlite":
        assert connection.connection is None or not connection.connection.in_transaction
        return set(model.objects.values_list(field, flat=True))
    other = connections.create_connection(connection.alias)
    try:
        with other.cursor() as cursor:
            cursor.execute(f"SELECT {column} FROM {model._meta.db_table}")
            return {row[0] for row in cursor.fetchall()}
    finally:
        other.close()


def assert_not_committed(value: str, model: type = models.Tag, field: str = "name") -> None:
    """``value`` is written but not committed yet (see :func:`committed_names`)."""
    if connection.vendor == "sqlite":
        assert connection.connection.in_transaction
        assert model.objects.filter(**{field: value}).exists()
    else:
        assert value not in committed_names(model, field)
