"""A 4xx only where the client's input caused it; a resource's own bug is a 500, logged.

A ``get_object_list()`` that returns a sliced queryset cannot be filtered: every detail
fails, on ModelResource (``/se2/``) and DjonyResource (``/se3/``) alike, with Django's
own error logged; its list answers.  A value that fails to convert once the object is
found is the 500 Tastypie's dehydration gives it, for a detail too (only the lookup's
refusal of the URI's value is the 404 "mismatched type").  (A write refused on a row
no field of the body writes is the same line for writes: ``tests/write/test_outcomes.py``,
``orm_error``.)
"""

from __future__ import annotations

import logging

import pytest
from django.test import override_settings

from tests.sideeffects import models as m
from tests.write import api as write_api
from tests.write.api import api_client, send


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), override_settings(ROOT_URLCONF="tests.sideeffects.api"):
        write_api.reset(
            app_label="sideeffects",
            seed_rows=lambda: [(m.Keyword, [{"id": n, "name": f"k{n}"} for n in (1, 2, 3)])],
        )
        try:
            yield
        finally:
            write_api.reset(next_id=1, seed=False, app_label="sideeffects")


@pytest.mark.usefixtures("transactional_db")
@pytest.mark.parametrize(("path", "status"), [("first_keywords/1/", 500), ("first_keywords/", 200)])
def test_a_sliced_object_list_is_the_resources_bug(path, status, caplog) -> None:
    client = api_client()
    with caplog.at_level(logging.ERROR, logger="django.request.tastypie"):
        want = send(client, "se2", "GET", path)
        got = send(client, "se3", "GET", path)
    assert (got.status_code, want.status_code) == (status, status)
    assert got.content.replace(b"/se3/", b"/se2/") == want.content
    if status == 500:
        logged = [r for r in caplog.records if r.getMessage().endswith("/se3/" + path)]
        assert logged and "slice" in str(logged[0].exc_info[1])


@pytest.mark.usefixtures("transactional_db")
@pytest.mark.parametrize(
    ("path", "status"),
    [("numbered_keyword/1/", 500), ("numbered_keyword/", 500), ("numbered_keyword/abc/", 404)],
)
def test_a_value_that_fails_to_convert_is_a_500_not_a_404(path, status) -> None:
    client = api_client()
    want = send(client, "se2", "GET", path)
    got = send(client, "se3", "GET", path)
    assert (got.status_code, want.status_code) == (status, status)
    assert got.content.replace(b"/se3/", b"/se2/") == want.content
