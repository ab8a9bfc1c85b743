"""Corpus: generic relations: ``GenericForeignKeyField`` read,
written (POST, PUT, PATCH to another model) and in the schema; a
``GenericRelation`` exposed as a to-many field; deleting the owner deletes
its related rows as Django's collector does (a model without a
``GenericRelation`` leaves them)."""

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
        "read_generic",
        get("rating/"),
        get("rating/1/"),
        get("rating/3/"),
        get("rating/schema/"),
        get("ratedquote/"),
        get("ratedquote/1/"),
        get("ratedquote/schema/"),
        expect=(200,) * 7,
    ),
    scenario(
        "post_rating_on_memo",
        post("rating/", {"rating": 1, "content_object": "/API/memo/1/"}),
        get("rating/4/"),
        get("ratedquote/2/"),
        expect=(201, 200, 200),
    ),
    scenario(
        "put_rating_to_quote",
        put("rating/3/", {"rating": 3, "content_object": "/API/quote/2/"}),
        get("ratedquote/2/"),
        expect=(204, 200),
    ),
    scenario(
        "patch_rating_value",
        patch("rating/2/", {"rating": 1}),
        get("ratedquote/1/"),
        expect=(202, 200),
    ),
    scenario(
        "patch_rating_target",
        patch("rating/1/", {"content_object": "/API/memo/1/"}),
        expect=500,
        modelresource_500="save(update_fields=['content_object']): a GenericForeignKey "
        "is not a concrete field (ValueError)",
    ),
    scenario(
        "post_quote_with_nested_ratings",
        post("ratedquote/", {"byline": "Cy", "content": "c", "ratings": []}),
        expect=201,
    ),
    scenario("delete_quote_cascades", delete("ratedquote/1/"), get("rating/"), expect=(204, 200)),
    scenario("delete_memo_keeps_ratings", delete("memo/1/"), expect=204),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)
