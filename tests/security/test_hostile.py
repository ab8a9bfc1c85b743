"""Hostile input against v2 (ModelResource) and v3 (DjonyResource).

Every value of :data:`tests.security.corpus.VALUES` (quotes, Python code,
SQL fragments, LIKE wildcards, NUL bytes, huge numbers, unicode edge cases,
very long strings) is sent in every position a client controls: filter
values on each field type, field names and lookup terms, ``order_by``,
``limit``/``offset``, ``format``, detail and ``set/`` keys, and JSON bodies
of writes.  For each request:

* no code runs: the sentinel file that ``__import__('os').system('touch
  ...')`` would create never exists, and no row of any table changes (reads
  run in a savepoint; the row counts are compared at the end anyway);
* v3 never answers 500 where v2 does not; where v2 answers 500 (a
  ModelResource bug) v3 answers 4xx with an error message; otherwise the
  two answer the same status class (docs/reliability.md: better, never worse);
* a failing v3 write changes no row.

On PostgreSQL and MariaDB the positions whose value is a name or a format
(:data:`NAME_POSITIONS`) are left to SQLite's run: Python checks them before any SQL;
``.ci/run`` shares the other reads out between its two server legs (:data:`SHARE`).

LIKE wildcards in ``contains``/``startswith``/... must match literally, as
in Django: v3's rows are compared with the Django ORM's.  And Pony's
translation caches do not grow with the number of distinct values.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test import override_settings

from tests.differential import data
from tests.security.corpus import (
    SENTINEL,
    TABLES,
    TEXTS,
    TOUCH,
    VALUES,
    WRITE_TABLES,
    Mismatch,
    api_client,
    error_of,
    in_savepoint,
    row_counts,
    rows_after_failure,
    status_problem,
)
from tests.testapp.models import Author, Book, Tag


@pytest.fixture(scope="module")
def dataset(django_db_setup, django_db_blocker):
    """The differential data set, written in a transaction rolled back at the end."""
    with django_db_blocker.unblock(), transaction.atomic():
        ids = data.create()
        counts = row_counts(TABLES)
        yield ids
        # Nothing any request did survived, and nothing ran.
        assert row_counts(TABLES) == counts
        assert not SENTINEL.exists(), f"injected code ran: {SENTINEL.path} exists"
        transaction.set_rollback(True)


@pytest.fixture(scope="module")
def client():
    return api_client()


def ask(client, method: str, url: str, body: bytes | str | None = None):
    def call():
        if method == "GET":
            return client.get(url)
        return client.generic(method, url, body or b"", content_type="application/json")

    return in_savepoint(call)


def compare(client, method: str, path: str, body=None) -> Mismatch | None:
    """Send ``path`` to /v2/ and /v3/; the mismatch, if the rule is broken."""
    v2 = ask(client, method, f"/v2/{path}", body)
    v3 = ask(client, method, f"/v3/{path}", body)
    problem = status_problem(v2.status_code, v3.status_code)
    if problem is None and v2.status_code >= 500 and not error_of(v3):
        problem = f"v3 answers {v3.status_code} without an error message"
    assert not SENTINEL.exists(), f"{method} {path}: injected code ran"
    if problem:
        return Mismatch(f"{method} /vN/{path}", v2.status_code, v3.status_code, problem, v3.content)
    return None


# --- where a hostile value goes in a GET -------------------------------------------
#: Where the value is a name (a field, a lookup term, a sort) or a format: checked against
#: the resource and the model in Python before any SQL is built, the same on every
#: backend.  SQLite's run sends them; a server's sends the positions whose value can reach
#: its driver (a filter's value, a key, ``limit``/``offset``), which are the rest.
NAME_POSITIONS = [
    "book/?{v}=1",
    "book/?title__{v}=1",
    "book/?author__{v}=1",
    "book/?{v}__exact=1",
    "book/?order_by={v}",
    "book/?order_by=-{v}",
    "book/?order_by=author__{v}",
    "book/?format={v}",
    "book/?title=Dune&format={v}",
]
#: ``{v}`` is the hostile value (percent-encoded); ``<b1>`` a book's key.
READ_POSITIONS = [
    # text
    "book/?title={v}",
    "book/?title__iexact={v}",
    "book/?title__contains={v}",
    "book/?title__icontains={v}",
    "book/?title__startswith={v}",
    "book/?title__iendswith={v}",
    "book/?title__in={v}",
    "book/?title__gt={v}",
    "book/?title__range={v},{v}",
    "book/?title__regex={v}",
    "book/?title__isnull={v}",
    "author/?name__istartswith={v}",
    "author/?email__contains={v}",
    # numbers, decimals, booleans, dates, keys
    "book/?id={v}",
    "book/?id__in=1,{v}",
    "book/?pages={v}",
    "book/?pages__gt={v}",
    "book/?price={v}",
    "book/?rating__lt={v}",
    "book/?in_print={v}",
    "book/?published={v}",
    "book/?published__year={v}",
    "book/?published__date={v}",
    "book/?author={v}",
    "book/?publisher={v}",
    "author/?born__gte={v}",
    "alltypes/?uid={v}",
    "alltypes/?ip={v}",
    "alltypes/?floating={v}",
    "alltypes/?amount__gt={v}",
    "alltypes/?big={v}",
    "alltypes/?clock={v}",
    # through relations
    "book/?author__name={v}",
    "book/?author__country__code={v}",
    "book/?tags__name__icontains={v}",
    "author/?books__title__startswith={v}",
    # names, terms, sorting, formats
    *NAME_POSITIONS,
    # paging, keys in the path
    "book/?limit={v}",
    "book/?offset={v}",
    "paged/?limit={v}",
    "book/{v}/",
    "book/set/{v}/",
    "book/set/<b1>;{v}/",
    "publisher/{v}/",
]

#: Where a value that is no valid URL path segment is not worth sending.
PATH_POSITIONS = {p for p in READ_POSITIONS if "?" not in p}


#: ``DJONY_HOSTILE_SHARE=K/N`` (``.ci/run``'s two server legs: ``0/2`` and ``1/2``): of the
#: (value, position) pairs of the reads, those whose value's and position's indexes add up
#: to K modulo N, so every value still reaches this backend's driver (in 1/N of the
#: positions) and every position is read here (with 1/N of the values), and the legs
#: together send every pair.  Unset: every pair.
SHARE = os.environ.get("DJONY_HOSTILE_SHARE", "0/1")
_PART, _PARTS = (int(number) for number in SHARE.split("/"))


def sent_here(value_index: int, position_index: int) -> bool:
    """Whether this run sends value ``value_index`` in the position of ``position_index``
    (in :data:`READ_POSITIONS`; see :data:`SHARE`)."""
    return (value_index + position_index) % _PARTS == _PART


def read_positions() -> list[str]:
    """The positions this backend's run sends (see :data:`NAME_POSITIONS`)."""
    from tests import settings

    if settings.BACKEND == "sqlite":
        return READ_POSITIONS
    return [position for position in READ_POSITIONS if position not in NAME_POSITIONS]


def _url(template: str, value: str, ids: dict) -> str:
    url = template.replace("{v}", value).replace("<b1>", str(ids["b1"]))
    if "?" in template and "limit=" not in template and "offset=" not in template:
        url += "&limit=2"  # two objects show the page's shape; fewer queries for v2
    return url


@pytest.mark.django_db
@pytest.mark.parametrize("position", read_positions())
def test_hostile_read(dataset, client, position):
    problems = []
    at = READ_POSITIONS.index(position)
    for index, (_name, value) in enumerate(VALUES):
        if not sent_here(index, at):
            continue  # another leg's share
        if position in PATH_POSITIONS and ("%2F" in value or value in ("", "%")):
            continue  # another URL (or a 404 from the URLconf alike for both)
        mismatch = compare(client, "GET", _url(position, value, dataset))
        if mismatch:
            problems.append(str(mismatch))
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems)


# --- LIKE wildcards match literally, as in Django -----------------------------------
LIKE_CASES = [
    ("book", "title__contains", "%"),
    ("book", "title__contains", "_"),
    ("book", "title__contains", "% "),
    ("book", "title__contains", "0% p"),
    ("book", "title__icontains", "R_S"),
    ("book", "title__startswith", "100%"),
    ("book", "title__startswith", "under_"),
    ("book", "title__startswith", "_nder"),
    ("book", "title__endswith", "_"),
    ("book", "title__contains", "\\"),
    ("book", "title__contains", "k\\s"),
    ("book", "title__iexact", "%"),
    ("book", "title__exact", "Dune_01"),
    ("book", "title__in", "%,_"),
    ("book", "author__name", "50% Off"),
    ("book", "author__name", "50_ Off"),
    ("book", "author__name", "under%score"),
    ("author", "name__contains", "%"),
    ("author", "name__startswith", "50%"),
    ("author", "name__contains", "r_s"),
    ("author", "name__icontains", "_"),
    ("author", "name__iendswith", "\\SLASH"),
    ("author", "books__title", "100% pure 08"),
    ("tag", "name__contains", "%_"),
    ("tag", "name__endswith", "_real"),
    ("tag", "name__istartswith", "_"),
]
LIKE_MODELS = {"book": Book, "author": Author, "tag": Tag}


@pytest.mark.django_db
@pytest.mark.parametrize("resource, lookup, value", LIKE_CASES)
def test_like_wildcards_match_literally(dataset, client, resource, lookup, value):
    from urllib.parse import quote

    model = LIKE_MODELS[resource]
    expected = sorted(
        model.objects.filter(**{lookup: value.split(",") if lookup.endswith("__in") else value})
        .distinct()
        .values_list("pk", flat=True)
    )
    for api in ("v2", "v3"):
        url = f"/{api}/{resource}/?limit=0&{lookup}={quote(value, safe='')}"
        response = ask(client, "GET", url)
        assert response.status_code == 200, response.content
        got = sorted(o["id"] for o in json.loads(response.content)["objects"])
        assert got == expected, f"{api}: {lookup}={value!r} gave {got}, Django {expected}"
    # A wildcard alone must not match everything.
    if value in ("%", "_", "%_"):
        assert len(expected) < model.objects.count()


# --- JSON bodies of writes -------------------------------------------------------------
def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _nested_objects(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def write_bodies(ids: dict) -> list[tuple[str, str, str, bytes]]:
    """``(name, method, path, body)``: hostile bodies for the write API."""
    author = f"/API/author/{ids['a1']}/"
    tag = f"/API/tag/{ids['t1']}/"
    bodies: list[tuple[str, str, str, bytes]] = []

    def add(name, method, path, body):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        bodies.append((name, method, path, raw))

    for name, text in TEXTS:
        add(f"tag_name_{name}", "POST", "tag/", {"name": text})
        add(f"book_title_{name}", "POST", "book/", {"title": text, "author": author})
        add(f"book_pages_{name}", "POST", "book/", {"title": "x", "author": author, "pages": text})
        add(f"book_author_{name}", "POST", "book/", {"title": "x", "author": text})
        add(f"book_tags_{name}", "POST", "book/", {"title": "x", "author": author, "tags": [text]})
        add(f"field_name_{name}", "POST", "tag/", {"name": "ok", text: TOUCH})
        add(f"alltypes_{name}", "POST", "alltypes/", {"char": text, "integer": text})
        add(f"patch_tag_{name}", "PATCH", f"tag/{ids['t2']}/", {"name": text})
    for name, value in [
        ("int_2_63", 2**63),
        ("int_2_64", 2**64),
        ("int_huge", 10**100),
        ("negative_huge", -(10**100)),
        ("float", 1.5),
        ("float_huge", 1e308),
        ("true", True),
        ("null", None),
        ("list", [1, 2]),
        ("object", {"a": 1}),
    ]:
        add(
            f"book_pages_json_{name}",
            "POST",
            "book/",
            {"title": "x", "author": author, "pages": value},
        )
        add(f"tag_name_json_{name}", "POST", "tag/", {"name": value})
        add(f"alltypes_big_{name}", "POST", "alltypes/", {"big": value, "amount": value})
    # Raw bodies that are no (or hostile) JSON.
    add(
        "nan_literal",
        "POST",
        "book/",
        b'{"title": "x", "author": "%s", "pages": NaN}' % author.encode(),
    )
    add(
        "infinity_literal",
        "POST",
        "book/",
        b'{"title": "x", "author": "%s", "rating": Infinity}' % author.encode(),
    )
    add("lone_surrogate_escape", "POST", "tag/", b'{"name": "\\ud800"}')
    add("lone_low_surrogate", "POST", "tag/", b'{"name": "a\\udc00b"}')
    add("nul_escape", "POST", "tag/", b'{"name": "a\\u0000b"}')
    add("invalid_utf8", "POST", "tag/", b'{"name": "\xff\xfe"}')
    add("truncated", "POST", "tag/", b'{"name": ')
    add("not_json", "POST", "tag/", b"name=x")
    add("empty", "POST", "tag/", b"")
    add("json_list_body", "POST", "tag/", b'[{"name": "x"}]')
    add("json_string_body", "POST", "tag/", b'"x"')
    add("json_number_body", "POST", "tag/", b"1e400")
    add("duplicate_keys", "POST", "tag/", b'{"name": "a", "name": "b"}')
    add("nested_1k_arrays", "POST", "tag/", b'{"name": "x", "extra": ' + _nested(1_000) + b"}")
    add("nested_10k_arrays", "POST", "tag/", _nested(10_000))
    add("nested_10k_objects", "POST", "tag/", _nested_objects(10_000))
    add("nested_10k_in_field", "POST", "tag/", b'{"name": ' + _nested(10_000) + b"}")
    add("nested_100k_arrays", "POST", "tag/", _nested(100_000))
    add("long_name_1m", "POST", "tag/", {"name": "a" * 1_000_000})
    add("many_keys", "POST", "tag/", {f"k{i}": i for i in range(20_000)} | {"name": "many"})
    add("tags_many_uris", "POST", "book/", {"title": "x", "author": author, "tags": [tag] * 2_000})
    add("patch_list_objects_not_list", "PATCH", "tag/", {"objects": "x"})
    add("patch_list_deleted_hostile", "PATCH", "tag/", {"objects": [], "deleted_objects": [TOUCH]})
    add(
        "put_list_hostile",
        "PUT",
        "tag/",
        {"objects": [{"name": TOUCH}, {"name": "'; DROP TABLE x"}]},
    )
    return bodies


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.write.urls")
def test_hostile_writes(dataset, client):
    """v2 and v3 answer each hostile body by the rule; a failing v3 write changes nothing."""
    problems = []
    bodies = write_bodies(dataset)
    limit = sys.getrecursionlimit()
    for name, method, path, body in bodies:
        v2 = ask(client, method, f"/v2/{path}", body.replace(b"/API/", b"/v2/"))

        def v3_request(method=method, path=path, body=body):
            before = row_counts(WRITE_TABLES)
            response = client.generic(
                method,
                f"/v3/{path}",
                body.replace(b"/API/", b"/v3/"),
                content_type="application/json",
            )
            after = (
                rows_after_failure(before, WRITE_TABLES) if response.status_code >= 400 else before
            )
            return response, before, after

        v3, before, after = in_savepoint(v3_request)
        problem = status_problem(v2.status_code, v3.status_code)
        if problem is None and v2.status_code >= 500 and not error_of(v3):
            problem = f"v3 answers {v3.status_code} without an error message"
        if before != after:
            changed = {t: (before[t], after[t]) for t in before if before[t] != after[t]}
            problem = (problem or "") + f" failing v3 write changed rows: {changed}"
        if problem:
            problems.append(
                str(
                    Mismatch(
                        f"{method} {path} [{name}]",
                        v2.status_code,
                        v3.status_code,
                        problem,
                        v3.content,
                    )
                )
            )
        assert not SENTINEL.exists(), f"{name}: injected code ran"
        assert sys.getrecursionlimit() == limit
    assert not problems, f"{len(problems)} of {len(bodies)} bodies:\n" + "\n".join(problems)


@pytest.mark.django_db
def test_corpus_size():
    """The corpus is as large as the report says (guards against an emptied list)."""
    assert len(VALUES) >= 95
    assert len(READ_POSITIONS) >= 50


# --- Pony's caches do not grow with distinct values ---------------------------------
def pony_cache_sizes() -> dict[str, int]:
    """The size of every per-process cache Pony keeps of SQL or translated queries."""
    from pony.orm import core

    import djony.registry

    sizes = {}
    for name in ("adapted_sql_cache", "string2ast_cache"):
        cache = getattr(core, name, None)
        if cache is not None:
            sizes[name] = len(cache)
    for alias, database in djony.registry._databases.items():
        for name in ("_translator_cache", "_constructed_sql_cache", "_insert_cache"):
            cache = getattr(database, name, None)
            if cache is not None:
                sizes[f"{alias}.{name}"] = len(cache)
        for entity in database.entities.values():
            for name, value in vars(entity).items():
                if name.endswith("_cache_") and isinstance(value, dict):
                    sizes[f"{alias}.{entity.__name__}.{name}"] = len(value)
    return sizes


CACHE_QUERIES = [
    "book/?title={s}",
    "book/?title__icontains={s}&order_by=-pages",
    "book/?author__name={s}",
    "book/?id__in={n},{n2}",
    "book/?pages__gt={n}&limit=3",
    "book/?offset={n}&limit={n2}",
    "bookfull/?tags__name={s}",
    "author/?books__title={s}",
    "book/{n}/",
    "book/set/{n};{n2}/",
    "auth/user/?username__startswith={s}",
    "book/?title__regex=^{s}",
]


@pytest.mark.django_db
def test_pony_caches_do_not_grow_with_distinct_values(dataset, client):
    def run(i: int):
        for query in CACHE_QUERIES:
            url = "/v3/" + query.format(s=f"v{i}%27x", n=i, n2=i + 7)
            response = ask(client, "GET", url)
            assert response.status_code in (200, 404), (url, response.content[:200])

    for i in range(3):  # warm up: every query shape once
        run(i)
    before = pony_cache_sizes()
    assert any(k.endswith("_translator_cache") for k in before), before
    for i in range(3, 103):
        run(i)
    after = pony_cache_sizes()
    grown = {k: (before.get(k), v) for k, v in after.items() if v != before.get(k)}
    assert not grown, f"Pony caches grew over 100 distinct values: {grown}"


@pytest.mark.django_db
def test_no_user_was_created_or_logged_in(dataset):
    """Reads never write: no session, no user, no last_login change."""
    assert not User.objects.filter(username__contains="'").exists()
    assert Tag.objects.filter(name__contains="DROP").count() == 0
    assert Author.objects.count() == len(data.AUTHORS)
    assert connection.vendor in ("sqlite", "postgresql", "mysql")
