"""Django's connection lifecycle: Pony follows Django's connection, whatever happens to it."""

from __future__ import annotations

import unittest

import pytest
from django.conf import settings
from django.db import close_old_connections, connection, connections
from django.db.backends.signals import connection_created
from pony.orm import OperationalError as PonyOperationalError
from pony.orm import db_session, group_concat

import djony
from tests.testapp.models import Tag
from tests.testapp.testing import AutocommitTestCase

IN_MEMORY = connection.vendor == "sqlite" and connection.is_in_memory_db()


def count_tags() -> int:
    with db_session:
        return Tag.p.select().count()


class ConnectionLifecycleTests(AutocommitTestCase):
    def setUp(self) -> None:
        self.created: list = []  # connections Django opens during the test
        connection_created.connect(self.record)
        self.addCleanup(connection_created.disconnect, self.record)

    def record(self, sender, connection, **kwargs) -> None:
        self.created.append(connection)

    def test_pony_reconnects_through_django_after_close(self) -> None:
        Tag.objects.create(name="x")
        djony.db()
        assert count_tags() == 1
        self.created.clear()
        connection.close()
        if not IN_MEMORY:  # Django keeps the in-memory SQLite test database open
            assert connection.connection is None
        assert count_tags() == 1
        assert connection.connection is not None
        assert len(self.created) == (0 if IN_MEMORY else 1)

    def test_close_old_connections_between_requests(self) -> None:
        Tag.objects.create(name="x")
        assert count_tags() == 1
        close_old_connections()  # CONN_MAX_AGE = 0: closed, as at the end of a request
        assert count_tags() == 1
        with db_session:
            Tag.p(name="y")
        close_old_connections()
        assert set(Tag.objects.values_list("name", flat=True)) == {"x", "y"}

    def test_group_concat_is_not_cut_on_new_connections(self) -> None:
        names = [f"{i:03d}-" + "x" * 45 for i in range(60)]  # 3000 characters together
        Tag.objects.bulk_create(Tag(name=name) for name in names)
        djony.db()
        connection.close()
        with db_session:
            joined = group_concat((t.name for t in Tag.p), sep=",")
        assert sorted(joined.split(",")) == names
        if connection.vendor == "mysql":  # Pony's setting, on Django's new connection too
            with connection.cursor() as cursor:
                cursor.execute("SELECT @@session.group_concat_max_len")
                assert cursor.fetchone()[0] > 1048576  # above MySQL's and MariaDB's defaults

    def test_the_thread_connection_is_djangos(self) -> None:
        with db_session:
            Tag.p.select().count()
            pony_connection = Tag.p._database_._get_cache().connection
            assert pony_connection.django is connections["default"]
            assert pony_connection.django.connection is connection.connection

    @unittest.skipIf(
        connection.vendor == "sqlite", "needs a database server to drop the connection"
    )
    @unittest.skipIf(
        bool(getattr(settings, "PGBOUNCER_PORT", "")),
        "behind PgBouncer the server connection killed is not the client's own",
    )
    def test_server_side_disconnect_is_survived_like_django(self) -> None:
        """The server drops the connection: the next query fails, Django's health check
        closes the connection, and Pony reconnects through Django."""
        assert count_tags() == 0
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")  # either driver
                (backend_pid,) = cursor.fetchone()
        killer = connections.create_connection("default")
        try:
            with killer.cursor() as cursor:
                if connection.vendor == "postgresql":
                    cursor.execute("SELECT pg_terminate_backend(%s)", [backend_pid])
                else:
                    cursor.execute(f"KILL {connection.connection.thread_id()}")
        finally:
            killer.close()
        with pytest.raises(PonyOperationalError):
            count_tags()
        assert connection.errors_occurred
        close_old_connections()  # what Django runs at the start and end of each request
        assert count_tags() == 0
