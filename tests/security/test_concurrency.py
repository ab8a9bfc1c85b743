"""Concurrent writes to a unique column: one wins, the others get a 400 and
leave nothing behind.

What :mod:`tests.write.test_failures` does not cover: two (or more) requests
at the same moment, each on its own thread and database connection, that
clash on a unique column (a new tag's name, a book's ISBN, a nested tag
created with a book).  DjonyResource runs each write in one transaction, so
the loser's rows (the book saved before its nested tag clashed) are rolled
back with it, and the clash is a 400 with a message, not a 500.  Run in
autocommit, as a server without ATOMIC_REQUESTS.

Skipped on SQLite: the test database there is a shared-cache in-memory
database, whose table locks fail at once ("database table is locked")
instead of waiting, so it cannot host concurrent writers at all.
"""

from __future__ import annotations

import json
import threading

import pytest
from django.conf import settings
from django.db import close_old_connections, connection

from tests.testapp.models import Book, Tag
from tests.write import api as write_api
from tests.write.api import api_client, send

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = [
    pytest.mark.usefixtures("transactional_db"),
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
        reason="SQLite's shared-cache in-memory test database cannot host concurrent "
        "writers (table locks fail at once); run with DJONY_TEST_DATABASE=postgresql or mysql",
    ),
]

WRITERS = 4
ROUNDS = 3


def race(requests: list[tuple[str, str, object]], api: str = "v3") -> list:
    """Send each ``(method, path, body)`` on its own thread, all at once."""
    barrier = threading.Barrier(len(requests))
    responses: list = [None] * len(requests)

    def worker(i: int, method: str, path: str, body: object) -> None:
        try:
            client = api_client()
            barrier.wait(timeout=30)
            responses[i] = send(client, api, method, path, body)
        except BaseException as exc:  # noqa: BLE001 (reported below)
            responses[i] = exc
        finally:
            connection.close()

    threads = [
        threading.Thread(target=worker, args=(i, *request), daemon=True)
        for i, request in enumerate(requests)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a writer hung"
    close_old_connections()
    for response in responses:
        assert not isinstance(response, BaseException), repr(response)
    return responses


def statuses(responses) -> list[int]:
    return sorted(r.status_code for r in responses)


def assert_losers_told(responses) -> None:
    for response in responses:
        assert response.status_code < 500, response.content
        if response.status_code == 400:
            assert json.loads(response.content).get("error"), response.content


@pytest.fixture(autouse=True)
def seed():
    write_api.reset()


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_same_new_tag_at_once(round_):
    name = f"race-{round_}"
    responses = race([("POST", "tag/", {"name": name})] * WRITERS)
    assert statuses(responses) == [201] + [400] * (WRITERS - 1), [
        (r.status_code, r.content[:200]) for r in responses
    ]
    assert_losers_told(responses)
    assert Tag.objects.filter(name=name).count() == 1


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_books_with_the_same_new_nested_tag(round_):
    """Each book names a tag by its data, which Tastypie looks up and else creates.

    Whoever comes after the first commit finds the tag and links to it (201);
    whoever raced the first insert clashes on the unique name (400), and its
    book, inserted before the tag, must be gone with it.
    """
    before = write_api.snapshot()
    tag = f"nested-{round_}"
    requests = [
        (
            "POST",
            "book/",
            {"title": f"race-{round_}-{i}", "author": "/API/author/1/", "tags": [{"name": tag}]},
        )
        for i in range(WRITERS)
    ]
    responses = race(requests)
    codes = [r.status_code for r in responses]
    assert set(codes) <= {201, 400} and 201 in codes, codes
    assert_losers_told(responses)
    assert Tag.objects.filter(name=tag).count() == 1
    won = {f"race-{round_}-{i}" for i, code in enumerate(codes) if code == 201}
    books = Book.objects.filter(title__startswith=f"race-{round_}-")
    assert set(books.values_list("title", flat=True)) == won
    for book in books:
        assert list(book.tags.values_list("name", flat=True)) == [tag]
    after = write_api.snapshot()
    assert len(after["testapp_book"]) == len(before["testapp_book"]) + len(won)
    assert len(after["testapp_book_tags"]) == len(before["testapp_book_tags"]) + len(won)
    assert len(after["testapp_tag"]) == len(before["testapp_tag"]) + 1


def test_renames_to_the_same_name_at_once():
    """Different tags renamed to one name: one rename wins, the others change nothing."""
    before = dict(Tag.objects.values_list("pk", "name"))
    requests = [("PATCH", f"tag/{pk}/", {"name": "renamed"}) for pk in sorted(before)]
    responses = race(requests)
    assert statuses(responses) == [202] + [400] * (len(before) - 1), [
        (r.status_code, r.content[:200]) for r in responses
    ]
    assert_losers_told(responses)
    after = dict(Tag.objects.values_list("pk", "name"))
    assert list(after.values()).count("renamed") == 1
    changed = [pk for pk in before if before[pk] != after[pk]]
    assert len(changed) == 1


def test_same_isbn_at_once():
    requests = [
        (
            "PUT",
            f"book/{pk}/",
            {"title": f"isbn race {pk}", "isbn": "9781111111111", "author": "/API/author/1/"},
        )
        for pk in (2, 4)
    ]
    requests += [
        (
            "POST",
            "book/",
            {"title": f"isbn race new {i}", "isbn": "9781111111111", "author": "/API/author/2/"},
        )
        for i in range(2)
    ]
    before = write_api.snapshot()
    responses = race(requests)
    codes = [r.status_code for r in responses]
    assert sorted(c // 100 for c in codes) == [2, 4, 4, 4], codes
    assert_losers_told(responses)
    assert Book.objects.filter(isbn="9781111111111").count() == 1
    winner = Book.objects.get(isbn="9781111111111")
    after = write_api.snapshot()
    new_books = len(after["testapp_book"]) - len(before["testapp_book"])
    assert new_books == (1 if winner.title.startswith("isbn race new") else 0)
    # Only the winner's row changed.
    changed = [row for row in after["testapp_book"] if row not in before["testapp_book"]]
    assert [row["id"] for row in changed] == [winner.pk]


@pytest.mark.parametrize("api", ["v2", "v3"])
def test_concurrent_updates_of_one_row(api):
    """Several PATCHes of one book at once: ModelResource's last writer wins
    (every request 202); DjonyResource must not answer 500 for the race, and
    the row ends as one writer left it (title and pages from the same request)."""
    requests = [("PATCH", "book/1/", {"title": f"t{i}", "pages": 1000 + i}) for i in range(WRITERS)]
    responses = race(requests, api)
    codes = [r.status_code for r in responses]
    assert codes == [202] * WRITERS, [(r.status_code, r.content[:200]) for r in responses]
    book = Book.objects.get(pk=1)
    assert book.title == f"t{book.pages - 1000}", (book.title, book.pages)


def test_concurrent_reads_during_writes_see_whole_rows():
    """Readers racing writers see each book either before or after a write, never half."""
    requests = []
    for i in range(3):
        requests.append(("PATCH", f"book/{i + 1}/", {"title": f"t{i}", "pages": 1000 + i}))
        requests.append(("GET", f"book/{i + 1}/", None))
    responses = race(requests)
    for (method, _, _), response in zip(requests, responses, strict=True):
        assert response.status_code == (202 if method == "PATCH" else 200), response.content
        if method == "GET":
            book = json.loads(response.content)
            title, pages = book["title"], book["pages"]
            assert title == f"t{pages - 1000}" or pages < 1000, book
