"""Filters and list queries whose answers depended on DjonyResource's own SQL or messages.

* A one-value ``__range`` (``?price__range=abc``): Django decides what is wrong with
  the value, as for ModelResource (its validation message, or Tastypie's "mismatched
  type"); only a valid value of the wrong count is DjonyResource's own 400 (there
  ModelResource answers 500).
* A ``distinct()`` list of a model without ``Meta.ordering``: the database orders it
  as it likes, from the query's SQL; DjonyResource's queries select Django's columns
  in Django's order, so the database's order is the same.
"""

from __future__ import annotations

import pytest

from tests.tenants import testing
from tests.tenants.models import Tenant, TenantNote, TenantTag
from tests.write.api import api_client

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")


def both(path: str, user: str = "ann") -> tuple:
    return tuple(testing.answer(api, user, path, client=api_client()) for api in testing.APIS)


@pytest.mark.parametrize("field", ["views", "score", "price"])
@pytest.mark.parametrize(
    "value", ["abc", "a,b", "1,", "1.5", "1.5,2", "1,2", "x" * 30, "1", "1,2,3", ""]
)
def test_a_one_value_range(field, value):
    """Django's answer where Django refuses the value; a valid value of the wrong count: 400."""
    reference, target = both(f"note/?{field}__range={value}")
    if reference[0] == 500:  # ModelResource's IndexError on a valid value
        assert target[0] == 400
        assert "needs two comma-separated values" in target[2]["error"]
    else:
        assert target == reference


def many_rows() -> None:
    """Notes whose keys, titles and secrets sort in different orders, each with two tags."""
    acme = Tenant.objects.get(name="acme")
    for index in range(40):
        note = TenantNote.everything.create(
            tenant=acme,
            title=f"t{(index * 7) % 40:02d}",
            secret=f"s{(index * 13) % 40:02d}",
            views=(index * 3) % 5,
        )
        for name in ("x-1", "x-2"):
            tag = TenantTag.everything.create(tenant=acme, name=f"{name}-{index}")
            note.tags.add(tag)


@pytest.mark.parametrize("resource", ["dnote", "hdnote"])
def test_a_distinct_list_without_ordering_comes_in_django_s_order(resource):
    testing.reset()
    many_rows()
    try:
        for query in ("", "?limit=7", "?offset=5&limit=9", "?views=2", "?limit=0"):
            reference, target = both(f"{resource}/{query}")
            assert reference[0] == 200
            assert target == reference, query
    finally:
        testing.reset()
