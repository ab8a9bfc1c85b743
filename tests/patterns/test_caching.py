"""Corpus: ``Meta.cache = SimpleCache()``: details are cached, so
the objects must pickle; a write after a cached read, and a cached related
object shown in full."""

from __future__ import annotations

import pytest

from tests.patterns import testing
from tests.patterns.testing import Reference, check_reference, check_twin, scenario
from tests.write.harness import delete, get, patch, put

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")
reference = Reference()

CASES = [
    scenario(
        "cached_details",
        get("cachedwriter/1/"),
        get("cachedwriter/1/"),
        get("cachedwriter/"),
        get("cachednovel/1/"),
        get("cachednovel/1/"),
        expect=(200,) * 5,
    ),
    scenario(
        "write_after_cached_read",
        get("cachedwriter/2/"),
        patch("cachedwriter/2/", {"name": "Bo B."}),
        get("cachedwriter/2/"),
        put("cachedwriter/2/", {"name": "Bo", "slug": "bo", "status": "a"}),
        get("cachedwriter/2/"),
        expect=(200, 202, 200, 204, 200),
    ),
    scenario(
        "delete_after_cached_read",
        get("cachednovel/3/"),
        delete("cachednovel/3/"),
        get("cachednovel/3/"),
        expect=(200, 204, 200),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)
