"""The raw-SQL floor of the tutorial's resources: the same bytes from cursor queries.

No ORM, no Tastypie: the ``ApiKey`` header checked in one query (an active superuser
passes ``DjangoAuthorization`` without another, another user's permission is one more
query), the rows in one query per table
(entries joined to their users), the page's ``meta`` as Tastypie's paginator writes it,
URIs from a prefix, ``json.dumps``.  ``/raw/tutorial/<resource>/`` answers as
``/api/v2/<resource>/`` (:mod:`example_project.showcase.tutorial`); the benchmark
checks the bytes are equal before it times anything.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db import connection
from django.http import Http404, HttpRequest, HttpResponseBase
from django.urls import reverse

from benchmarks.raw import _datetime, api_key_holder, holds_permission, json_response, page_meta

API_NAME = "v2"
MAX_LIMIT = 1000
DEFAULT_LIMIT = 20
ENTRY_COLUMNS = ("id", "pub_date", "title", "slug", "body", "user_id")
USER_COLUMNS = ("id", "date_joined", "first_name", "last_login", "last_name", "username")
#: resource -> (the ApiKey header is needed, the permission DjangoAuthorization reads with)
GUARDS = {
    "entry": (True, ("showcase", "change_entry")),
    "plainentry": (False, None),
    "myentry": (True, None),
    "author": (True, ("auth", "change_user")),
}


def _prefix(resource_name: str) -> str:
    kwargs = {"api_name": API_NAME, "resource_name": resource_name, "pk": 0}
    return reverse("api_dispatch_detail", kwargs=kwargs)[:-2]


def _authenticated(request: HttpRequest, resource: str) -> int | None | HttpResponseBase:
    """The key's user id (``None`` when the resource needs no key), or a 401."""
    keyed, permission = GUARDS[resource]
    if not keyed:
        return None
    found = api_key_holder(request)
    if isinstance(found, HttpResponseBase):
        return found
    user_id, superuser = found
    if permission and not superuser and not holds_permission(user_id, *permission):
        raise ValueError("the raw floor serves users holding the permission only")
    return user_id


def _entry(row: tuple, uri: str) -> dict[str, Any]:
    pk, pub_date, title, slug, body, _user = row
    return {
        "body": body,
        "id": pk,
        "pub_date": _datetime(pub_date),
        "resource_uri": f"{uri}{pk}/",
        "slug": slug,
        "title": title,
    }


def _user(row: tuple, uri: str) -> dict[str, Any]:
    pk, joined, first, last_login, last, username = row
    return {
        "date_joined": _datetime(joined),
        "first_name": first,
        "id": pk,
        "last_login": _datetime(last_login),
        "last_name": last,
        "resource_uri": f"{uri}{pk}/",
        "username": username,
    }


def _entries(resource: str, where: str, params: list, window: str) -> list[dict]:
    entry_uri = _prefix(resource)
    columns = ", ".join(f"e.{c}" for c in ENTRY_COLUMNS)
    if resource == "entry":
        columns += ", " + ", ".join(f"u.{c}" for c in USER_COLUMNS)
        join = " INNER JOIN auth_user u ON u.id = e.user_id"
    else:
        join = ""
    sql = f"SELECT {columns} FROM showcase_entry e{join} {where} ORDER BY e.id{window}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    user_uri = _prefix("user")
    objects = []
    for row in rows:
        entry = _entry(row[: len(ENTRY_COLUMNS)], entry_uri)
        if resource == "entry":
            entry["user"] = _user(row[len(ENTRY_COLUMNS) :], user_uri)
            entry["word_count"] = len(entry["body"].split())
            entry["headline"] = entry["title"].upper()
        elif resource == "myentry":
            entry["user"] = f"{user_uri}{row[5]}/"
        objects.append(entry)
    return objects


def _authors(where: str, params: list, window: str) -> list[dict]:
    user_uri, entry_uri = _prefix("author"), _prefix("plainentry")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(USER_COLUMNS)} FROM auth_user {where}{window}", params)
        rows = cursor.fetchall()
        keys = [row[0] for row in rows] or [0]
        cursor.execute(
            f"SELECT {', '.join(ENTRY_COLUMNS)} FROM showcase_entry "
            f"WHERE user_id IN ({', '.join(['%s'] * len(keys))}) ORDER BY id",
            keys,
        )
        by_user: dict[int, list] = defaultdict(list)
        for row in cursor.fetchall():
            by_user[row[5]].append(_entry(row, entry_uri))
    objects = []
    for row in rows:
        author = _user(row, user_uri)
        author["entries"] = by_user.get(row[0], [])
        objects.append(author)
    return objects


def _scope(resource: str, user_id: int | None) -> tuple[str, list]:
    if resource == "myentry":
        return "WHERE e.user_id = %s", [user_id]
    return "", []


def tutorial_list(request: HttpRequest, resource: str) -> HttpResponseBase:
    """A page (``limit``, ``offset``; ``limit=0`` up to ``max_limit``) as Tastypie writes it."""
    user_id = _authenticated(request, resource)
    if isinstance(user_id, HttpResponseBase):
        return user_id
    limit = int(request.GET.get("limit", DEFAULT_LIMIT)) or MAX_LIMIT
    limit = min(limit, MAX_LIMIT)
    offset = int(request.GET.get("offset", 0))
    where, params = _scope(resource, user_id)
    table = "auth_user" if resource == "author" else "showcase_entry e"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {table} {where}", params)
        total = cursor.fetchone()[0]
    window = f" LIMIT {int(limit)} OFFSET {int(offset)}"
    if resource == "author":
        objects = _authors(where, params, window)
    else:
        objects = _entries(resource, where, params, window)
    meta = page_meta(request, _prefix(resource), limit, offset, total)
    return json_response({"meta": meta, "objects": objects})


def tutorial_detail(request: HttpRequest, resource: str, pk: int) -> HttpResponseBase:
    """One object, as ``/api/v2/<resource>/<pk>/``."""
    user_id = _authenticated(request, resource)
    if isinstance(user_id, HttpResponseBase):
        return user_id
    where, params = _scope(resource, user_id)
    if resource == "author":
        objects = _authors("WHERE id = %s", [pk], "")
    else:
        where = f"{where} AND e.id = %s" if where else "WHERE e.id = %s"
        objects = _entries(resource, where, [*params, pk], "")
    if not objects:
        raise Http404
    return json_response(objects[0])
