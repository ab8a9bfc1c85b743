"""Corpus: ``get_object_list`` overrides returning
``super().get_object_list(request)`` with ``filter()``, ``select_related()``,
``prefetch_related()`` and ``annotate()``.

The annotated one either answers as ModelResource does or refuses clearly:
its error names the resource and says what to write instead.
"""

from __future__ import annotations

import pytest

from tests.patterns import testing
from tests.patterns.api import APIS
from tests.patterns.testing import Reference, check_reference, check_twin, compare, scenario
from tests.write.harness import delete, get, patch

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")
reference = Reference()


def reads(resource: str) -> tuple:
    return (
        get(f"{resource}/"),
        get(f"{resource}/1/"),
        get(f"{resource}/3/"),
        get(f"{resource}/set/1;2/"),
        get(f"{resource}/schema/"),
    )


CASES = [
    scenario("filtered", *reads("recentnovel"), expect=(200, 200, 404, 200, 200)),
    scenario(
        "filtered_writes",
        patch("recentnovel/3/", {"title": "hidden"}),
        delete("recentnovel/3/"),
        delete("recentnovel/2/"),
        expect=(404, 404, 204),
    ),
    scenario("select_related", *reads("joinednovel"), expect=(200,) * 5),
    scenario("select_related_patch", patch("joinednovel/1/", {"year": 2012}), expect=202),
    scenario("prefetch_related", *reads("prefetchednovel"), expect=(200,) * 5),
    scenario("prefetch_related_patch", patch("prefetchednovel/2/", {"title": "S"}), expect=202),
]
ANNOTATED = scenario(
    "annotate",
    *reads("countednovel"),
    patch("countednovel/2/", {"title": "S"}),
    expect=(200,) * 5 + (202,),
)


@pytest.mark.parametrize("case", [*CASES, ANNOTATED], ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)


def test_annotate_works_or_names_the_fix() -> None:
    """The same answers, or an error naming the resource and ``annotate``."""
    problems = compare(reference(ANNOTATED), testing.run(ANNOTATED, testing.TARGET))
    if not problems:
        return
    resource = APIS["v3"].canonical_resource_for("countednovel")
    bundle = resource.build_bundle()
    with pytest.raises(Exception) as caught:  # noqa: PT011 - any clear refusal will do
        list(resource.obj_get_list(bundle))
    message = str(caught.value)
    assert "countednovel" in message or "CountedNovelResource" in message, (
        f"answers differ from ModelResource's and the error names no resource: {message}\n"
        + "\n".join(problems)
    )
    assert "annotate" in message, f"the error does not name annotate(): {message}"
