"""Many threads reading and writing through ``Model.p`` at once.

The mapping is built once (under a lock, even when every thread asks for it
at the same moment) and shared; each thread's ``db_session`` runs on that
thread's own Django connection.
"""

from __future__ import annotations

import threading
import time
import unittest

from django.db import connection, connections
from pony.orm import db_session, select

import djony
from djony import registry
from tests.testapp.models import Author, Tag
from tests.testapp.testing import AutocommitTestCase

THREADS = 8
SECONDS = 3.0


@unittest.skipIf(
    connection.vendor == "sqlite" and connection.is_in_memory_db(),
    "threads cannot share the in-memory SQLite test database: Django gives each "
    "thread its own connection, and concurrent writers on a shared-cache in-memory "
    "database fail with 'database table is locked' (run with a database server)",
)
class ThreadTests(AutocommitTestCase):
    def test_threads_share_the_mapping_and_keep_their_own_sessions(self) -> None:
        run_threads()


def run_threads() -> None:
    Author.objects.create(name="shared")
    registry.reset()  # every thread races to build the mapping
    barrier = threading.Barrier(THREADS)
    databases: list = []
    errors: list[BaseException] = []
    counts: dict[int, int] = {}

    def work(index: int) -> None:
        prefix = f"t{index}-"
        written = 0
        try:
            barrier.wait()
            databases.append(djony.db())
            deadline = time.monotonic() + SECONDS
            while time.monotonic() < deadline:
                with db_session:
                    cache = Tag.p._database_._get_cache()
                    tag = Tag.p(name=f"{prefix}{written}")
                    tag.flush()
                    assert cache.connection.django is connections["default"]  # this thread's
                    assert tag._session_cache_ is cache
                    mine = select(t.name for t in Tag.p if t.name.startswith(prefix)).count()
                    assert mine == written + 1, (mine, written)
                    assert Author.p.get(name="shared") is not None
                written += 1
                assert Tag.objects.filter(name__startswith=prefix).count() == written
                assert not connections["default"].in_atomic_block
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            counts[index] = written
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=SECONDS + 30)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert len(databases) == THREADS
    assert all(database is databases[0] for database in databases)
    assert databases[0] is djony.db()
    assert all(count > 0 for count in counts.values())
    assert Tag.objects.count() == sum(counts.values())
