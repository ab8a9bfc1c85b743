"""The differential WRITE suite: the same requests against ModelResource
(``/v2/``) and DjonyResource (``/v3/``, ``/v3o/``) must give the same
responses and leave the same rows.

Each case is a sequence of requests (paths relative to the API root,
``/API/`` in a body standing for the API's own prefix).  For each API the
test tables are reset to the seed rows of :mod:`tests.write.api` with every
auto-increment counter at 100, the case's ``setup`` runs, the requests are
sent, and every row of every test table is read after each request.  Two
runs are the same when, for every request, status, Content-Type, Location
and body are equal once the API prefix is replaced, and every table holds
the same rows (an auto-created M2M table without its ``id``: see
:func:`tests.write.api.snapshot`).

The requests run in autocommit, as on a server without ATOMIC_REQUESTS, not
in a savepoint per request: ModelResource's partial writes must stay
visible, and a savepoint would undo them whenever a database error went
through Django's ``atomic``.  Counters are reset instead of rolled back (a
rollback does not give back sequence values on PostgreSQL and MariaDB), so
a created row has the same primary key whichever API created it.  The test
client answers a 500 for an exception (``SERVER_NAME`` is not
``testserver``); a request that still raises counts as a 500.

Values a run cannot reproduce are normalised on both sides, by position:
datetimes within the run's time window (``timezone.now`` defaults,
``auto_now``/``auto_now_add``) become ``<now>`` (so a NULL or an old value
still differs), generated UUIDs (``Publisher.uid``) become ``<uuid-1>``...,
and generated ``AllTypes.code`` values become ``<code-1>``... (two rows given
the same generated code would show as the same placeholder).

Where ModelResource is broken (a 500 for bad input, or rows left behind by a
failing request), the case is listed in :data:`KNOWN_MODELRESOURCE_BUGS`:
the test asserts that v2 really does that (so the entry cannot go stale),
and that v3 answers 400 with an error message and changes nothing.

``test_reference`` checks ModelResource's statuses against each case's
``expect``, so a case keeps testing what its name says.
"""

from __future__ import annotations

import datetime
import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import django
import pytest
from django.db import connection
from django.utils import timezone

from tests.differential.harness import TARGETS
from tests.testapp.models import (
    Book,
    Chapter,
    Loan,
    Protected,
)
from tests.write import api as write_api
from tests.write.api import API_MARKER, PUB_ORBIT, PUB_PENGUIN, SEED_CODES, api_client, send

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = pytest.mark.usefixtures("transactional_db")

REFERENCE = "v2"
BACKENDS = ("sqlite", "postgresql", "mysql")


# =============================================================================
# Cases
# =============================================================================
@dataclass(frozen=True)
class Req:
    method: str
    path: str
    body: object = None
    content_type: str = "application/json"

    def text(self) -> str:
        body = (
            self.body if isinstance(self.body, str) else json.dumps(self.body, ensure_ascii=False)
        )
        return f"{self.method} {self.path} {body}"


def post(path, body, **kw) -> Req:
    return Req("POST", path, body, **kw)


def put(path, body, **kw) -> Req:
    return Req("PUT", path, body, **kw)


def patch(path, body, **kw) -> Req:
    return Req("PATCH", path, body, **kw)


def delete(path) -> Req:
    return Req("DELETE", path)


def get(path) -> Req:
    return Req("GET", path)


@dataclass(frozen=True)
class Case:
    name: str
    category: str
    requests: tuple[Req, ...]
    expect: (
        tuple[int, ...] | dict[str, tuple[int, ...]]
    )  # ModelResource's statuses, maybe per backend
    setup: Callable[[], None] | None = None

    def text(self) -> str:
        return "\n".join(r.text() for r in self.requests)


@dataclass(frozen=True)
class Bug:
    """ModelResource is broken on a case's last request.

    ``status``: what v2 answers (500 for an unexpected exception).
    ``partial``: v2 leaves rows changed although the request failed.
    ``v3_status``: what DjonyResource answers (400 with a message; 500 only
    where the client's own code raised a plain exception).
    """

    reason: str
    status: int = 500
    partial: bool = False
    v3_status: int = 400
    backends: tuple[str, ...] = BACKENDS
    at: int = -1  # which request (index into the case's requests)

    @property
    def is_partial(self) -> bool:
        """Whether v2 leaves rows changed."""
        return self.partial


def case_adder(cases: list[Case]) -> Callable[..., None]:
    """A ``case(name, category, *requests, expect=..., setup=...)`` that appends to ``cases``.

    Other write-suite modules (``tests/write/``) keep their own list
    and run it with :func:`check_case`.
    """

    def case(name, category, *requests, expect, setup=None) -> None:
        def statuses(value):
            value = (value,) if isinstance(value, int) else tuple(value)
            assert len(value) == len(requests), name
            return value

        if isinstance(expect, dict):
            expect = {vendor: statuses(value) for vendor, value in expect.items()}
        else:
            expect = statuses(expect)
        assert name not in {c.name for c in cases}, name
        cases.append(Case(name, category, tuple(requests), expect, setup))

    return case


CASES: list[Case] = []
case = case_adder(CASES)


BOOK_AUTHOR = "/API/author/1/"
PENGUIN = f"/API/publisher/{PUB_PENGUIN}/"
ORBIT = f"/API/publisher/{PUB_ORBIT}/"
NEW_UUID = "55555555-5555-4555-8555-555555555555"

ALL_FIELDS = {
    "char": "every type",
    "text": "multi\nline ✓",
    "slug": "every-type",
    "email": "every@example.com",
    "url": "https://example.org/x?y=1",
    "file_path": "",
    "file": "uploads/x.txt",
    "ip": "2001:db8::1",
    "integer": -2147483648,
    "big": 9223372036854775807,
    "small": -32768,
    "positive": 2147483647,
    "positive_small": 32767,
    "positive_big": 9223372036854775807,
    "floating": 0.125,
    "amount": "12345678.1234",
    "whole": "9999999999",
    "flag": True,
    "maybe": False,
    "day": "2024-02-29",
    "moment": "2024-03-01T10:00:00",
    "clock": "23:59:59.123456",
    "uid": "66666666-6666-4666-8666-666666666666",
    "data": {"nested": [1, "two", None, {"three": 3.5}]},
    "code": "every001",
    "custom_column": 12,
}

# --- POST list ---------------------------------------------------------------
C = "POST list"
case("post_tag", C, post("tag/", {"name": "fantasy"}), expect=201)
case(
    "post_tag_then_get",
    C,
    post("tag/", {"name": "fantasy"}),
    get("tag/100/"),
    get("tag/"),
    expect=(201, 200, 200),
)
case(
    "post_country_always_return_data",
    C,
    post("country/", {"code": "ES", "name": "España"}),
    expect=201,
)
case(
    "post_tag_surrounding_whitespace",
    C,
    post("tag/", {"name": "  spaced  "}),
    get("tag/100/"),
    expect=(201, 200),
)
case("post_tag_unique_violation", C, post("tag/", {"name": "scifi"}), expect=500)
case("post_author_minimal", C, post("author/", {"name": "Eve"}), expect=201)
case(
    "post_author_country_uri",
    C,
    post("author/", {"name": "Eve", "country": "/API/country/2/"}),
    expect=201,
)
case(
    "post_author_to_field_fk_uri",
    C,
    post("author/", {"name": "Eve", "country_by_code": "/API/country/2/"}),
    expect=201,
)
case(
    "post_author_country_nested_new",
    C,
    post("author/", {"name": "Eve", "country": {"code": "ES", "name": "España"}}),
    expect=201,
)
case(
    "post_author_country_nested_resource_uri",
    C,
    post(
        "author/",
        {"name": "Eve", "country": {"resource_uri": "/API/country/2/", "name": "Frankreich"}},
    ),
    expect=201,
)
case(
    "post_author_country_nested_unique_key",
    C,
    post("author/", {"name": "Eve", "country": {"code": "IT", "name": "Italy"}}),
    expect=201,
)
case(
    "post_author_country_nested_unknown_resource_uri",
    C,
    post("author/", {"name": "Eve", "country": {"resource_uri": "/API/country/99/", "name": "X"}}),
    expect=400,
)
case(
    "post_authorfull_nested_country_new",
    C,
    post("authorfull/", {"name": "Eve", "country": {"code": "NL", "name": "Nederland"}}),
    expect=201,
)
case(
    "post_authorfull_nested_country_and_mentor_existing",
    C,
    post(
        "authorfull/",
        {
            "name": "Eve",
            "country": {"code": "FR", "name": "République française"},
            "mentor": {"resource_uri": "/API/author/2/", "email": "bob@example.org"},
        },
    ),
    expect=201,
)
case(
    "post_author_mentor_uri",
    C,
    post("author/", {"name": "Eve", "mentor": "/API/author/3/"}),
    expect=201,
)
case("post_author_mentor_null", C, post("author/", {"name": "Eve", "mentor": None}), expect=201)
case(
    "post_author_mentor_nested_new",
    C,
    post("author/", {"name": "Eve", "mentor": {"name": "Gus", "country": "/API/country/1/"}}),
    expect=201,
)
case(
    "post_author_reverse_books_nested",
    C,
    post(
        "author/",
        {"name": "Eve", "books": [{"title": "New One"}, {"title": "New Two", "pages": 10}]},
    ),
    expect=201,
)
case(
    "post_author_reverse_books_uri",
    C,
    post("author/", {"name": "Eve", "books": ["/API/book/2/"]}),
    expect=201,
)
case(
    "post_author_reverse_books_empty", C, post("author/", {"name": "Eve", "books": []}), expect=201
)
case(
    "post_author_follows_uris",
    C,
    post("author/", {"name": "Eve", "follows": ["/API/author/1/", "/API/author/2/"]}),
    expect=201,
)
case(
    "post_book_minimal_defaults",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR}),
    expect=201,
)
case(
    "post_book_every_field",
    C,
    post(
        "book/",
        {
            "title": "Full",
            "isbn": "9781111111111",
            "author": "/API/author/2/",
            "editor": "/API/author/3/",
            "publisher": ORBIT,
            "tags": ["/API/tag/3/", "/API/tag/1/"],
            "price": "5.55",
            "pages": 1,
            "published": "2020-01-01T10:00:00",
            "in_print": False,
            "rating": 1.5,
        },
    ),
    expect=201,
)
case(
    "post_book_tags_nested_new",
    C,
    post(
        "book/",
        {"title": "New", "author": BOOK_AUTHOR, "tags": [{"name": "fresh"}, {"name": "newer"}]},
    ),
    expect=201,
)
case(
    "post_book_tags_nested_existing_unique_key",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR, "tags": [{"name": "poetry"}]}),
    expect=201,
)
case(
    "post_book_tags_mixed_uri_and_nested",
    C,
    post(
        "book/", {"title": "New", "author": BOOK_AUTHOR, "tags": ["/API/tag/2/", {"name": "fresh"}]}
    ),
    expect=201,
)
case(
    "post_book_tags_null",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR, "tags": None}),
    expect=201,
)
case(
    "post_book_author_nested_new",
    C,
    post("book/", {"title": "New", "author": {"name": "Hal", "country": "/API/country/1/"}}),
    expect=201,
)
case("post_book_missing_author", C, post("book/", {"title": "New"}), expect=400)
case(
    "post_book_unknown_author_uri",
    C,
    post("book/", {"title": "New", "author": "/API/author/999/"}),
    expect=400,
)
case(
    "post_book_author_uri_of_other_resource",
    C,
    post("book/", {"title": "New", "author": "/API/tag/1/"}),
    expect=404,
)
case(
    "post_book_author_not_a_uri",
    C,
    post("book/", {"title": "New", "author": "nonsense"}),
    expect=404,
)
case(
    "post_book_pages_wrong_type",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR, "pages": "many"}),
    expect=500,
)
case(
    "post_book_price_wrong_type",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR, "price": "cheap"}),
    expect=400,
)
case(
    "post_book_published_wrong_type",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR, "published": "yesterday"}),
    expect=400,
)
case(
    "post_book_isbn_unique_violation",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR, "isbn": "9780000000001"}),
    expect=500,
)
case(
    "post_book_title_too_long",
    C,
    post("book/", {"title": "x" * 201, "author": BOOK_AUTHOR}),
    expect={"sqlite": 201, "postgresql": 500, "mysql": 500},
)
case(
    "post_book_negative_pages_check_constraint",
    C,
    post("book/", {"title": "New", "author": BOOK_AUTHOR, "pages": -1}),
    expect=500,
)
case(
    "post_book_nul_character",
    C,
    post("book/", {"title": "a\u0000b", "author": BOOK_AUTHOR}),
    expect={"sqlite": 201, "postgresql": 500, "mysql": 201},
)
case("post_bad_json", C, post("book/", "{not json"), expect=400)
case("post_json_list_instead_of_object", C, post("tag/", [{"name": "x"}]), expect=201)
case(
    "post_bookstrict_with_tags",
    C,
    post("bookstrict/", {"title": "New", "author": BOOK_AUTHOR, "tags": ["/API/tag/1/"]}),
    expect=201,
)
case(
    "post_bookstrict_missing_required_to_many",
    C,
    post("bookstrict/", {"title": "New", "author": BOOK_AUTHOR}),
    expect=400,
)
case(
    "post_bookfull_always_return_data",
    C,
    post(
        "bookfull/",
        {
            "title": "New",
            "author": BOOK_AUTHOR,
            "publisher": PENGUIN,
            "tags": ["/API/tag/2/", {"name": "fresh"}],
        },
    ),
    expect=201,
)
case(
    "post_bookdetail_one_to_one",
    C,
    post("bookdetail/", {"book": "/API/book/2/", "summary": "S"}),
    expect=201,
)
case(
    "post_bookdetail_one_to_one_taken",
    C,
    post("bookdetail/", {"book": "/API/book/1/", "summary": "S"}),
    expect=500,
)
case("post_publisher_generated_uuid_pk", C, post("publisher/", {"name": "Tor"}), expect=201)
case(
    "post_publisher_explicit_uuid_pk",
    C,
    post("publisher/", {"name": "Tor", "uid": NEW_UUID}),
    expect=201,
)
case("post_alltypes_every_field", C, post("alltypes/", ALL_FIELDS), expect=201)
case("post_alltypes_defaults", C, post("alltypes/", {}), expect=201)
case(
    "post_alltypes_callable_default_per_row",
    C,
    post("alltypes/", {}),
    post("alltypes/", {"char": "2"}),
    expect=(201, 201),
)
case("post_alltypes_code_unique_violation", C, post("alltypes/", {"code": "seed0001"}), expect=500)
case("post_alltypes_integer_wrong_type", C, post("alltypes/", {"integer": "x"}), expect=500)
case(
    "post_alltypes_duration",
    C,
    post("alltypes/", {"span": "P1DT1H1M1.5S"}),
    expect={"postgresql": 201, "sqlite": 500, "mysql": 500},
)
case(
    "post_alltypes_moment_with_offset",
    C,
    post("alltypes/", {"moment": "2024-03-01T10:00:00+05:00"}),
    expect=201,
)
case(
    "post_alltypes_moment_in_dst_gap",
    C,
    post("alltypes/", {"moment": "2024-03-31T02:30:00"}),
    expect=201,
)
case("post_alltypes_day_invalid", C, post("alltypes/", {"day": "2023-02-30"}), expect=400)
case("post_alltypes_uuid_invalid", C, post("alltypes/", {"uid": "not-a-uuid"}), expect=400)
# Django's save() keeps a malformed IP address as text (get_prep_value only cleans
# what parses): ModelResource answers 201 where the column is text, a 500 where
# PostgreSQL's inet refuses it (DjonyResource: a 400).
MALFORMED_IP = {"sqlite": 201, "postgresql": 500, "mysql": 201}
case("post_alltypes_ip_malformed", C, post("alltypes/", {"ip": "1:x::"}), expect=MALFORMED_IP)
case(
    "put_alltypes_ip_malformed",
    C,
    put("alltypes/1/", {"ip": "::x:1"}),
    expect={**MALFORMED_IP, "sqlite": 200, "mysql": 200},
)
case(
    "post_alltypes_nulls",
    C,
    post(
        "alltypes/",
        {
            k: None
            for k in (
                "ip",
                "big",
                "small",
                "positive",
                "positive_small",
                "positive_big",
                "floating",
                "amount",
                "whole",
                "maybe",
                "day",
                "moment",
                "clock",
                "span",
                "uid",
                "data",
                "custom_column",
            )
        },
    ),
    expect=201,
)
case(
    "post_restaurant_mti",
    C,
    post("restaurant/", {"name": "Pasta", "address": "3 Main St", "serves_pizza": False}),
    expect=201,
)
case(
    "post_pizzeria_mti_two_levels", C, post("pizzeria/", {"name": "Forno", "ovens": 3}), expect=201
)
case("post_validated_ok", C, post("validcountry/", {"code": "ES", "name": "España"}), expect=201)
case("post_validated_invalid", C, post("validcountry/", {"code": "es", "name": ""}), expect=400)
case("post_cleaned_data_validation", C, post("cleantag/", {"name": "  MiXeD  "}), expect=201)
case("post_cleaned_data_validation_invalid", C, post("cleantag/", {"name": ""}), expect=400)
case("post_hydrate_hooks", C, post("hooked/", {"name": "  eve adams ", "nick": "ev"}), expect=201)
case(
    "post_hydrate_hooks_email",
    C,
    post("hooked/", {"name": "eve", "email": "EVE@X.ORG"}),
    expect=201,
)
case(
    "post_hook_raises_before_save",
    C,
    post("explode/", {"title": "boom", "author": BOOK_AUTHOR}),
    expect=500,
)
case(
    "post_hook_bad_request_before_save",
    C,
    post("explode/", {"title": "bad request", "author": BOOK_AUTHOR}),
    expect=400,
)
case(
    "post_hook_raises_after_save",
    C,
    post("explode/", {"title": "late boom", "author": BOOK_AUTHOR, "tags": ["/API/tag/1/"]}),
    expect=500,
)
case(
    "post_hook_bad_request_after_save",
    C,
    post("explode/", {"title": "late bad request", "author": BOOK_AUTHOR}),
    expect=400,
)
case(
    "post_nested_unique_clash_after_parent",
    C,
    post(
        "book/",
        {
            "title": "New",
            "author": BOOK_AUTHOR,
            "tags": [{"resource_uri": "/API/tag/1/", "name": "classic"}],
        },
    ),
    expect=500,
)
case(
    "post_reverse_nested_unique_clash_after_parent",
    C,
    post(
        "author/",
        {"name": "Eve", "books": [{"resource_uri": "/API/book/2/", "isbn": "9780000000001"}]},
    ),
    expect=500,
)
case("post_django_writes_resource", C, post("tagdj/", {"name": "viadjango"}), expect=201)
case("post_django_writes_unique_violation", C, post("tagdj/", {"name": "scifi"}), expect=500)
case(
    "post_explicit_pk",
    C,
    post("tag/", {"id": 55, "name": "fifty-five"}),
    post("tag/", {"name": "next"}),
    expect=(201, 201),
)
case(
    "post_unknown_fields_ignored",
    C,
    post("tag/", {"name": "x", "bogus": 1, "resource_uri": "/API/tag/1/"}),
    expect=201,
)
case(
    "post_nested_to_one_unknown_field",
    C,
    post("author/", {"name": "Eve", "country": {"code": "DE", "bogus": 1}}),
    expect=201,
)
case(
    "post_xml_body",
    C,
    post("tag/", "<object><name>from xml</name></object>", content_type="application/xml"),
    expect=201,
)
case(
    "post_unsupported_content_type",
    C,
    post("tag/", "name=x", content_type="text/plain"),
    expect=415,
)
case("post_to_detail_not_implemented", C, post("tag/1/", {"name": "x"}), expect=501)
case(
    "post_author_to_field_fk_nested",
    C,
    post("author/", {"name": "Eve", "country_by_code": {"code": "NL", "name": "Nederland"}}),
    expect=201,
)

# --- PUT detail --------------------------------------------------------------
C = "PUT detail"
case("put_tag_update", C, put("tag/1/", {"name": "sf"}), expect=204)
case(
    "put_tag_create_when_absent",
    C,
    put("tag/50/", {"name": "fifty"}),
    get("tag/50/"),
    expect=(201, 200),
)
case(
    "put_country_update_always_return_data",
    C,
    put("country/2/", {"code": "FR", "name": "Frankreich"}),
    expect=200,
)
case(
    "put_author_update_relations",
    C,
    put(
        "author/2/",
        {
            "name": "Bobby",
            "country": "/API/country/3/",
            "mentor": None,
            "country_by_code": "/API/country/3/",
            "follows": ["/API/author/3/"],
        },
    ),
    expect=200,
)
case(
    "put_author_reverse_books",
    C,
    put("author/4/", {"name": "Dot", "books": ["/API/book/2/"]}),
    expect=200,
)
case(
    "put_book_replace_tags_uris",
    C,
    put("book/1/", {"title": "Dune", "author": BOOK_AUTHOR, "tags": ["/API/tag/3/"]}),
    expect=204,
)
case(
    "put_book_tags_absent",
    C,
    put("book/1/", {"title": "Dune II", "author": BOOK_AUTHOR}),
    expect=204,
)
case(
    "put_book_tags_empty_list",
    C,
    put("book/1/", {"title": "Dune", "author": BOOK_AUTHOR, "tags": []}),
    expect=204,
)
case(
    "put_book_tags_nested",
    C,
    put(
        "book/2/",
        {
            "title": "Emma",
            "author": "/API/author/2/",
            "tags": [{"name": "fresh"}, {"name": "scifi"}],
        },
    ),
    expect=204,
)
case(
    "put_book_nested_author_update",
    C,
    put(
        "book/1/", {"title": "Dune", "author": {"resource_uri": "/API/author/1/", "name": "Annie"}}
    ),
    expect=204,
)
case(
    "put_book_null_editor_and_publisher",
    C,
    put("book/1/", {"title": "Dune", "author": BOOK_AUTHOR, "editor": None, "publisher": None}),
    expect=204,
)
case(
    "put_book_change_author",
    C,
    put("book/1/", {"title": "Dune", "author": "/API/author/4/"}),
    get("book/1/"),
    expect=(204, 200),
)
case(
    "put_book_isbn_unique_violation",
    C,
    put("book/2/", {"title": "Emma", "author": "/API/author/2/", "isbn": "9780000000003"}),
    expect=500,
)
case(
    "put_book_create_when_absent",
    C,
    put("book/77/", {"title": "Lucky", "author": BOOK_AUTHOR}),
    expect=201,
)
case(
    "put_restaurant_mti_update",
    C,
    put("restaurant/2/", {"name": "Luigi's", "address": "9 Side St", "serves_pizza": False}),
    expect=200,
)
case("put_alltypes_update_every_field", C, put("alltypes/1/", ALL_FIELDS), expect=200)
case(
    "put_publisher_uuid_update",
    C,
    put(f"publisher/{PUB_ORBIT}/", {"name": "Orbit Books"}),
    expect=200,
)
case(
    "put_publisher_uuid_create_when_absent",
    C,
    put(f"publisher/{NEW_UUID}/", {"name": "Tor"}),
    expect=201,
)
case("put_bad_json", C, put("tag/1/", "{'name': 'single quotes'}"), expect=400)
case(
    "put_bookdetail_move_to_taken_book",
    C,
    put("bookdetail/2/", {"book": "/API/book/1/"}),
    expect=500,
)
case("put_validated_invalid", C, put("validcountry/1/", {"code": "de", "name": "x"}), expect=400)
case("put_validated_ok", C, put("validcountry/1/", {"code": "DE", "name": "Germany"}), expect=204)
case("put_hydrate_hooks", C, put("hooked/2/", {"name": "bob builder", "nick": "bb"}), expect=200)
case(
    "put_author_reverse_books_nested_update",
    C,
    put(
        "author/2/",
        {
            "name": "Bob",
            "books": [
                {"resource_uri": "/API/book/2/", "title": "Emma (2nd ed.)"},
                {"title": "Fresh"},
            ],
        },
    ),
    expect=200,
)
case(
    "put_bookfull_nested_output",
    C,
    put(
        "bookfull/2/",
        {
            "title": "Emma",
            "author": "/API/author/2/",
            "publisher": ORBIT,
            "tags": ["/API/tag/3/", "/API/tag/1/"],
        },
    ),
    expect=200,
)
case(
    "put_authorfull_nested_country",
    C,
    put(
        "authorfull/4/",
        {"name": "Dot", "country": {"resource_uri": "/API/country/4/", "name": "Nippon"}},
    ),
    expect=200,
)
case("put_detail_id_in_body_differs", C, put("tag/1/", {"id": 3, "name": "renamed"}), expect=204)
case("put_django_writes_resource", C, put("tagdj/2/", {"name": "classics"}), expect=200)

# --- PUT list ----------------------------------------------------------------
C = "PUT list"
case("put_list_tags", C, put("tag/", {"objects": [{"name": "a"}, {"name": "b"}]}), expect=204)
case(
    "put_list_countries_always_return_data",
    C,
    put(
        "country/",
        {"objects": [{"code": "NL", "name": "Nederland"}, {"code": "BE", "name": "België"}]},
    ),
    expect=200,
    setup=lambda: Protected.objects.all().delete(),
)
case(
    "put_list_countries_protected",
    C,
    put("country/", {"objects": [{"code": "NL", "name": "NL"}]}),
    expect=500,
)
case("put_list_missing_objects_key", C, put("tag/", {"things": []}), expect=400)
case(
    "put_list_second_object_fails",
    C,
    put("tag/", {"objects": [{"name": "a"}, {"name": "a"}]}),
    expect=500,
)
case(
    "put_list_books_filtered",
    C,
    put("book/?title=Emma", {"objects": [{"title": "Emma 2", "author": "/API/author/2/"}]}),
    expect=204,
)

# --- PATCH detail ------------------------------------------------------------
C = "PATCH detail"
case("patch_tag", C, patch("tag/1/", {"name": "sf"}), expect=202)
case(
    "patch_author_always_return_data", C, patch("author/3/", {"email": "c@example.org"}), expect=202
)
case(
    "patch_book_tags_only",
    C,
    patch("book/1/", {"tags": ["/API/tag/3/"]}),
    get("book/1/"),
    expect=(202, 200),
)
case("patch_book_tags_absent_untouched", C, patch("book/1/", {"title": "Dune!"}), expect=202)
case("patch_book_tags_empty", C, patch("book/1/", {"tags": []}), expect=202)
case("patch_book_editor_null", C, patch("book/1/", {"editor": None}), expect=202)
case("patch_book_tags_nested_new", C, patch("book/2/", {"tags": [{"name": "fresh"}]}), expect=202)
case("patch_missing_object", C, patch("book/999/", {"title": "x"}), expect=404)
case("patch_book_isbn_unique_violation", C, patch("book/2/", {"isbn": "9780000000001"}), expect=500)
case("patch_book_pages_wrong_type", C, patch("book/1/", {"pages": "many"}), expect=500)
case(
    "patch_restaurant_mti_parent_field",
    C,
    patch("restaurant/3/", {"address": "New address"}),
    expect=202,
)
case(
    "patch_alltypes_several_fields",
    C,
    patch("alltypes/1/", {"char": "patched", "amount": "0.0001", "maybe": True, "data": [1, 2, 3]}),
    expect=202,
)
case("patch_author_reverse_books", C, patch("author/1/", {"books": ["/API/book/2/"]}), expect=202)
case("patch_author_follows_cleared", C, patch("author/3/", {"follows": []}), expect=202)
case(
    "patch_pizzeria_mti_own_and_parent_fields",
    C,
    patch("pizzeria/3/", {"ovens": 4, "name": "Napoli 2"}),
    expect=202,
)
case("patch_hydrate_hooks", C, patch("hooked/3/", {"email": "CID@EXAMPLE.ORG"}), expect=202)
case("patch_django_writes_resource", C, patch("tagdj/3/", {"name": "verse"}), expect=202)
case(
    "patch_author_mentor_nested_update",
    C,
    patch("author/2/", {"mentor": {"resource_uri": "/API/author/1/", "email": "ann@new.org"}}),
    expect=202,
)

# --- PATCH list --------------------------------------------------------------
C = "PATCH list"
case(
    "patch_list_create_and_update",
    C,
    patch("tag/", {"objects": [{"name": "new"}, {"resource_uri": "/API/tag/1/", "name": "sf"}]}),
    expect=202,
)
case(
    "patch_list_deleted_objects",
    C,
    patch("tag/", {"objects": [], "deleted_objects": ["/API/tag/3/"]}),
    expect=202,
)
case(
    "patch_list_create_via_unknown_resource_uri",
    C,
    patch("tag/", {"objects": [{"resource_uri": "/API/tag/50/", "name": "fifty"}]}),
    expect=202,
)
case(
    "patch_list_always_return_data",
    C,
    patch(
        "author/",
        {
            "objects": [
                {"name": "Eve", "country": "/API/country/1/"},
                {"resource_uri": "/API/author/4/", "email": "d@x.org"},
            ]
        },
    ),
    expect=202,
)
case("patch_list_missing_objects_key", C, patch("tag/", {"deleted_objects": []}), expect=400)
case(
    "patch_list_unique_violation_rolls_back",
    C,
    patch("tag/", {"objects": [{"name": "ok"}, {"name": "scifi"}]}),
    expect=500,
)
case(
    "patch_list_delete_protected",
    C,
    patch("author/", {"objects": [], "deleted_objects": ["/API/author/2/"]}),
    expect=500,
)
case(
    "patch_list_delete_unknown_uri",
    C,
    patch("tag/", {"objects": [], "deleted_objects": ["/API/tag/999/"]}),
    expect=404,
)
case(
    "patch_list_books_with_relations",
    C,
    patch(
        "book/",
        {
            "objects": [
                {"title": "New", "author": "/API/author/3/", "tags": ["/API/tag/1/"]},
                {
                    "resource_uri": "/API/book/2/",
                    "tags": ["/API/tag/3/"],
                    "editor": "/API/author/1/",
                },
            ]
        },
    ),
    expect=202,
)
case(
    "patch_list_mti",
    C,
    patch(
        "restaurant/",
        {
            "objects": [
                {"name": "Sushi"},
                {"resource_uri": "/API/restaurant/2/", "serves_pizza": False},
            ],
            "deleted_objects": ["/API/restaurant/3/"],
        },
    ),
    expect=202,
)

case(
    "patch_list_countries_always_return_data",
    C,
    patch(
        "country/",
        {
            "objects": [
                {"code": "NL", "name": "Nederland"},
                {"resource_uri": "/API/country/4/", "name": "Japan"},
            ]
        },
    ),
    expect=202,
)
case(
    "put_list_restaurants_mti",
    "PUT list",
    put("restaurant/", {"objects": [{"name": "Only", "serves_pizza": True}]}),
    expect=200,
)

# --- DELETE detail -----------------------------------------------------------
C = "DELETE detail"
case("delete_tag", C, delete("tag/1/"), get("tag/1/"), expect=(204, 404))
case("delete_missing", C, delete("tag/999/"), expect=404)
case(
    "delete_author_cascade_set_null_set_default_set_callable",
    C,
    delete("author/3/"),
    expect=204,
    setup=lambda: Loan.objects.update(book_id=4),
)
case("delete_book_referenced_do_nothing", C, delete("book/3/"), get("book/"), expect=(204, 200))
case("delete_author_protect", C, delete("author/2/"), expect=500)
case(
    "delete_author_restrict",
    C,
    delete("author/4/"),
    expect=500,
    setup=lambda: Chapter.objects.create(id=50, book_id=1, writer_id=4),
)
case("delete_author_restrict_satisfied_by_cascade", C, delete("author/4/"), expect=204)
case(
    "delete_author_set_null_mentees",
    C,
    delete("author/1/"),
    expect=204,
    setup=lambda: Book.objects.filter(editor_id=1).update(editor=None),
)
case("delete_publisher_restrict", C, delete(f"publisher/{PUB_PENGUIN}/"), expect=500)
case(
    "delete_publisher_uuid",
    C,
    delete(f"publisher/{PUB_ORBIT}/"),
    expect=204,
    setup=lambda: Book.objects.filter(publisher_id=PUB_ORBIT).update(publisher=None),
)
case("delete_country_set_null", C, delete("country/1/"), expect=204)
case("delete_country_protect", C, delete("country/3/"), expect=500)
case("delete_country_to_field_cascade", C, delete("country/2/"), expect=204)
case("delete_book_cascade", C, delete("book/1/"), expect=204)
case("delete_bookdetail", C, delete("bookdetail/1/"), expect=204)
case("delete_restaurant_mti", C, delete("restaurant/2/"), expect=204)
case("delete_restaurant_mti_with_child", C, delete("restaurant/3/"), expect=204)
case("delete_pizzeria_mti", C, delete("pizzeria/3/"), expect=204)
case("delete_alltypes", C, delete("alltypes/1/"), expect=204)

# --- DELETE list -------------------------------------------------------------
C = "DELETE list"
case("delete_list_filtered", C, delete("book/?title__startswith=E"), expect=204)
case("delete_list_all_tags", C, delete("tag/"), expect=204)
case("delete_list_filter_on_relation", C, delete("book/?author__name=Dot"), expect=204)
case("delete_list_protected", C, delete("author/?name=Bob"), expect=500)
case("delete_list_mti", C, delete("restaurant/?serves_pizza=true"), expect=204)
case("delete_list_bad_filter_value", C, delete("book/?pages=many"), expect=400)
case("delete_list_filter_not_allowed", C, delete("book/?isbn=9780000000001"), expect=400)
case(
    "delete_list_all_books",
    C,
    delete("book/"),
    expect=204,
    setup=lambda: Loan.objects.all().delete(),
)
case("delete_django_writes_resource", C, delete("tagdj/1/"), expect=204)

# --- sequences -----------------------------------------------------------------
C = "sequence"
case(
    "sequence_post_put_patch_delete",
    C,
    post("tag/", {"name": "t1"}),
    put("tag/100/", {"name": "t2"}),
    patch("tag/100/", {"name": "t3"}),
    get("tag/100/"),
    delete("tag/100/"),
    get("tag/"),
    expect=(201, 204, 202, 200, 204, 200),
)
case(
    "sequence_book_lifecycle",
    C,
    post("book/", {"title": "Life", "author": BOOK_AUTHOR, "tags": ["/API/tag/1/"]}),
    patch("book/100/", {"tags": ["/API/tag/2/", {"name": "fresh"}], "pages": 7}),
    get("book/100/"),
    delete("author/1/"),
    get("book/"),
    expect=(201, 202, 200, 204, 200),
    setup=lambda: Book.objects.filter(editor_id=1).update(editor=None),
)
case(
    "sequence_failed_then_ok",
    C,
    post("tag/", {"name": "scifi"}),
    post("tag/", {"name": "fine"}),
    get("tag/"),
    expect=(500, 201, 200),
)


KNOWN_MODELRESOURCE_BUGS: dict[str, Bug] = {
    "post_tag_unique_violation": Bug("unique violation: IntegrityError escapes save()"),
    "post_book_isbn_unique_violation": Bug("unique violation: IntegrityError escapes save()"),
    "post_bookdetail_one_to_one_taken": Bug("one-to-one already taken: IntegrityError"),
    "post_alltypes_code_unique_violation": Bug("unique violation: IntegrityError escapes save()"),
    "put_book_isbn_unique_violation": Bug("unique violation: IntegrityError escapes save()"),
    "put_bookdetail_move_to_taken_book": Bug("one-to-one already taken: IntegrityError"),
    "patch_book_isbn_unique_violation": Bug("unique violation: IntegrityError escapes save()"),
    "patch_list_unique_violation_rolls_back": Bug("unique violation: IntegrityError (rolled back)"),
    "post_book_title_too_long": Bug(
        "value too long for the column: DataError", backends=("postgresql", "mysql")
    ),
    "post_book_negative_pages_check_constraint": Bug(
        "pages = -1: CHECK constraint (IntegrityError), unsigned column on MariaDB (DataError)"
    ),
    "post_alltypes_ip_malformed": Bug(
        "a malformed address in an inet column: the driver's adaptation raises",
        backends=("postgresql",),
    ),
    "put_alltypes_ip_malformed": Bug(
        "a malformed address in an inet column: the driver's adaptation raises",
        backends=("postgresql",),
    ),
    "post_book_nul_character": Bug(
        "PostgreSQL refuses NUL in text: ValueError from the driver", backends=("postgresql",)
    ),
    "post_book_pages_wrong_type": Bug("int('many'): ValueError from get_prep_value is not a 400"),
    "patch_book_pages_wrong_type": Bug("int('many'): ValueError from get_prep_value is not a 400"),
    "post_alltypes_integer_wrong_type": Bug(
        "int('x'): ValueError from get_prep_value is not a 400"
    ),
    "post_bookstrict_missing_required_to_many": Bug(
        "the book is saved before hydrate_m2m finds the required to-many field missing",
        status=400,
        partial=True,
    ),
    "post_hook_raises_after_save": Bug(
        "the book is saved before hydrate_tags raises; the client's plain exception stays a 500",
        partial=True,
        v3_status=500,
    ),
    "post_hook_bad_request_after_save": Bug(
        "the book is saved before hydrate_tags raises BadRequest", status=400, partial=True
    ),
    "post_nested_unique_clash_after_parent": Bug(
        "the book is saved, then the nested tag's rename clashes (IntegrityError)", partial=True
    ),
    "post_reverse_nested_unique_clash_after_parent": Bug(
        "the author is saved, then the nested book's isbn clashes (IntegrityError)", partial=True
    ),
    "put_list_countries_protected": Bug("PROTECT: ProtectedError from queryset.delete()"),
    "put_list_second_object_fails": Bug(
        "the old tags are deleted and the first new one created before the IntegrityError",
        partial=True,
    ),
    "patch_list_delete_protected": Bug("PROTECT: ProtectedError (patch_list is atomic)"),
    "delete_author_protect": Bug("PROTECT: ProtectedError escapes delete()"),
    "delete_author_restrict": Bug("RESTRICT: RestrictedError escapes delete()"),
    "delete_publisher_restrict": Bug("RESTRICT: RestrictedError escapes delete()"),
    "delete_country_protect": Bug("PROTECT: ProtectedError escapes delete()"),
    "delete_list_protected": Bug("PROTECT: ProtectedError from queryset.delete()"),
    "post_django_writes_unique_violation": Bug("unique violation: IntegrityError escapes save()"),
    "put_detail_id_in_body_differs": Bug(
        "PUT /tag/1/ with id 3 in the body: ModelResource writes the data into tag 3, not into "
        "the object the URL names",
        status=204,
        partial=True,
    ),
    "sequence_failed_then_ok": Bug("unique violation: IntegrityError escapes save()", at=0),
    "post_alltypes_duration": Bug(
        "an ISO 8601 duration string without an interval type: DurationField's "
        "get_db_prep_value raises AttributeError",
        backends=("sqlite", "mysql"),
    ),
}


# =============================================================================
# Running a case
# =============================================================================
@dataclass
class Run:
    """What one API did with a case, normalised, ready to compare.

    ``tables[0]`` is the state before the first request (after ``setup``),
    ``tables[i]`` the state after request ``i``.
    """

    api: str
    responses: list[dict]
    tables: list[dict[str, list[dict]]]


UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
CODE_RE = re.compile(r'(\\?"code\\?": \\?")([0-9a-f]{8})(\\?")')  # also inside a JSON string
ISO_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)?")
SEED_UUIDS = {str(PUB_PENGUIN), str(PUB_ORBIT), "33333333-3333-4333-8333-333333333333"}
#: Tables whose primary key is not a counter: rows are sorted by their normalised values.
UNORDERED_TABLES = {
    m._meta.db_table
    for m in write_api.all_tables()
    if m._meta.pk.get_internal_type() not in ("AutoField", "BigAutoField", "OneToOneField")
}


def _in_window(value: datetime.datetime, window) -> bool:
    if timezone.is_naive(value):
        value = timezone.make_aware(value)
    start, end = window
    slack = datetime.timedelta(seconds=2)
    return start - slack <= value <= end + slack


def _now_in_text(text: str, window) -> str:
    def replace(match: re.Match) -> str:
        try:
            value = datetime.datetime.fromisoformat(match.group(0).replace("Z", "+00:00"))
        except ValueError:
            return match.group(0)
        return "<now>" if _in_window(value, window) else match.group(0)

    return ISO_RE.sub(replace, text)


def _jsonable(value, window):
    if isinstance(value, datetime.datetime):
        return "<now>" if _in_window(value, window) else value.isoformat()
    if isinstance(value, datetime.date | datetime.time | datetime.timedelta | Decimal):
        return f"{type(value).__name__}({value})"
    if isinstance(value, bytes):
        return f"bytes({value.hex()})"
    if isinstance(value, float):
        return f"float({value!r})"
    if isinstance(value, dict | list | tuple):
        return "json:" + json.dumps(value, sort_keys=True, default=str)  # a JSONField value
    if value is None or isinstance(value, bool | int | str):
        return value
    return f"{type(value).__name__}({value})"


class Placeholders:
    """Generated values (UUID pks, callable defaults) -> ``<kind-N>`` by first appearance."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.seen: dict[str, str] = {}

    def name(self, kind: str, value: str) -> str:
        if value in self.known:
            return value
        key = f"{kind}:{value}"
        if key not in self.seen:
            self.seen[key] = f"<{kind}-{sum(k.startswith(kind) for k in self.seen) + 1}>"
        return self.seen[key]

    def __call__(self, text: str) -> str:
        text = UUID_RE.sub(lambda m: self.name("uuid", m.group(0)), text)
        return CODE_RE.sub(lambda m: m.group(1) + self.name("code", m.group(2)) + m.group(3), text)


def run_case(case: Case, api: str, client=None) -> Run:
    client = client or api_client()
    write_api.reset()
    if case.setup:
        case.setup()
    start = timezone.now()
    snapshots = [write_api.snapshot()]
    raw = []
    for req in case.requests:
        try:
            response = send(client, api, req.method, req.path, req.body, req.content_type)
        except Exception as exc:  # the test client re-raised: a 500 for the user
            raw.append({"status": 500, "exception": f"{type(exc).__name__}: {exc}"})
        else:
            raw.append(
                {
                    "status": response.status_code,
                    "content_type": response.get("Content-Type"),
                    "location": response.get("Location"),
                    "body": response.content.decode("utf-8", "replace"),
                }
            )
        snapshots.append(write_api.snapshot())
    window = (start, timezone.now())

    prefix = f"/{api}/"
    text = case.text()
    known = SEED_UUIDS | set(SEED_CODES) | set(UUID_RE.findall(text))
    known |= set(re.findall(r"\b[0-9a-f]{8}\b", text))
    placeholders = Placeholders(known)
    responses = []
    for item in raw:
        item = {
            k: _now_in_text(v.replace(prefix, API_MARKER), window) if isinstance(v, str) else v
            for k, v in item.items()
        }
        responses.append(json.loads(placeholders(json.dumps(item, ensure_ascii=False))))
    tables = []
    for snap in snapshots:
        normalised = {}
        for table, rows in snap.items():
            rows = [
                json.loads(
                    placeholders(
                        json.dumps(
                            {k: _jsonable(v, window) for k, v in row.items()}, ensure_ascii=False
                        )
                    )
                )
                for row in rows
            ]
            if table in UNORDERED_TABLES:
                rows.sort(key=lambda row: json.dumps(row, sort_keys=True))
            normalised[table] = rows
        tables.append(normalised)
    return Run(api, responses, tables)


_reference_runs: dict[str, Run] = {}


def reference(case: Case) -> Run:
    key = f"{case.name}\n{case.text()}"  # names are unique per module, not across modules
    if key not in _reference_runs:
        _reference_runs[key] = run_case(case, REFERENCE)
    return _reference_runs[key]


# =============================================================================
# Comparing
# =============================================================================
def _show(body: str, limit: int = 800) -> str:
    return body if len(body) <= limit else body[:limit] + f"... ({len(body)} characters)"


def _pretty(body: str) -> list[str]:
    try:
        return json.dumps(
            json.loads(body), indent=1, ensure_ascii=False, sort_keys=True
        ).splitlines()
    except ValueError:
        return body.splitlines()


def _diff(a: list[str], b: list[str], names=("v2", "v3"), limit: int = 80) -> str:
    lines = list(difflib.unified_diff(a, b, *names, n=2, lineterm=""))
    return "\n".join(lines[:limit]) + ("\n..." if len(lines) > limit else "")


def _table_lines(tables: dict) -> list[str]:
    lines = []
    for table, rows in tables.items():
        lines.append(f"== {table}")
        lines.extend(json.dumps(row, ensure_ascii=False, sort_keys=True) for row in rows or ())
    return lines


def table_problems(expected: dict, got: dict, names: tuple[str, str]) -> list[str]:
    changed = [t for t in expected if expected[t] != got.get(t)]
    if not changed:
        return []
    return [
        f"tables differ ({', '.join(changed)}):\n"
        + _diff(
            _table_lines({t: expected[t] for t in changed}),
            _table_lines({t: got.get(t) for t in changed}),
            names,
        )
    ]


def _text(response: dict) -> str:
    return response.get("body") or response.get("exception", "")


def response_problems(want: dict, have: dict, where: str, api: str) -> list[str]:
    if want["status"] != have["status"]:
        return [
            f"{where}: status {have['status']}, ModelResource {want['status']}\n"
            f"  {api}: {_show(_text(have))}\n  v2: {_show(_text(want))}"
        ]
    problems = []
    for key in ("content_type", "location"):
        if have.get(key) != want.get(key):
            problems.append(f"{where}: {key} {have.get(key)!r}, ModelResource {want.get(key)!r}")
    if have.get("body") != want.get("body"):
        diff = _diff(_pretty(want.get("body", "")), _pretty(have.get("body", "")), ("v2", api))
        problems.append(
            f"{where}: body differs from ModelResource's:\n"
            + (diff or f"  v2: {want.get('body')!r}\n  {api}: {have.get('body')!r}")
        )
    return problems


def compare_runs(expected: Run, got: Run, upto: int | None = None) -> list[str]:
    """Differences between the runs, over the first ``upto`` requests (all by default)."""
    n = len(expected.responses) if upto is None else upto
    problems = []
    for i in range(n):
        problems += response_problems(
            expected.responses[i], got.responses[i], f"request {i + 1}", got.api
        )
    problems += table_problems(
        expected.tables[n],
        got.tables[n],
        (f"{expected.api} (ModelResource) after request {n}", f"{got.api} after request {n}"),
    )
    return problems


def known_bug_problems(case: Case, bug: Bug, expected: Run, got: Run) -> list[str]:
    """v2 is broken at request ``bug.at``; v3 answers it cleanly and changes nothing."""
    at = bug.at if bug.at >= 0 else len(case.requests) + bug.at  # 0-based request index
    want, have = expected.responses[at], got.responses[at]
    marker = []
    if want["status"] != bug.status:
        marker.append(
            f"marked as a ModelResource bug ({bug.reason}) answering {bug.status}, but v2 answered "
            f"{want['status']}: update or remove the marker\n  v2: {_show(_text(want))}"
        )
    v2_changed = expected.tables[at + 1] != expected.tables[at]
    if v2_changed != bug.is_partial:
        marker.append(
            f"marked as a ModelResource bug ({bug.reason}) with partial={bug.is_partial} on "
            f"Django {django.get_version()}, but v2 "
            f"{'changed' if v2_changed else 'did not change'} the tables: update the marker"
        )
    assert not marker, "\n".join(marker)

    problems = compare_runs(expected, got, upto=at) if at else []
    if have["status"] != bug.v3_status:
        problems.append(
            f"request {at + 1}: v2 is broken here ({bug.reason}); {got.api} must answer "
            f"{bug.v3_status}, got {have['status']}\n  {got.api}: {_show(_text(have))}"
        )
    elif bug.v3_status == 400:
        try:
            error = json.loads(have["body"]).get("error")
        except (ValueError, AttributeError):
            error = None
        if not error:
            problems.append(
                f"request {at + 1}: {got.api} answered 400 without an error message: "
                f"{have.get('body')!r}"
            )
    problems += table_problems(
        got.tables[at],
        got.tables[at + 1],
        (
            f"{got.api} before request {at + 1}",
            f"{got.api} after request {at + 1} (must be unchanged)",
        ),
    )
    # After a failure that left nothing behind in v2 either, the rest must match again.
    if not bug.is_partial and at + 1 < len(case.requests):
        for i in range(at + 1, len(case.requests)):
            problems += response_problems(
                expected.responses[i], got.responses[i], f"request {i + 1}", got.api
            )
        problems += table_problems(expected.tables[-1], got.tables[-1], (expected.api, got.api))
    return problems


def known_bug(case: Case, bugs: dict[str, Bug] | None = None) -> Bug | None:
    bug = (KNOWN_MODELRESOURCE_BUGS if bugs is None else bugs).get(case.name)
    if bug is not None and connection.vendor in bug.backends:
        return bug
    return None


# =============================================================================
# Tests
# =============================================================================
def test_known_bugs_name_cases() -> None:
    names = {c.name for c in CASES}
    assert set(KNOWN_MODELRESOURCE_BUGS) <= names, set(KNOWN_MODELRESOURCE_BUGS) - names


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case: Case) -> None:
    """ModelResource answers as the case says (so a case tests what it claims)."""
    check_reference(case)


def check_reference(case: Case) -> None:
    """Assert that ModelResource answers ``case`` with the statuses it expects."""
    run = reference(case)
    statuses = tuple(r["status"] for r in run.responses)
    expect = case.expect[connection.vendor] if isinstance(case.expect, dict) else case.expect
    assert statuses == expect, f"v2 answered {statuses}, the case expects {expect}\n" + "\n".join(
        _show(_text(r), 400) for r in run.responses
    )


@dataclass(frozen=True)
class Intended:
    """DjonyResource differs from ModelResource on purpose on a case's last request.

    ``v2_status``/``v3_status``: what each answers.  ``same_tables``: both
    leave the same rows (only the response differs); otherwise v3's rows
    are checked by ``v3_rows`` (a substring of the snapshot after the request).
    """

    reason: str
    v2_status: int
    v3_status: int
    same_tables: bool = True
    v3_rows: str = ""
    backends: tuple[str, ...] = BACKENDS


INTENDED_DIFFERENCES: dict[str, Intended] = {
    # ModelResource echoes the naive wall time it was sent, which does not exist
    # in Europe/Berlin; both store the same instant, DjonyResource shows that.
}
INTENDED_DIFFERENCES_ELSEWHERE = {}


def intended_difference(case: Case, tables: tuple[dict, ...] | None = None) -> Intended | None:
    for table in tables or (INTENDED_DIFFERENCES, INTENDED_DIFFERENCES_ELSEWHERE):
        intended = table.get(case.name)
        if intended is not None and connection.vendor in intended.backends:
            return intended
    return None


def intended_problems(case: Case, intended: Intended, expected: Run, got: Run) -> list[str]:
    """Both sides answer as recorded; the rows are v2's, or v3's rows hold ``v3_rows``."""
    n = len(case.requests)
    problems = compare_runs(expected, got, upto=n - 1)
    want, have = expected.responses[-1], got.responses[-1]
    if want["status"] != intended.v2_status:
        problems.append(f"v2 answered {want['status']}, the marker says {intended.v2_status}")
    if have["status"] != intended.v3_status:
        problems.append(f"v3 answered {have['status']}, the marker says {intended.v3_status}")
    if intended.same_tables:
        problems += table_problems(expected.tables[n], got.tables[n], ("v2 after", "v3 after"))
    elif intended.v3_rows not in json.dumps(got.tables[n], default=str):
        problems.append(f"v3's rows lack {intended.v3_rows}")
    return problems


@pytest.mark.parametrize("api", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_write(case: Case, api: str) -> None:
    check_case(case, api)


def check_case(
    case: Case,
    api: str,
    bugs: dict[str, Bug] | None = None,
    intended_tables: tuple[dict[str, Intended], ...] | None = None,
) -> None:
    """Run ``case`` on ModelResource and on ``api``; assert they agree (or differ as marked)."""
    expected = reference(case)
    got = run_case(case, api)
    bug = known_bug(case, bugs)
    intended = intended_difference(case, intended_tables)
    if intended is not None:
        problems = intended_problems(case, intended, expected, got)
    elif bug is not None:
        problems = known_bug_problems(case, bug, expected, got)
    else:
        problems = compare_runs(expected, got)
    assert not problems, f"{case.name} on {api}:\n" + "\n".join(problems)
