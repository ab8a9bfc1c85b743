"""A list without an order comes in ModelResource's order, on every backend.

Neither Django nor Tastypie defines the order of a ``Meta.queryset`` without
``order_by`` or ``Meta.ordering``: the database returns rows in the order its plan for
the query gives (PostgreSQL lists an updated row after the others; MariaDB follows the
index a query reads).  DjonyResource's page query selects the columns Django's own does,
so the database picks the same order for both: here after updates that move rows, for a
plain model (the row-built plan), a multi-table child (its parent's columns joined in),
a resource showing fewer columns than the model has (MariaDB could read those from an
index, in its order) and a page past the first, ModelResource (``/se2/``) and
DjonyResource (``/se3/``) answer the same bytes.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings

from tests.sideeffects import models as m
from tests.write import api as write_api
from tests.write.api import api_client, send


def seed():
    return [
        (m.Keyword, [{"id": n, "name": f"k{n}"} for n in range(1, 8)]),
        (m.Blogger, [{"id": n, "name": f"b{9 - n}", "posts_count": 0} for n in range(1, 8)]),
        (m.Spot, [{"id": n, "name": f"s{n}"} for n in range(1, 6)]),
        (m.Eatery, [{"spot_ptr_id": n, "serves_pizza": n % 2 == 0} for n in range(1, 6)]),
    ]


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    """The seed rows, some of them updated after the others were written."""
    with django_db_blocker.unblock(), override_settings(ROOT_URLCONF="tests.sideeffects.api"):
        write_api.reset(app_label="sideeffects", seed_rows=seed)
        for key in (2, 5):
            m.Keyword.objects.filter(pk=key).update(name=f"renamed {key}")
        m.Spot.objects.filter(pk=1).update(name="moved")
        try:
            yield
        finally:
            write_api.reset(next_id=1, seed=False, app_label="sideeffects")


@pytest.mark.usefixtures("transactional_db")
@pytest.mark.parametrize(
    "path",
    [
        "keyword/",
        "keyword/?limit=3&offset=2",
        "eatery/",
        "eatery/?limit=2&offset=1",
        "blogger_name/",
        "blogger_name/?limit=3&offset=3",
    ],
)
def test_unordered_pages_come_in_modelresources_order(path) -> None:
    client = api_client()
    want = send(client, "se2", "GET", path).content.decode().replace("/se2/", "/API/")
    got = send(client, "se3", "GET", path).content.decode().replace("/se3/", "/API/")
    assert got == want
    assert m.Keyword.objects.all().ordered is False, connection.vendor
