"""Authorization and authentication: v3 reveals nothing v2 does not.

The resources are in :mod:`tests.security.urls` (``/s2/`` ModelResource,
``/s3/`` DjonyResource): ``secretbook`` shows only books whose author's name
starts with 'A' (object-level authorization: ``read_list`` narrows,
``read_detail`` refuses).  For list, detail, ``set/``, ``full=True`` nested
resources, ordering and filters through relations (``?author__name=Zoë``
must not reveal that Zoë has books), v3's answer is byte for byte v2's, and
every row it shows is one the authorization allows.

``SessionAuthentication`` enforces CSRF on unsafe methods (Django's test
client with ``enforce_csrf_checks=True``): no token or a wrong token is a
401 and writes nothing; the right token writes.  Anonymous clients and
broken credentials never cause a 500 on any secured resource, list, detail,
``set/`` or schema, with any method.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client, override_settings

from tests.differential import data
from tests.security.corpus import TABLES, api_client, in_savepoint, row_counts
from tests.security.urls import visible
from tests.testapp.models import Author, Book, Tag

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("urls")]


@pytest.fixture(scope="module")
def urls():
    with override_settings(ROOT_URLCONF="tests.security.urls"):
        yield


@pytest.fixture(scope="module")
def dataset(django_db_setup, django_db_blocker, urls):
    with django_db_blocker.unblock(), transaction.atomic():
        ids = data.create()
        counts = row_counts(TABLES)
        yield ids
        assert row_counts(TABLES) == counts
        transaction.set_rollback(True)


@pytest.fixture(scope="module")
def anonymous():
    return api_client()


def get(client, url, **headers):
    return in_savepoint(lambda: client.get(url, headers=headers))


def same(client, path: str, **headers) -> tuple[int, bytes]:
    """GET ``path`` from /s2/ and /s3/; assert the same answer; return it."""
    v2 = get(client, f"/s2/{path}", **headers)
    v3 = get(client, f"/s3/{path}", **headers)
    assert v3.status_code < 500, (path, v3.status_code, v3.content[:300])
    if v2.status_code >= 500:
        assert 400 <= v3.status_code < 500, (path, v3.status_code)
        return v3.status_code, v3.content
    assert v3.status_code == v2.status_code, (path, v2.status_code, v3.status_code, v3.content)
    assert v3.content.replace(b"/s3/", b"/s2/") == v2.content, (
        f"{path}: v3's body differs from v2's\nv2: {v2.content[:500]!r}\nv3: {v3.content[:500]!r}"
    )
    return v3.status_code, v3.content


def objects(content: bytes) -> list[dict]:
    return json.loads(content)["objects"]


def book_ids_shown(content: bytes) -> set[int]:
    return {o["id"] for o in objects(content)}


def allowed_book_ids() -> set[int]:
    return set(Book.objects.filter(author__name__startswith="A").values_list("pk", flat=True))


# --- list, detail, set/ ------------------------------------------------------------------
def test_list_shows_only_allowed_rows(dataset, anonymous):
    status, content = same(anonymous, "secretbook/?limit=0")
    assert status == 200
    allowed = allowed_book_ids()
    assert book_ids_shown(content) == allowed
    assert json.loads(content)["meta"]["total_count"] == len(allowed)
    assert 0 < len(allowed) < Book.objects.count()


@pytest.mark.parametrize("resource", ["secretbook", "secretbookfull"])
def test_detail_of_every_book(dataset, anonymous, resource):
    for book in Book.objects.select_related("author"):
        status, content = same(anonymous, f"{resource}/{book.pk}/")
        assert status == (200 if visible(book.author.name) else 401), (book.pk, status)
        if status == 401:
            assert book.title.encode() not in content


def test_set_mixing_hidden_and_visible(dataset, anonymous):
    books = list(Book.objects.select_related("author").order_by("pk"))
    hidden = [b.pk for b in books if not visible(b.author.name)][:4]
    shown = [b.pk for b in books if visible(b.author.name)][:4]
    keys = ";".join(str(k) for pair in zip(hidden, shown, strict=True) for k in pair)
    for resource in ("secretbook", "secretbookfull"):
        status, content = same(anonymous, f"{resource}/set/{keys}/")
        assert status == 200
        body = json.loads(content)
        assert {o["id"] for o in body["objects"]} == set(shown)
        assert sorted(int(k) for k in body["not_found"]) == sorted(hidden)


# --- filters through relations, ordering -------------------------------------------------------
def author_names() -> list[str]:
    return sorted(set(Author.objects.values_list("name", flat=True)))


@pytest.mark.parametrize("lookup", ["author__name", "author__name__startswith", "editor__name"])
def test_related_filter_reveals_nothing_hidden(dataset, anonymous, lookup):
    """``?author__name=Zoë`` on a resource that hides Zoë's books: no rows, count 0."""
    allowed = allowed_book_ids()
    for name in author_names():
        value = name if "__startswith" not in lookup else name[:2]
        status, content = same(anonymous, f"secretbook/?limit=0&{lookup}={quote(value, safe='')}")
        if status != 200:
            continue  # Tastypie's own refusal (the same from both)
        shown = book_ids_shown(content)
        assert shown <= allowed, f"{lookup}={value!r} shows hidden books {shown - allowed}"
        if value.lower() in ("none", "true", "false", "no", "tr"):
            continue  # Tastypie turns these words into None/True/False
        filtered = Book.objects.filter(**{lookup: value, "pk__in": allowed})
        total = json.loads(content)["meta"]["total_count"]
        assert total == filtered.count(), (lookup, value, total, filtered.count())


@pytest.mark.parametrize(
    "query",
    [
        "tags__name=fantasy",
        "tags__name__in=crime,poetry",
        "author__country__code=DE",
        "author__country__code=US",
        "author__id__in=1,2,3,4,5,6",
        "editor__name__istartswith=z",
        "title__contains=%",
        "order_by=author&order_by=id",
        "order_by=-editor&order_by=id",
        "order_by=author__name&order_by=-id",
        "order_by=-pages&title__startswith=D",
        "author__name__isnull=false",
        "pages__gt=500&order_by=title&order_by=id",
    ],
)
@pytest.mark.parametrize("resource", ["secretbook", "secretbookfull"])
def test_filters_and_ordering_through_relations(dataset, anonymous, resource, query):
    status, content = same(anonymous, f"{resource}/?limit=0&{query}")
    if status == 200:
        assert book_ids_shown(content) <= allowed_book_ids()


def test_filter_through_books_of_hidden_authors(dataset, anonymous):
    """``secretauthor/?books__title=...``: authors not starting with 'A' never appear."""
    for book in Book.objects.select_related("author")[:30]:
        status, content = same(
            anonymous, f"secretauthor/?limit=0&books__title={quote(book.title, safe='')}"
        )
        assert status == 200
        names = {o["name"] for o in objects(content)}
        assert all(visible(name) for name in names), names
        assert names == ({book.author.name} if visible(book.author.name) else set())


def test_nested_full_resource_shows_what_v2_shows(dataset, anonymous):
    """Tastypie does not authorize nested ``full=True`` resources: v3 shows the
    same books as v2 (all of them), not more, not fewer."""
    status, content = same(anonymous, "authorbooks/?limit=0")
    assert status == 200
    shown = {book["id"] for author in objects(content) for book in author["books"]}
    assert shown == set(Book.objects.values_list("pk", flat=True))
    for author in Author.objects.order_by("pk")[:10]:
        same(anonymous, f"authorbooks/{author.pk}/")
    same(anonymous, "authorbooks/?books__title__startswith=D&limit=0")


def test_counts_and_paging_reveal_nothing(dataset, anonymous):
    """``total_count`` and next/previous links are those of the allowed rows."""
    allowed = len(allowed_book_ids())
    for offset in (0, 3, allowed - 1, allowed, allowed + 5):
        status, content = same(anonymous, f"secretbook/?limit=3&offset={offset}")
        assert status == 200
        assert json.loads(content)["meta"]["total_count"] == allowed


# --- writes respect the object-level authorization -------------------------------------------
@pytest.mark.parametrize("api", ["s2", "s3"])
def test_write_to_hidden_book_is_refused(dataset, api):
    hidden = Book.objects.exclude(author__name__startswith="A").first()
    client = _session_client(enforce_csrf=False)
    before = list(Book.objects.filter(pk=hidden.pk).values())

    def call():
        return client.patch(
            f"/{api}/secretbook/{hidden.pk}/",
            json.dumps({"title": "stolen"}),
            content_type="application/json",
        )

    response = in_savepoint(call)
    assert response.status_code in (401, 404), response.content
    assert list(Book.objects.filter(pk=hidden.pk).values()) == before


# --- SessionAuthentication and CSRF -------------------------------------------------------------
def _session_client(enforce_csrf: bool = True, username: str = "admin") -> Client:
    client = Client(
        enforce_csrf_checks=enforce_csrf, raise_request_exception=False, SERVER_NAME="api.example"
    )
    client.force_login(User.objects.get(username=username))
    return client


def _tags() -> list[tuple]:
    return list(Tag.objects.order_by("pk").values_list("pk", "name"))


UNSAFE = [
    ("POST", "sessiontag/", {"name": "csrf-new"}),
    ("PUT", "sessiontag/<t1>/", {"name": "csrf-put"}),
    ("PATCH", "sessiontag/<t1>/", {"name": "csrf-patch"}),
    ("DELETE", "sessiontag/<t2>/", None),
    ("PATCH", "sessiontag/", {"objects": [{"name": "csrf-list"}]}),
    ("DELETE", "sessiontag/", None),
]


def _send(client, api, method, path, body, ids, **extra):
    path = path.replace("<t1>", str(ids["t1"])).replace("<t2>", str(ids["t2"]))
    payload = json.dumps(body) if body is not None else ""
    return client.generic(method, f"/{api}/{path}", payload, "application/json", **extra)


@pytest.mark.parametrize("api", ["s2", "s3"])
@pytest.mark.parametrize("method, path, body", UNSAFE, ids=lambda x: str(x)[:20])
def test_csrf_enforced_on_unsafe_methods(dataset, api, method, path, body):
    client = _session_client()
    secret = _get_new_csrf_string()
    before = _tags()
    # no token at all
    response = in_savepoint(lambda: _send(client, api, method, path, body, dataset))
    assert response.status_code == 401, response.content
    assert _tags() == before
    # a cookie but a wrong header, and a header without the cookie
    client.cookies[settings.CSRF_COOKIE_NAME] = secret
    for header in ("", "x" * 32, _get_new_csrf_string(), secret[:-1] + "!"):
        response = in_savepoint(
            lambda h=header: _send(client, api, method, path, body, dataset, HTTP_X_CSRFTOKEN=h)
        )
        assert response.status_code == 401, (header, response.content)
    del client.cookies[settings.CSRF_COOKIE_NAME]
    response = in_savepoint(
        lambda: _send(client, api, method, path, body, dataset, HTTP_X_CSRFTOKEN=secret)
    )
    assert response.status_code == 401, response.content
    assert _tags() == before
    # the right token: the write goes through
    client.cookies[settings.CSRF_COOKIE_NAME] = secret

    def with_token():
        response = _send(client, api, method, path, body, dataset, HTTP_X_CSRFTOKEN=secret)
        return response, _tags()

    response, after = in_savepoint(with_token)
    assert response.status_code in (200, 201, 202, 204), response.content
    assert after != before
    assert _tags() == before  # rolled back by the test


@pytest.mark.parametrize("api", ["s2", "s3"])
def test_csrf_not_needed_for_safe_methods(dataset, api):
    client = _session_client()
    response = in_savepoint(lambda: client.get(f"/{api}/sessiontag/"))
    assert response.status_code == 200, response.content


# --- anonymous and broken credentials never cause a 500 -----------------------------------------
SECURED = [
    "secure/basic",
    "secure/apikey",
    "secure/session",
    "secure/multi",
    "secure/basic-a",
]
BROKEN_CREDENTIALS = [
    {},
    {"Authorization": "Basic"},
    {"Authorization": "Basic !!!not-base64"},
    {"Authorization": "Basic " + base64.b64encode(b"nouser:x").decode()},
    {"Authorization": "Basic " + base64.b64encode(b"admin").decode()},
    {"Authorization": "Basic " + base64.b64encode(b"\xff\xfe:\x00").decode()},
    {"Authorization": "Basic " + base64.b64encode(b"inactive:" + data.PASSWORD.encode()).decode()},
    {"Authorization": "ApiKey"},
    {"Authorization": "ApiKey apiuser"},
    {"Authorization": "ApiKey apiuser:wrong"},
    {"Authorization": "ApiKey nouser:" + data.API_KEY},
    {"Authorization": "ApiKey ' OR 1=1 --:x"},
    {"Authorization": "Bearer x"},
    {"Authorization": "Basic " + "A" * 10_000},
]


@pytest.mark.parametrize("resource", SECURED)
def test_anonymous_and_broken_credentials_never_500(dataset, anonymous, resource):
    book = dataset["b1"]
    problems = []
    for headers in BROKEN_CREDENTIALS:
        for method, path in [
            ("GET", ""),
            ("GET", f"{book}/"),
            ("GET", f"set/{book};{dataset['b2']}/"),
            ("GET", "schema/"),
            ("GET", "?author__name=Anna"),
            ("POST", ""),
            ("PUT", f"{book}/"),
            ("PATCH", f"{book}/"),
            ("PATCH", ""),
            ("DELETE", f"{book}/"),
            ("DELETE", ""),
        ]:
            statuses = []
            for api in ("v2", "v3"):
                url = f"/{api}/{resource}/{path}"
                response = in_savepoint(
                    lambda u=url, m=method, h=headers: anonymous.generic(
                        m, u, b'{"title": "x"}', "application/json", headers=h
                    )
                )
                statuses.append(response.status_code)
            v2, v3 = statuses
            if v3 >= 500 or (v2 < 500 and v2 != v3):
                problems.append(f"{method} {resource}/{path} {headers!s:.60}: v2 {v2}, v3 {v3}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", ["sessiontag/", "sessionbook/", "sessionbook/<b1>/"])
def test_anonymous_session_resources(dataset, anonymous, path):
    path = path.replace("<b1>", str(dataset["b1"]))
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        statuses = []
        for api in ("s2", "s3"):
            response = in_savepoint(
                lambda a=api, m=method: anonymous.generic(
                    m, f"/{a}/{path}", b'{"name": "x"}', "application/json"
                )
            )
            statuses.append(response.status_code)
        assert statuses[1] < 500 and statuses[0] == statuses[1], (method, path, statuses)
        assert statuses[1] in (401, 405), (method, path, statuses)


def test_user_without_permission_is_refused(dataset):
    """DjangoAuthorization: 'noperm' may not change books; v2 and v3 agree, nothing changes."""
    client = _session_client(enforce_csrf=False, username="noperm")
    book = dataset["b1"]
    before = list(Book.objects.filter(pk=book).values())
    for method, path in [
        ("GET", ""),
        ("GET", f"{book}/"),
        ("PATCH", f"{book}/"),
        ("DELETE", f"{book}/"),
    ]:
        statuses = [
            in_savepoint(
                lambda a=api, m=method, p=path: client.generic(
                    m, f"/{a}/sessionbook/{p}", b'{"title": "x"}', "application/json"
                )
            ).status_code
            for api in ("s2", "s3")
        ]
        assert statuses[0] == statuses[1] and statuses[1] < 500, (method, path, statuses)
    assert list(Book.objects.filter(pk=book).values()) == before
