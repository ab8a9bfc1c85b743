"""Corpus: ``FormValidation`` and ``CleanedDataFormValidation`` with a
ModelForm, the related user as a URI and as nested data
(``{"pk": ...}``), valid and invalid, on POST, PUT and PATCH."""

from __future__ import annotations

import pytest

from tests.patterns import testing
from tests.patterns.testing import Reference, check_reference, check_twin, scenario
from tests.write.harness import get, patch, post, put

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")
reference = Reference()

ALICE_URI = "/API/member/9001/"


def cases(resource: str) -> list:
    return [
        scenario(
            f"{resource}_post_uri",
            post(f"{resource}/", {"title": "t", "body": "b", "owner": ALICE_URI}),
            get(f"{resource}/4/"),
            expect=(201, 200),
        ),
        scenario(
            f"{resource}_post_nested_pk",
            post(f"{resource}/", {"title": "t", "body": "b", "owner": {"pk": 9002}}),
            expect=201,
        ),
        scenario(
            f"{resource}_post_invalid",
            post(f"{resource}/", {"title": "loud!", "body": "b", "owner": ALICE_URI}),
            post(f"{resource}/", {"body": "no title", "owner": ALICE_URI}),
            expect=(400, 400),
        ),
        scenario(
            f"{resource}_put_nested_pk",
            put(f"{resource}/1/", {"title": "t2", "body": "b2", "owner": {"pk": 9002}}),
            get(f"{resource}/1/"),
            expect=(204, 200),
        ),
        scenario(
            f"{resource}_patch",
            patch(f"{resource}/2/", {"title": "patched"}),
            patch(f"{resource}/2/", {"title": "bad!"}),
            patch(f"{resource}/2/", {"owner": ALICE_URI.replace("9001", "9002")}),
            expect=(202, 400, 202),
        ),
    ]


CASES = cases("formnote") + cases("cleannote")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)
