"""Writes keep every side effect: ModelResource and DjonyResource twins, same rows.

The same requests go to ``/se2/`` (ModelResource) and ``/se3/`` (DjonyResource) of
:mod:`tests.sideeffects.api`, each on the same seed rows with every counter at 100.
Compared per case: each answer's status, Content-Type, Location and body (the API
prefix replaced), the rows of every table of the app afterwards, and the ordered log
of the signals Django sent (``pre_save``/``post_save`` with ``created``,
``update_fields``, ``raw``, ``using``; ``pre_delete``/``post_delete``; ``m2m_changed``
with ``action`` and ``pk_set``).  The models have logic (a ``save()`` that fills a slug
and keeps a counter, a ``delete()`` that writes a tombstone, a soft ``delete()``, a
proxy with receivers of its own, multi-table inheritance) and receivers that change a
field before a save and write audit rows after it.

Every case runs twice: in autocommit (a server without ``ATOMIC_REQUESTS``) and with
``ATOMIC_REQUESTS`` on, so rows the project's own code writes before a failure stay or
go as with ModelResource.
"""

from __future__ import annotations

import datetime
import json

import pytest
from django.conf import settings
from django.db import connection, connections
from django.test import override_settings

from tests.differential.harness import plist_data
from tests.sideeffects import models as m
from tests.sideeffects.receivers import SIGNALS
from tests.write import api as write_api
from tests.write.api import api_client, send

A = write_api.API_MARKER

#: Seed rows (inserted as rows: no save(), no signals).
EDITED = datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.timezone.utc)


def seed():
    return [
        (
            m.Blogger,
            [
                {"id": 1, "name": "ann", "posts_count": 1},
                {"id": 2, "name": "ben", "posts_count": 0},
            ],
        ),
        (m.Keyword, [{"id": 1, "name": "red"}, {"id": 2, "name": "blue"}]),
        (
            m.Story,
            [
                {
                    "id": 1,
                    "author_id": 1,
                    "title": "First",
                    "slug": "first",
                    "revision": 1,
                    "edited": EDITED,
                },
            ],
        ),
        (m.Story.tags.through, [{"id": 1, "story_id": 1, "keyword_id": 1}]),
        (
            m.Memento,
            [
                {"id": 1, "text": "note one", "hidden": False},
                {"id": 2, "text": "other", "hidden": False},
            ],
        ),
        (m.Spot, [{"id": 1, "name": "Luigi"}]),
        (m.Eatery, [{"spot_ptr_id": 1, "serves_pizza": True}]),
    ]


CASES: dict[str, list[tuple]] = {
    "post_fills_slug_counts_and_audits": [
        (
            "POST",
            "story/",
            {
                "author": f"{A}blogger/1/",
                "title": "  Hello World ",
                "tags": [f"{A}keyword/1/", f"{A}keyword/2/"],
            },
        ),
    ],
    "post_nested_author_and_tags": [
        (
            "POST",
            "story/",
            {
                "author": {"name": "bob"},
                "title": "Nested",
                "tags": [{"name": "green"}, f"{A}keyword/1/"],
            },
        ),
    ],
    "put_post_replaces_tags": [
        (
            "PUT",
            "story/1/",
            {"author": f"{A}blogger/2/", "title": "Second", "slug": "", "tags": [f"{A}keyword/2/"]},
        ),
    ],
    "patch_title_saves_update_fields": [("PATCH", "story/1/", {"title": "Renamed "})],
    "patch_tags": [("PATCH", "story/1/", {"tags": [f"{A}keyword/2/", f"{A}keyword/1/"]})],
    "patch_tags_cleared": [("PATCH", "story/1/", {"tags": []})],
    "delete_post_leaves_tombstone": [("DELETE", "story/1/", None)],
    "delete_author_cascades": [("DELETE", "blogger/1/", None)],
    "soft_delete": [("DELETE", "memento/1/", None), ("GET", "memento/", None)],
    "delete_list_soft_deletes_each": [("DELETE", "memento/?text__startswith=note", None)],
    "post_multi_table_child": [("POST", "eatery/", {"name": "Pepe", "serves_pizza": False})],
    "patch_parent_field_of_child": [("PATCH", "eatery/1/", {"name": "Luigi's"})],
    "delete_multi_table_child": [("DELETE", "eatery/1/", None)],
    "post_proxy_with_own_receivers": [
        ("POST", "featuredstory/", {"author": f"{A}blogger/1/", "title": "Star"}),
    ],
    "put_list_replaces_tags": [
        ("PUT", "keyword/", {"objects": [{"name": "red"}, {"name": "cyan"}]})
    ],
    "patch_list_creates_updates_deletes": [
        (
            "PATCH",
            "story/",
            {
                "objects": [
                    {"author": f"{A}blogger/2/", "title": "By patch"},
                    {"resource_uri": f"{A}story/1/", "title": "Patched"},
                ],
            },
        ),
        ("PATCH", "memento/", {"objects": [], "deleted_objects": [f"{A}memento/2/"]}),
    ],
    "override_writes_then_saves": [("POST", "audited_author/", {"name": "carl"})],
    "hook_writes_then_refuses": [("POST", "guarded_tag/", {"name": "xray"})],
    "hook_writes_then_saves": [("POST", "guarded_tag/", {"name": "yellow"})],
    # ModelResource answers 500 (the unique clash); the override's own row stays on both
    # in autocommit, and goes on both with ATOMIC_REQUESTS.
    "override_writes_then_save_refused": [("POST", "audited_author/", {"name": "ann"})],
}

#: Cases where ModelResource answers 500 and DjonyResource 400 (the rows are the same on both).
KNOWN_MODELRESOURCE_500 = {"override_writes_then_save_refused"}


def read_seed():
    """Three stories by two bloggers, for the reads whose hooks write."""
    return [
        (
            m.Blogger,
            [
                {"id": 1, "name": "ann", "posts_count": 2},
                {"id": 2, "name": "ben", "posts_count": 1},
            ],
        ),
        (m.Keyword, [{"id": 1, "name": "red"}, {"id": 2, "name": "blue"}]),
        (
            m.Story,
            [
                {
                    "id": key,
                    "author_id": author,
                    "title": title,
                    "slug": title.lower(),
                    "revision": revision,
                    "edited": EDITED,
                }
                for key, author, title, revision in (
                    (1, 1, "First", 1),
                    (2, 2, "Second", 2),
                    (3, 1, "Third", 5),
                )
            ],
        ),
        (
            m.Story.tags.through,
            [{"id": 1, "story_id": 1, "keyword_id": 1}, {"id": 2, "story_id": 2, "keyword_id": 2}],
        ),
    ]


#: GETs whose hooks write (:class:`tests.sideeffects.api` ``TouchedStoryResource`` and
#: ``PostingBloggerResource``): what a later row, field or request shows of the writes,
#: and the rows and signals they leave, are ModelResource's.
READ_CASES: dict[str, list[tuple]] = {
    "list_hooks_save_tag_and_post": [("GET", "touched_story/", None)] * 2,
    "list_as_xml": [("GET", "touched_story/?format=xml", None)],
    "detail_as_yaml": [("GET", "touched_story/1/?format=yaml", None)],
    "list_as_plist": [("GET", "touched_story/?format=plist", None)],
    "detail_hook_posts": [("GET", "touched_story/1/", None), ("GET", "touched_story/2/", None)],
    "set_in_asked_order": [("GET", "touched_story/set/3;1;2/", None)],
    "filtered_list": [("GET", "touched_story/?id__in=2,1", None)],
    "general_path_list": [("GET", "general_touched_story/", None)] * 2,
    "general_path_set": [("GET", "general_touched_story/set/3;1;2/", None)],
    "nested_posts_after_a_post": [("GET", "posting_blogger/", None)],
    "nested_posts_detail": [
        ("GET", "posting_blogger/1/", None),
        ("GET", "posting_blogger/2/", None),
    ],
}


def normalised_rows() -> dict:
    rows = write_api.snapshot("sideeffects")
    for row in rows["sideeffects_story"]:
        row["edited"] = "<seed>" if row["edited"] == EDITED else "<now>"
    return rows


def answer(response, api: str) -> dict:
    prefix = f"/{api}/"
    content_type = response.get("Content-Type") or ""
    if content_type.startswith("application/x-plist"):
        body = plist_data(response.content, prefix)
    else:
        text = response.content.decode().replace(prefix, A)
        body = json.loads(text) if text.startswith(("{", "[")) else text
    return {
        "status": response.status_code,
        "content_type": content_type,
        "location": (response.get("Location") or "").replace(prefix, A),
        "body": body,
    }


def run(api: str, requests: list[tuple], seed_rows=seed) -> tuple[list, dict, list]:
    # Fresh pages: a to-many without an order (Keyword has none) is listed in the order
    # PostgreSQL finds its rows, which must be the same for both runs.
    write_api.reset(app_label="sideeffects", seed_rows=seed_rows, fresh_pages=True)
    SIGNALS.clear()
    client = api_client()
    answers = [
        answer(send(client, api, method, path, body), api) for method, path, body in requests
    ]
    return answers, normalised_rows(), list(SIGNALS)


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    """The module's database, in autocommit (see :func:`tests.write.api.write_db_fixture`)."""
    with django_db_blocker.unblock(), override_settings(ROOT_URLCONF="tests.sideeffects.api"):
        try:
            yield
        finally:
            write_api.reset(next_id=1, seed=False, app_label="sideeffects")


@pytest.fixture(params=[False, True], ids=["autocommit", "atomic_requests"])
def atomic_requests(request, transactional_db):
    saved = connection.settings_dict["ATOMIC_REQUESTS"]
    connection.settings_dict["ATOMIC_REQUESTS"] = request.param
    try:
        yield request.param
    finally:
        connection.settings_dict["ATOMIC_REQUESTS"] = saved


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_answers_rows_and_signals(case: str, atomic_requests: bool) -> None:
    v2_answers, v2_rows, v2_signals = run("se2", CASES[case])
    v3_answers, v3_rows, v3_signals = run("se3", CASES[case])
    assert v3_signals == v2_signals
    if case in KNOWN_MODELRESOURCE_500:
        assert [a["status"] for a in v2_answers] == [500]
        assert [a["status"] for a in v3_answers] == [400]
        assert "already exists" in v3_answers[0]["body"]["error"], v3_answers
    else:
        assert v3_answers == v2_answers
    assert v3_rows == v2_rows


@pytest.fixture(params=[False, True], ids=["one_database", "replica_router"])
def routed(request):
    """With ``replica_router``, reads go to ``replica`` and the hooks' writes to ``default``
    (:class:`tests.djony.routers.PrimaryReplicaRouter`): a second connection to the same
    database, which sees what autocommit committed.  A real replica (``.ci/run``'s
    pg-replica leg) lags behind the primary, for ModelResource too: not compared there."""
    if not request.param:
        yield False
        return
    if getattr(settings, "PG_REPLICA_PORT", ""):
        pytest.skip("a real replica shows a hook's write after its lag, on either base")
    with override_settings(DATABASE_ROUTERS=["tests.djony.routers.PrimaryReplicaRouter"]):
        yield True
    connections["replica"].close()


@pytest.mark.parametrize("case", sorted(READ_CASES))
def test_reads_whose_hooks_write(case: str, atomic_requests: bool, routed: bool) -> None:
    if routed and atomic_requests:
        pytest.skip("the replica cannot see what the request's transaction wrote")
    v2_answers, v2_rows, v2_signals = run("se2", READ_CASES[case], read_seed)
    v3_answers, v3_rows, v3_signals = run("se3", READ_CASES[case], read_seed)
    assert [a["status"] for a in v2_answers] == [200] * len(v2_answers)
    assert v3_answers == v2_answers
    assert v3_rows == v2_rows
    assert v3_signals == v2_signals


def test_the_read_cases_write(transactional_db) -> None:
    """ModelResource's reads write what the cases are about, so they cannot go stale."""
    answers, rows, signals = run("se2", READ_CASES["list_hooks_save_tag_and_post"], read_seed)
    first = answers[0]["body"]["objects"]
    assert [story["title"] for story in first] == ["First", "Second", "Third"]
    assert [story["revision"] for story in first] == [2, 3, 5]
    assert [story["duplicate"] for story in first] == ["refused"] * 3
    assert first[1]["tag_names"] == ["seen"]  # retagged by the first row's hook
    assert [story["stored_posts"] for story in first] == [3, 1, 3]
    assert [r["title"] for r in rows["sideeffects_story"]][-2:] == ["Reply to 1", "Reply to 1"]
    tagged = [(s[1], s[2], s[7], s[8]) for s in signals if s[0] == "m2m_changed"]
    assert ("sideeffects.Story_tags", 2, "post_remove", (2,)) in tagged  # raw: Django 6.0+
    assert ("sideeffects.Story_tags", 2, "post_add", (100,)) in tagged
    answers, _, _ = run("se2", READ_CASES["nested_posts_after_a_post"], read_seed)
    ann, ben = answers[0]["body"]["objects"]
    assert [post["title"] for post in ben["posts"]] == ["Second", "Guest post"]
    assert ben["count"] == 2


def test_the_cases_do_what_their_names_say(transactional_db) -> None:
    """ModelResource's side effects, checked once so a case cannot go stale."""
    answers, rows, signals = run("se2", CASES["post_fills_slug_counts_and_audits"])
    assert answers[0]["status"] == 201
    (post,) = [r for r in rows["sideeffects_story"] if r["id"] == 100]
    assert (post["slug"], post["title"], post["revision"]) == ("hello-world", "Hello World", 1)
    assert [a["posts_count"] for a in rows["sideeffects_blogger"]] == [2, 0]
    assert [s[7] for s in signals if s[0] == "m2m_changed"] == [
        "pre_clear",
        "post_clear",
        "pre_add",
        "post_add",
    ]
    _, rows, _ = run("se2", CASES["soft_delete"])
    assert [n["hidden"] for n in rows["sideeffects_memento"]] == [True, False]
    _, rows, _ = run("se2", CASES["delete_post_leaves_tombstone"])
    assert [t["title"] for t in rows["sideeffects_epitaph"]] == ["First"]
    _, rows, signals = run("se2", CASES["post_proxy_with_own_receivers"])
    assert "featured" in [r["event"] for r in rows["sideeffects_auditrecord"]]
    answers, rows, _ = run("se2", CASES["hook_writes_then_refuses"])
    assert answers[0]["status"] == 401
    assert [r["event"] for r in rows["sideeffects_auditrecord"]] == ["refused"]
