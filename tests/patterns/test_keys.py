"""Corpus: keys of every common shape: a slug ``detail_uri_name``,
a UUID primary key, multi-table inheritance, a self-referential foreign key."""

from __future__ import annotations

import pytest

from tests.patterns import testing
from tests.patterns.seed import TOKEN_A
from tests.patterns.testing import Reference, check_reference, check_twin, scenario
from tests.write.harness import delete, get, patch, post, put

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")
reference = Reference()
NEW_TOKEN = "cccccccc-0000-4000-8000-000000000003"


def crud(resource, detail, other, new, changed, expect_post=201) -> list:
    return [
        scenario(
            f"{resource}_read",
            get(f"{resource}/"),
            get(f"{resource}/{detail}/"),
            get(f"{resource}/set/{detail};{other}/"),
            get(f"{resource}/schema/"),
            expect=(200,) * 4,
        ),
        scenario(
            f"{resource}_post",
            post(f"{resource}/", new),
            get(f"{resource}/"),
            expect=(expect_post, 200),
        ),
        scenario(
            f"{resource}_put",
            put(f"{resource}/{detail}/", changed),
            get(f"{resource}/"),
            expect=(204, 200),
        ),
        scenario(f"{resource}_patch", patch(f"{resource}/{detail}/", changed), expect=202),
        scenario(
            f"{resource}_delete",
            delete(f"{resource}/{detail}/"),
            get(f"{resource}/"),
            expect=(204, 200),
        ),
    ]


CASES = [
    *crud("topic", "django", "pony", {"slug": "orm", "title": "ORM"}, {"title": "Django!"}),
    *crud(
        "token",
        TOKEN_A,
        "bbbbbbbb-0000-4000-8000-000000000002",
        {"id": NEW_TOKEN, "label": "third"},
        {"label": "one"},
    ),
    *crud("cafe", 2, 2, {"name": "Kiosk", "seats": 2}, {"name": "Corner", "seats": 20}),
    *crud("venue", 1, 2, {"name": "Arena"}, {"name": "Hall 2"}),
    *crud(
        "category",
        2,
        4,
        {"name": "leaf", "parent": "/API/category/4/"},
        {"name": "moved", "parent": "/API/category/3/"},
    ),
    scenario(
        "token_post_generated_key",
        post("token/", {"label": "auto"}),
        get("token/"),
        expect=(201, 200),
    ),
    scenario(
        # Each spelling Django's UUIDField reads, each asked twice (the second answered
        # by the parameters the kept detail query prepared for it the first time), and
        # one it refuses, twice too.
        "token_key_spellings",
        *[
            get(f"token/{key}/")
            for key in (TOKEN_A.hex, TOKEN_A.hex.upper(), str(TOKEN_A).upper(), "not-a-uuid")
            for _ in range(2)
        ],
        expect=(200,) * 6 + (400,) * 2,
    ),
    scenario(
        "category_filter_parent",
        get("category/?parent=1"),
        get("category/?parent__name=root"),
        expect=(200, 200),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)
