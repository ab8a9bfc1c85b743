"""Bodies the serializer cannot read, and refusals: clear 400s that leak nothing.

A malformed body in any format Tastypie's serializer accepts (JSON, XML,
YAML, plist) is a 400 carrying the parser's reason; ModelResource answers
some with a 500 (YAML that does not scan, a YAML Python tag, plist) and
malformed XML with an empty message.  Every refusal DjonyResource answers
(unique, check, one-to-one, PROTECT, RESTRICT...) is worded in model terms:
no table or column name, no Pony identifier, no Python repr.
"""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection, models

from tastypie_djony.write.refusals import blocked_delete_message
from tests.differential.harness import TARGETS
from tests.testapp.models import Author, Country, Protected
from tests.write import api as write_api
from tests.write.api import PUB_PENGUIN
from tests.write.harness import (
    Bug,
    Case,
    Intended,
    case_adder,
    check_case,
    check_reference,
    delete,
    patch,
    post,
    put,
    run_case,
)
from tests.write.test_differential import CASES as DIFFERENTIAL_CASES
from tests.write.test_differential import KNOWN_MODELRESOURCE_BUGS

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = pytest.mark.usefixtures("transactional_db")

CASES: list[Case] = []
case = case_adder(CASES)

XML = "application/xml"
YAML = "text/yaml"
PLIST = "application/x-plist"

C = "malformed bodies"
case("post_xml_malformed", C, post("tag/", "<object><name>x</name", content_type=XML), expect=400)
case(
    "post_xml_ok", C, post("tag/", "<object><name>x</name></object>", content_type=XML), expect=201
)
case("post_yaml_does_not_scan", C, post("tag/", "name: [unclosed", content_type=YAML), expect=500)
case(
    "post_yaml_python_tag",
    C,
    post("tag/", "!!python/object/apply:os.system ['true']", content_type=YAML),
    expect=500,
)
case("post_yaml_ok", C, post("tag/", "name: fromyaml", content_type=YAML), expect=201)
case("post_plist_garbage", C, post("tag/", "garbage", content_type=PLIST), expect=500)
case("put_yaml_does_not_scan", C, put("tag/1/", "name: 'open", content_type=YAML), expect=500)
case("patch_xml_malformed", C, patch("tag/1/", "<object>", content_type=XML), expect=400)
case("post_json_number", C, post("tag/", "42"), expect=500)
case("patch_json_list", C, patch("tag/1/", "[1, 2]"), expect=500)
case("patch_json_string", C, patch("tag/1/", '"name"'), expect=500)

C = "refusals"
case("post_country_code_taken", C, post("country/", {"code": "DE", "name": "Other"}), expect=500)
case("delete_publisher_restrict_named", C, delete(f"publisher/{PUB_PENGUIN}/"), expect=500)

PARSER = "the parser's error escapes (a 500)"
KNOWN_BUGS = {
    "post_yaml_does_not_scan": Bug(PARSER),
    "post_yaml_python_tag": Bug("yaml.safe_load refuses the tag; the ConstructorError escapes"),
    "post_plist_garbage": Bug(PARSER),
    "put_yaml_does_not_scan": Bug(PARSER),
    "post_json_number": Bug("a body that is not an object: TypeError"),
    "patch_json_list": Bug("a body that is not an object: hasattr(obj, 1) raises TypeError"),
    "patch_json_string": Bug("a body that is not an object: update(**'name') raises TypeError"),
    "post_country_code_taken": Bug("unique violation: IntegrityError escapes save()"),
    "delete_publisher_restrict_named": Bug("RESTRICT: RestrictedError escapes delete()"),
}
XML_REASON = "Tastypie's XML error has an empty message; DjonyResource's gives the reason"
INTENDED = {
    "post_xml_malformed": Intended(XML_REASON, 400, 400),
    "patch_xml_malformed": Intended(XML_REASON, 400, 400),
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case: Case) -> None:
    check_reference(case)


@pytest.mark.parametrize("api", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_write(case: Case, api: str) -> None:
    check_case(case, api, bugs=KNOWN_BUGS, intended_tables=(INTENDED,))


def _error(case: Case, api: str = "v3") -> str:
    response = run_case(case, api).responses[-1]
    assert response["status"] == 400, response
    return json.loads(response["body"])["error"]


@pytest.mark.parametrize(
    "name", ["post_xml_malformed", "post_yaml_does_not_scan", "post_plist_garbage"]
)
def test_malformed_body_gives_the_parsers_reason(name: str) -> None:
    error = _error(next(c for c in CASES if c.name == name))
    assert error.startswith("The request body could not be read: "), error
    assert len(error) > len("The request body could not be read: ") + 5, error


def _leaks() -> re.Pattern:
    tables = {m._meta.db_table for m in write_api.all_tables()}
    words = [re.escape(t) for t in sorted(tables, key=len, reverse=True)]
    return re.compile(
        r"\w+\[(new:)?[^\]]*\]"  # Pony identifiers: Tag[new:4], Book[1]
        r"|\(\\?['\"]|\{\w+\["  # Python tuple / set reprs
        r"|IntegrityError|DataError|constraint \"|" + "|".join(words)
    )


REFUSED = [
    name
    for name, bug in {**KNOWN_MODELRESOURCE_BUGS, **KNOWN_BUGS}.items()
    if bug.v3_status == 400 and not name.startswith(("post_yaml", "put_yaml", "post_plist"))
]


@pytest.mark.parametrize("name", REFUSED)
def test_refusals_leak_nothing_internal(name: str) -> None:
    case_ = next(c for c in [*DIFFERENTIAL_CASES, *CASES] if c.name == name)
    bug = {**KNOWN_MODELRESOURCE_BUGS, **KNOWN_BUGS}[name]
    if connection.vendor not in bug.backends:
        pytest.skip(f"not a refusal on {connection.vendor}")
    at = bug.at if bug.at >= 0 else len(case_.requests) + bug.at
    response = run_case(case_, "v3").responses[at]
    error = json.loads(response["body"])["error"]
    assert not _leaks().search(error), error


def test_unique_refusal_names_the_field() -> None:
    error = _error(next(c for c in CASES if c.name == "post_country_code_taken"))
    assert error == "Could not save Country: Country with this code already exists.", error


def test_blocked_delete_names_the_rows_in_the_way() -> None:
    error = _error(next(c for c in CASES if c.name == "delete_publisher_restrict_named"))
    assert error == (
        f"Cannot delete Publisher 'Publisher object ({PUB_PENGUIN})': "
        "book 'Book object (1)' refers to it (RESTRICT)."
    ), error


def test_blocked_delete_names_at_most_five_rows_per_model() -> None:
    country = Country(pk=1, code="fr", name="France")
    authors = [Author(pk=pk, name=f"a{pk}") for pk in (7, 3, 1, 6, 2, 5, 4)]
    exc = models.ProtectedError("protected", [*authors, Protected(pk=9, country=country)])
    exc.deleted = country
    assert blocked_delete_message(exc) == (
        "Cannot delete Country 'France': authors 'Author object (1)', 'Author object (2)', "
        "'Author object (3)', 'Author object (4)', 'Author object (5)' and 2 more refer to it, "
        "protected 'Protected object (9)' refers to it (PROTECT)."
    )
