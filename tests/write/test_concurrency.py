"""Concurrent PATCHes of different fields of one row keep every update.

Tastypie's own ``test_concurrent_patch_requests`` sends three PATCHes of one
note at once, each changing another field, and expects all three changes.
That holds only if each PATCH writes just its own field
(``save(update_fields=...)``): a PATCH that rewrote the whole row would put
back the values it read before the others wrote.  Here the three requests
are held at a barrier in ``hydrate()`` until all three have read the row,
so the race is certain, not likely; then they write one after the other.

A server database is needed (each thread has its own connection): the test
runs on PostgreSQL and MariaDB.
"""

from __future__ import annotations

import datetime
import threading

import pytest
from django.db import connection, connections

from tests.testapp.models import Author
from tests.write import api as write_api

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = [
    pytest.mark.usefixtures("transactional_db"),
    pytest.mark.skipif(
        connection.vendor == "sqlite", reason="needs a database server (a connection per thread)"
    ),
]

PATCHES = ({"name": "Bobby"}, {"email": "bobby@example.org"}, {"born": "1971-02-03"})


@pytest.mark.parametrize("api", ["v2", "v3", "v3o"])
def test_concurrent_patches_of_different_fields(api: str, monkeypatch) -> None:
    write_api.reset()
    monkeypatch.setattr(write_api, "GATE", threading.Barrier(len(PATCHES), timeout=60))
    statuses: list[int] = []

    def send(body: dict) -> None:
        try:
            response = write_api.send(write_api.api_client(), api, "PATCH", "gated/2/", body)
            statuses.append(response.status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send, args=(body,)) for body in PATCHES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [202, 202, 202]
    bob = Author.objects.get(pk=2)
    assert (bob.name, bob.email, bob.born) == (
        "Bobby",
        "bobby@example.org",
        datetime.date(1971, 2, 3),
    )
