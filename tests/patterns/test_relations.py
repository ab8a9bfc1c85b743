"""Corpus: related managers in hooks and authorization.

The QuerySet API hook code uses on ``bundle.obj.labels`` (a related model in
its own ``Meta.ordering``) and ``bundle.obj.novel_set`` (Django's default
reverse accessor), a default manager that hides rows (``critique_set``), and
``bundle.obj.authors.all()`` in an authorization class for users who are and
are not an author's owner.
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
        "read_novel",
        get("novel/"),
        get("novel/1/"),
        get("novel/3/"),
        get("novel/?year__gte=2014"),
        get("novel/schema/"),
        get("novel/set/2;1/"),
        expect=(200,) * 6,
    ),
    scenario(
        "read_novelist_reverse_fk",
        get("novelist/"),
        get("novelist/1/"),
        get("novelist/3/"),
        expect=(200,) * 3,
    ),
    scenario(
        "read_critique_default_manager", get("critique/"), get("critique/2/"), expect=(200, 404)
    ),
    scenario(
        "post_novel_labels",
        post(
            "novel/",
            {"title": "Provenance", "year": 2017, "writer_id": 1, "labels": ["/API/label/4/"]},
        ),
        get("novel/4/"),
        expect=(201, 200),
    ),
    scenario(
        "put_novel_labels",
        put(
            "novel/2/",
            {
                "title": "Sword",
                "year": 2014,
                "writer_id": 2,
                "labels": ["/API/label/2/", "/API/label/4/"],
            },
        ),
        get("novel/2/"),
        get("novelist/2/"),
        expect=(204, 200, 200),
    ),
    scenario(
        "patch_novel_clear_labels",
        patch("novel/1/", {"labels": []}),
        get("novel/1/"),
        expect=(202, 200),
    ),
    scenario("delete_novel", delete("novel/1/"), get("novelist/1/"), expect=(204, 200)),
    scenario("delete_writer_cascades", delete("novelist/1/"), get("novel/"), expect=(204, 200)),
    scenario(
        "article_update_by_author_owner",
        get("article/1/"),
        patch("article/1/", {"title": "On AI, again"}),
        put("article/1/", {"title": "On AI", "authors": ["/API/novelist/1/"]}),
        expect=(200, 202, 204),
        client="alice",
    ),
    scenario(
        "article_refused_to_non_author",
        patch("article/2/", {"title": "Mine now"}),
        delete("article/2/"),
        put("article/2/", {"title": "Mine", "authors": ["/API/novelist/3/"]}),
        expect=(401, 401, 401),
        client="bob",
    ),
    scenario(
        "article_list_writes_filtered",
        patch(
            "article/",
            {"objects": [{"resource_uri": "/API/article/1/", "title": "Bob was here"}]},
        ),
        delete("article/"),
        get("article/"),
        expect=(202, 204, 200),
        client="bob",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)
