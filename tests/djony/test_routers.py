"""Database routers: reads follow ``db_for_read``, writes go to ``db_for_write``.

With :class:`tests.djony.routers.PrimaryReplicaRouter`, a DjonyResource reads from
``replica`` and writes (insert, update, delete, many-to-many) to ``default``,
in the transaction the request opened; a write request reads its own writes
from ``default``, since the replica cannot see them before the commit.

``replica`` is a real streaming replica when ``DJONY_PG_REPLICA_PORT`` is set
(``.ci/run`` starts one): there, a write sent to it would fail, and a read
after a write inside the request would miss the write.  Elsewhere it is a
second connection to the same database, which does not see the request's
uncommitted writes either (on SQLite it would find the tables locked).
"""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import OperationalError, connections
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from pony.orm import db_session

import djony
from djony.registry import entity_for
from tests.testapp.models import Author, Book, Tag
from tests.write import api as write_api
from tests.write.api import api_client, send

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = pytest.mark.usefixtures("transactional_db", "routed")

REAL_REPLICA = bool(getattr(settings, "PG_REPLICA_PORT", ""))
WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.fixture
def routed():
    replica = connections["replica"]
    if replica.vendor == "sqlite":
        # The in-memory database is shared between the two connections, and SQLite's
        # shared cache locks a table for other connections while a transaction that
        # wrote it is open (a write step's savepoint: the router sends the step's
        # related reads to the replica).  A replica serves its own copy instead; reading
        # uncommitted rows is the nearest a second connection to one cache comes to that.
        with replica.cursor() as cursor:
            cursor.execute("PRAGMA read_uncommitted = 1")
    with override_settings(DATABASE_ROUTERS=["tests.djony.routers.PrimaryReplicaRouter"]):
        yield
    # Django drops the test database at the end: no session of ours may stay on it.
    connections["replica"].close()


def caught_up() -> None:
    """Wait until the replica has replayed everything the primary committed (real replica)."""
    if not REAL_REPLICA:
        return
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()")
        (lsn,) = cursor.fetchone()
    deadline = time.monotonic() + 30
    while True:
        try:
            with connections["replica"].cursor() as cursor:
                cursor.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [lsn])
                if cursor.fetchone()[0]:
                    return
        except OperationalError:  # the test database's creation is not replayed yet
            connections["replica"].close()
        if time.monotonic() > deadline:
            raise AssertionError("the replica did not catch up with the primary in 30 s")
        time.sleep(0.05)


def statements(captured: CaptureQueriesContext) -> list[str]:
    return [query["sql"].lstrip().split(None, 1)[0].upper() for query in captured.captured_queries]


def request(method: str, path: str, body=None):
    """``method`` on ``/v3/<path>``: (response, statements on default, statements on replica)."""
    caught_up()
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        response = send(api_client(), "v3", method, path, body)
    return response, statements(primary), statements(replica)


def test_the_replica_is_what_it_claims() -> None:
    if not REAL_REPLICA:
        pytest.skip("replica is a second connection to the same database here")
    with connections["replica"].cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery()")
        assert cursor.fetchone()[0] is True


def test_reads_come_from_the_replica() -> None:
    response, primary, replica = request("GET", "author/?limit=0")
    assert response.status_code == 200, response.content
    assert primary == []
    assert "SELECT" in replica
    names = {obj["name"] for obj in response.json()["objects"]}
    assert names == set(Author.objects.using("default").values_list("name", flat=True))


def test_insert_with_many_to_many_goes_to_the_primary() -> None:
    tags = list(Tag.objects.using("default").values_list("pk", flat=True)[:2])
    body = {
        "title": "Routed",
        "author": "/API/author/1/",
        "tags": [f"/API/tag/{pk}/" for pk in tags],
    }
    response, primary, replica = request("POST", "book/", body)
    assert response.status_code == 201, response.content
    assert not set(replica) & set(WRITES)
    assert "INSERT" in primary
    book = Book.objects.using("default").get(title="Routed")
    # (the related manager follows the router to the replica, which may lag behind)
    links = book.tags.all().using("default").values_list("pk", flat=True)
    assert sorted(links) == sorted(tags)


def test_update_and_delete_go_to_the_primary() -> None:
    author = Author.objects.using("default").order_by("pk").first()
    response, primary, replica = request("PATCH", f"author/{author.pk}/", {"name": "Renamed"})
    assert response.status_code in (200, 202), response.content
    assert not set(replica) & set(WRITES)
    assert "UPDATE" in primary
    assert Author.objects.using("default").get(pk=author.pk).name == "Renamed"

    book = Book.objects.using("default").filter(editor=None).order_by("pk").first()
    response, primary, replica = request("DELETE", f"book/{book.pk}/")
    assert response.status_code == 204, response.content
    assert not set(replica) & set(WRITES)
    assert "DELETE" in primary
    assert not Book.objects.using("default").filter(pk=book.pk).exists()


def _put_fresh_tag(name: str):
    """PUT ``bookfull/<first book>/`` with one new tag ``name``: (response, primary statements)."""
    book = Book.objects.using("default").order_by("pk").first()
    fresh = Tag.objects.using("default").create(name=name)
    caught_up()
    body = {
        "title": book.title,
        "author": f"/API/author/{book.author_id}/",
        "tags": [f"/API/tag/{fresh.pk}/"],
    }
    response, primary, replica = request("PUT", f"bookfull/{book.pk}/", body)
    assert response.status_code == 200, response.content
    assert not set(replica) & set(WRITES)
    saved = Book.objects.using("default").get(pk=book.pk)
    assert list(saved.tags.all().using("default")) == [fresh]
    return response, primary


def test_a_write_request_looks_its_object_up_where_it_writes() -> None:
    """The object a PUT changes is read from ``db_for_write``, in the write's transaction.

    Its relations in the returned body are Django's related reads of the saved
    instance, which follow the router as they do for ModelResource: with this
    router they come from the replica, which may or may not have replayed the
    write yet, so only the primary's side is asserted here.
    """
    response, primary = _put_fresh_tag("fresh-routed")
    assert "SELECT" in primary and "UPDATE" in primary


def test_a_write_request_reads_its_own_writes_with_an_instance_router() -> None:
    """A router that reads an instance's relations from its database: the body has the new tags."""
    with override_settings(DATABASE_ROUTERS=["tests.djony.routers.InstanceRouter"]):
        response, _ = _put_fresh_tag("fresh-sticky")
    assert [tag["name"] for tag in response.json()["tags"]] == ["fresh-sticky"]


def test_model_p_reads_from_db_for_read_and_djony_db_names_either() -> None:
    assert Tag.p._database_ is djony.db("replica")
    assert entity_for(Tag, "default")._database_ is djony.db("default")
    caught_up()
    with db_session:
        on_replica = sorted(tag.name for tag in Tag.p.select())
    with db_session:
        entity_for(Tag, "default")(name="written-on-default")
    caught_up()
    with db_session:
        assert "written-on-default" in {tag.name for tag in Tag.p.select()}
    assert "written-on-default" not in on_replica
