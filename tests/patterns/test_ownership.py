"""Corpus: per-user objects.

``read_list`` narrowed by ``owner=bundle.request.user``, details checked by
``bundle.obj.owner == bundle.request.user`` (and the other way round), the
owner assigned in ``hydrate()`` before POST/PUT/PATCH, and an
``ApiFieldError`` quoting ``repr(bundle.obj)``.
"""

from __future__ import annotations

import pytest

from tests.patterns import testing
from tests.patterns.testing import Reference, check_reference, check_twin, scenario
from tests.write.harness import delete, get, patch, post, put

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")
reference = Reference()

CASES = [
    scenario(
        "read_own_notes",
        get("note/"),
        get("note/1/"),
        get("note/3/"),
        get("note/set/1;2/"),
        get("note/schema/"),
        expect=(200, 200, 401, 200, 404),  # schema: read_detail meets a note without owner
        client="alice",
    ),
    scenario(
        "post_note_owner_from_request",
        post("note/", {"title": "new", "body": "by bob"}),
        get("note/"),
        expect=(201, 200),
        client="bob",
    ),
    scenario(
        "put_own_note",
        put("note/1/", {"title": "renamed", "body": "again"}),
        expect=200,  # always_return_data
        client="alice",
    ),
    scenario(
        "patch_own_note",
        patch("note/2/", {"body": "patched"}),
        expect=202,
        client="alice",
    ),
    scenario(
        "update_others_note_refused",
        patch("note/3/", {"body": "alice was here"}),
        put("note/3/", {"title": "alice's now", "body": "x"}),
        delete("note/3/"),
        expect=(401, 401, 401),
        client="alice",
    ),
    scenario(
        "list_writes_only_own",
        patch("note/", {"objects": [{"title": "added"}]}),
        delete("note/"),
        get("note/"),
        expect=(202, 204, 200),
        client="bob",
    ),
    scenario("delete_own_note", delete("note/1/"), get("note/"), expect=(204, 200), client="alice"),
    scenario(
        "error_quotes_repr",
        patch("note/1/", {"body": "forbidden"}),
        post("note/", {"title": "fresh", "body": "forbidden"}),
        expect=(400, 400),
        client="alice",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)
