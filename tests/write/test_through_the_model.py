"""Writes go through the Django model: their answers and rows are ModelResource's.

Concurrent PATCHes of different fields of one row (both changes survive), a PATCH of a
row holding a NaN float, a POST to a model keyed by a ``CharField`` without a key, and a
PATCH whose to-many value is not a list of URIs: each a differential test against
ModelResource.
"""

from __future__ import annotations

import json
import math
import threading

import pytest
from django.db import connection, connections

from tests.tenants import testing
from tests.tenants.models import TenantLabel, TenantNote
from tests.write.api import api_client

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")


def write(api: str, method: str, path: str, body, user: str = "ann"):
    data = body if isinstance(body, str) else json.dumps(body)
    return getattr(api_client(), method.lower())(
        f"/{api}/{path}", data, content_type="application/json", HTTP_X_USER=user
    )


def note_row(pk: int) -> dict:
    return TenantNote.everything.filter(pk=pk).values("title", "secret", "views", "score").get()


@pytest.mark.skipif(connection.vendor == "sqlite", reason="needs a connection per thread")
@pytest.mark.parametrize("api", testing.APIS)
def test_concurrent_patches_of_different_fields_both_survive(api):
    """Tastypie's test_concurrent_patch_requests pattern, many rounds, ungated."""
    testing.reset()
    for round_ in range(15):
        statuses: list = []
        bodies = ({"title": f"title {round_}"}, {"secret": f"secret {round_}"})
        barrier = threading.Barrier(len(bodies), timeout=60)

        def send(body: dict, barrier=barrier, statuses=statuses) -> None:
            try:
                barrier.wait()
                statuses.append(write(api, "PATCH", "hnote/1/", body).status_code)
            except BaseException as exc:  # noqa: BLE001 (reported below)
                statuses.append(repr(exc))
            finally:
                connections.close_all()

        threads = [threading.Thread(target=send, args=(body,)) for body in bodies]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert statuses == [202, 202], round_
        row = note_row(1)
        assert (row["title"], row["secret"]) == (f"title {round_}", f"secret {round_}")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="only PostgreSQL stores NaN")
@pytest.mark.parametrize("path", ["note/1/", "hnote/1/"])
def test_a_patch_of_a_row_holding_nan(path):
    answers = []
    for api in testing.APIS:
        testing.reset()
        TenantNote.everything.filter(pk=1).update(score=math.nan)
        response = write(api, "PATCH", path, {"title": "renamed"})
        row = note_row(1)
        answers.append((response.status_code, row["title"], math.isnan(row["score"])))
    assert answers[0] == (202, "renamed", True)
    assert answers[1] == answers[0]


def test_a_post_to_a_charfield_key_without_a_value():
    answers = []
    for api in testing.APIS:
        TenantLabel.objects.all().delete()
        response = write(api, "POST", "label/", {"name": "no key"})
        answers.append(
            (response.status_code, list(TenantLabel.objects.values_list("code", "name")))
        )
    assert answers[0][0] == 201
    assert answers[1] == answers[0]


@pytest.mark.parametrize("value", ['"nope"', '["nope"]'])
def test_a_patch_whose_to_many_value_is_not_a_uri(value):
    answers = []
    for api in testing.APIS:
        testing.reset()
        response = write(api, "PATCH", "note/1/", f'{{"tags": {value}}}')
        tags = list(TenantNote.everything.get(pk=1).tags.values_list("pk", flat=True))
        answers.append((response.status_code, tags))
    assert answers[1] == answers[0]
