"""Corpus: writes compared by rows.

PATCH writes only what it changes (a JSONField, a FileField, a column a
``dehydrate_<field>`` hook changes on the way out, an empty ImageField, a
BinaryField stay as they were); nested objects naming an existing row by
``resource_uri`` or by key update it; reverse one-to-one and reverse to-one
on write; POST carrying the key of an existing row; JSON null as SQL NULL;
``always_return_data`` with more decimal places than the column keeps; a
malformed body in every format is a 400 (ModelResource answers 500 for some:
recorded with ``modelresource_500``); a refused DELETE names the rows in the way.
"""

from __future__ import annotations

import pytest

from tests.patterns import testing
from tests.patterns.testing import Reference, check_reference, check_twin, error_of, scenario
from tests.write.harness import Req, delete, get, patch, post, put

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")
reference = Reference()


def body(content_type: str, text: str) -> Req:
    return Req("POST", "label/", text, content_type=content_type)


CASES = [
    scenario(
        "read_document",
        get("document/"),
        get("document/1/"),
        get("document/schema/"),
        expect=(200,) * 3,
    ),
    scenario(
        "patch_document_title_only",
        patch("document/1/", {"title": "Spec 2"}),
        get("document/1/"),
        expect=(202, 200),
    ),
    scenario("patch_document_json", patch("document/1/", {"data": {"z": [True]}}), expect=202),
    scenario(
        "patch_document_nulls",
        patch("document/1/", {"remark": None, "data": None, "price": None}),
        expect=202,
    ),
    scenario(
        "post_document_nulls",
        post("document/", {"title": "N", "remark": None, "data": None, "price": None}),
        expect=201,
    ),
    scenario("patch_document_summary", patch("document/1/", {"summary": "new"}), expect=202),
    scenario(
        "always_return_data_decimal",
        post("priceddocument/", {"title": "cheap", "price": "1.239"}),
        patch("priceddocument/1/", {"price": "2.005"}),
        put("priceddocument/1/", {"title": "Spec", "price": "3.14159"}),
        get("priceddocument/1/"),
        expect=(201, 202, 200, 200),
    ),
    scenario(
        "post_existing_key_updates",
        post("label/", {"id": 2, "name": "AI"}),
        get("label/"),
        expect=(201, 200),
    ),
    scenario(
        "nested_label_by_uri_updates_row",
        patch("novel/2/", {"labels": [{"resource_uri": "/API/label/3/", "name": "classics"}]}),
        get("label/"),
        expect=(202, 200),
    ),
    scenario(
        "nested_label_by_key_updates_row",
        post("novel/", {"title": "N", "writer_id": 2, "labels": [{"id": 4, "name": "shorts"}]}),
        get("label/"),
        expect=(201, 200),
    ),
    scenario(
        "reverse_one_to_one_nested",
        post("account/", {"name": "new", "profile": {"bio": "fresh"}, "invoices": []}),
        patch("account/2/", {"profile": {"bio": "solo's"}}),
        put("account/1/", {"name": "acme", "profile": {"id": 1, "bio": "rewritten"}}),
        get("account/"),
        expect=(201, 202, 204, 200),
    ),
    scenario(
        "reverse_one_to_one_second_profile",
        put("account/1/", {"name": "acme", "profile": {"bio": "rewritten"}, "invoices": []}),
        expect=500,
        modelresource_500="a second profile for the account: IntegrityError (unique)",
    ),
    scenario(
        "reverse_one_to_one_uri",
        patch("account/2/", {"profile": "/API/accountprofile/1/"}),
        get("account/"),
        expect=(202, 200),
    ),
    scenario(
        "reverse_to_many_nested_by_uri",
        patch("account/1/", {"invoices": [{"resource_uri": "/API/invoice/1/", "amount": "11.00"}]}),
        get("invoice/"),
        expect=(202, 200),
    ),
    scenario(
        "reverse_to_many_nested_new",
        post("account/", {"name": "billed", "invoices": [{"amount": "5.00"}]}),
        expect=500,
        modelresource_500="the invoice is saved before its account: IntegrityError (NOT NULL)",
    ),
    scenario(
        "refused_delete_protect",
        delete("shelf/1/"),
        expect=500,
        modelresource_500="PROTECT: ProtectedError",
    ),
    scenario(
        "refused_delete_restrict",
        delete("shelf/2/"),
        expect=500,
        modelresource_500="RESTRICT: RestrictedError",
    ),
    scenario("delete_unreferenced_shelf", delete("shelf/3/"), get("shelf/"), expect=(204, 200)),
    scenario("malformed_json", body("application/json", '{"name": "x"'), expect=400),
    scenario(
        "malformed_xml",
        body("application/xml", "<object><name>x</nam"),
        expect=400,
        clearer_error="Tastypie's XML error has an empty message; DjonyResource's gives the reason",
    ),
    scenario(
        "malformed_yaml",
        body("text/yaml", "name: [unclosed"),
        expect=500,
        modelresource_500="yaml.scanner/parser error escapes the serializer",
    ),
    scenario(
        "yaml_python_tag",
        body("text/yaml", "!!python/object/apply:os.system ['true']"),
        expect=500,
        modelresource_500="ConstructorError for a Python tag escapes the serializer",
    ),
    scenario(
        "malformed_plist",
        body("application/x-plist", "bplist00not really"),
        expect=500,
        modelresource_500="biplist.InvalidPlistException escapes the serializer",
    ),
]
BY_NAME = {c.name: c for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)


@pytest.mark.parametrize(
    ("case", "blocker"),
    [
        (c, name)
        for c, name in (
            (BY_NAME["refused_delete_protect"], "k1"),
            (BY_NAME["refused_delete_restrict"], "l1"),
        )
    ],
    ids=lambda v: getattr(v, "name", v),
)
def test_refused_delete_names_the_rows(case, blocker) -> None:
    """Besides a 400: the message says it could not delete, names the row in
    the way, and leaks no table name."""
    error = error_of(check_twin(reference, case))
    assert "delete" in error.lower(), error
    assert blocker in error, f"the blocking row ({blocker}) is not named: {error}"
    assert "patterns_" not in error, f"a table name in the message: {error}"
