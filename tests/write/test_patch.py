"""PATCH writes only what the request changes, as ``save(update_fields=...)``.

Tastypie 0.15.1's ``patch_detail`` dehydrates the object, merges the request
into that data, hydrates all of it back (``update_in_place`` ->
``obj_update`` -> ``full_hydrate``) and calls
``obj.save(update_fields=<the request's keys>)``: whatever the round trip did
to the other fields (a JSONField read back as the text of a dict, a
FileField's name as its URL, a ``dehydrate_<field>`` value, an empty file as
``None``, a BinaryField as the text of its bytes) is never written.  Each
case runs on ModelResource and DjonyResource; see
:mod:`tests.write.harness` for how runs are compared.
"""

from __future__ import annotations

import pytest

from tests.differential.harness import TARGETS
from tests.testapp.models import AllTypes
from tests.write import api as write_api
from tests.write.harness import (
    Case,
    case_adder,
    check_case,
    check_reference,
    get,
    patch,
    put,
)

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = pytest.mark.usefixtures("transactional_db")

CASES: list[Case] = []
case = case_adder(CASES)


def _with_file() -> None:
    AllTypes.objects.filter(pk=1).update(file="uploads/report.txt")


C = "PATCH only the request's fields"
case("patch_alltypes_keeps_json", C, patch("alltypes/1/", {"integer": 8}), expect=202)
case(
    "patch_alltypes_keeps_json_then_get",
    C,
    patch("alltypes/1/", {"char": "x"}),
    get("alltypes/1/"),
    expect=(202, 200),
)
case(
    "patch_alltypes_keeps_file_name",
    C,
    patch("alltypes/1/", {"integer": 8}),
    expect=202,
    setup=_with_file,
)
case("patch_alltypes_keeps_empty_file", C, patch("alltypes/1/", {"small": 1}), expect=202)
case("patch_alltypes_json_itself", C, patch("alltypes/1/", {"data": {"b": None}}), expect=202)
case("patch_alltypes_json_null", C, patch("alltypes/1/", {"data": None}), expect=202)
case("patch_alltypes_file_itself", C, patch("alltypes/1/", {"file": "a/b.txt"}), expect=202)
case("patch_alltypes_auto_now_untouched", C, patch("alltypes/1/", {"flag": False}), expect=202)
case("patch_blob_resource", C, patch("alltypesall/1/", {"integer": 9}), expect=202)
case(
    "patch_blob_resource_keeps_file",
    C,
    patch("alltypesall/1/", {"char": "y"}),
    expect=202,
    setup=_with_file,
)
case("put_blob_resource_text", C, put("alltypesall/1/", {"char": "z"}), expect=204)
case("patch_dehydrated_value_not_written", C, patch("shout/3/", {"code": "XX"}), expect=202)
case(
    "patch_dehydrated_value_then_get",
    C,
    patch("shout/3/", {"code": "YY"}),
    get("shout/3/"),
    get("country/3/"),
    expect=(202, 200, 200),
)
case("patch_dehydrated_field_itself", C, patch("shout/2/", {"name": "Gaul"}), expect=202)
case("patch_book_one_field", C, patch("book/2/", {"pages": 321}), expect=202)
case(
    "patch_book_relation_only",
    C,
    patch("book/2/", {"author": "/API/author/3/"}),
    expect=202,
)
case(
    "patch_author_to_field_relation",
    C,
    patch("author/2/", {"country_by_code": "/API/country/3/"}),
    expect=202,
)
case("patch_with_id_in_body", C, patch("tag/2/", {"id": 2, "name": "old"}), expect=202)
case("patch_restaurant_mti", C, patch("restaurant/2/", {"serves_pizza": False}), expect=202)
case("patch_restaurant_mti_parent_name", C, patch("restaurant/2/", {"name": "L."}), expect=202)
case("patch_empty_body", C, patch("book/1/", {}), expect=202)

P = "PATCH keys a Django instance has not (Pony's own attribute names) are ignored"
case("patch_pony_method_name", P, patch("tag/3/", {"get_pk": "x", "name": "n"}), expect=202)
# always_return_data: Tastypie echoes every key of the body, ignored or not.
case("patch_pony_names_echoed", P, patch("author/2/", {"to_dict": 1, "load": [2]}), expect=202)
case("patch_bad_uuid_key", P, patch("publisher/1/", {"get_pk": 1}), expect=400)
case("patch_pony_internal_name", P, patch("country/3/", {"_vals_": {}, "flush": None}), expect=202)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case: Case) -> None:
    check_reference(case)


@pytest.mark.parametrize("api", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_write(case: Case, api: str) -> None:
    check_case(case, api)
