"""The raw-SQL floor: each variant's user JSON built by hand from cursor queries.

No ORM, no Tastypie: one query for the users, one for their permissions in
``Permission.Meta.ordering`` (joined to their content types for the ``full`` and
``related`` variants), one for their groups where the variant shows them, URIs
from a prefix, ``json.dumps``.  The benchmark checks these bytes equal
ModelResource's before it times anything, so the floor answers the same
question the resources answer.

``/raw/auth/user/`` is the plain user API (as ``/api/v2/``);
``/raw/<variant>/auth/user/`` the variants of :mod:`benchmarks.variants` (as
``/api/<variant>-v2/``).  The ``full`` floor authenticates the ``ApiKey`` header
in one query and serves an active superuser only (what the benchmark sends).
"""

from __future__ import annotations

import datetime
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.urls import reverse
from django.utils import timezone
from tastypie.http import HttpUnauthorized

USER_COLUMNS = (
    "id",
    "password",
    "last_login",
    "is_superuser",
    "username",
    "first_name",
    "last_name",
    "email",
    "is_staff",
    "is_active",
    "date_joined",
)
PERMISSIONS_SQL = (
    "SELECT up.user_id, up.permission_id{columns} FROM auth_user_user_permissions up "
    "INNER JOIN auth_permission p ON p.id = up.permission_id "
    "INNER JOIN django_content_type ct ON ct.id = p.content_type_id "
    "{where} ORDER BY ct.app_label, ct.model, p.codename"
)
DETAILED_COLUMNS = ", p.codename, p.name, ct.id, ct.app_label, ct.model"
GROUPS_SQL = (
    "SELECT ug.user_id, g.id, g.name FROM auth_user_groups ug "
    "INNER JOIN auth_group g ON g.id = ug.group_id {where} ORDER BY ug.id"
)
API_KEY_SQL = (
    "SELECT u.id, u.is_active, u.is_superuser FROM auth_user u "
    "INNER JOIN tastypie_apikey k ON k.user_id = u.id WHERE u.username = %s AND k.key = %s"
)


@dataclass(frozen=True)
class Floor:
    """What a variant's JSON holds beyond the plain user's."""

    api_name: str = "v2"
    upper_username: bool = False  # dehydrate_username
    full: bool = False  # nested permissions (with content type) and groups; ApiKey + superuser
    related: bool = False  # permission_names, permission_count, in_a_group


FLOORS = {
    "plain": Floor(),
    "hooked": Floor("hooked-v2"),
    "field": Floor("field-v2", upper_username=True),
    "both": Floor("both-v2", upper_username=True),
    "full": Floor("full-v2", full=True),
    "related": Floor("related-v2", related=True),
}


def _datetime(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if settings.USE_TZ:
        if value.utcoffset() is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        value = value.astimezone(timezone.get_default_timezone()).replace(tzinfo=None)
    return value.isoformat()


def _prefix(floor: Floor, resource_name: str) -> str:
    kwargs = {"api_name": floor.api_name, "resource_name": resource_name, "pk": 0}
    return reverse("api_dispatch_detail", kwargs=kwargs)[:-2]


def _in(keys: list[int]) -> tuple[str, list[int]]:
    keys = keys or [0]
    return ", ".join(["%s"] * len(keys)), keys


def _users(floor: Floor, where: str = "", params: tuple = (), limit: int = 0) -> list[dict]:
    user_uri = _prefix(floor, "auth/user")
    perm_uri = _prefix(floor, "auth/permission")
    detailed = floor.full or floor.related
    columns = DETAILED_COLUMNS if detailed else ""
    with connection.cursor() as cursor:
        limit_sql = f" LIMIT {int(limit)}" if limit else ""
        cursor.execute(
            f"SELECT {', '.join(USER_COLUMNS)} FROM auth_user {where}{limit_sql}", params
        )
        rows = cursor.fetchall()
        if where:
            user_where, user_params = "WHERE {column} = %s", list(params)
        else:
            marks, user_params = _in([row[0] for row in rows])
            user_where = f"WHERE {{column}} IN ({marks})"
        cursor.execute(
            PERMISSIONS_SQL.format(columns=columns, where=user_where.format(column="up.user_id")),
            user_params,
        )
        permission_rows = cursor.fetchall()
        group_rows = []
        if floor.full or floor.related:
            cursor.execute(
                GROUPS_SQL.format(where=user_where.format(column="ug.user_id")), user_params
            )
            group_rows = cursor.fetchall()
    permissions: dict[int, list] = defaultdict(list)
    names: dict[int, list[str]] = defaultdict(list)
    if floor.full:
        type_uri = _prefix(floor, "contenttypes/contenttype")
        for user_id, pk, codename, name, type_id, app_label, model in permission_rows:
            permissions[user_id].append(
                {
                    "codename": codename,
                    "content_type": {
                        "app_label": app_label,
                        "id": type_id,
                        "model": model,
                        "resource_uri": f"{type_uri}{type_id}/",
                    },
                    "id": pk,
                    "name": name,
                    "resource_uri": f"{perm_uri}{pk}/",
                }
            )
    else:
        for user_id, pk, *details in permission_rows:
            permissions[user_id].append(f"{perm_uri}{pk}/")
            if floor.related:
                names[user_id].append(f"{details[3]}.{details[0]}")
    groups: dict[int, list] = defaultdict(list)
    if group_rows:
        group_uri = _prefix(floor, "auth/group")
        for user_id, pk, name in group_rows:
            groups[user_id].append({"id": pk, "name": name, "resource_uri": f"{group_uri}{pk}/"})
    users = []
    for row in rows:
        user = dict(zip(USER_COLUMNS, row, strict=True))
        key = user["id"]
        for name in ("is_superuser", "is_staff", "is_active"):
            user[name] = bool(user[name])
        user["last_login"] = _datetime(user["last_login"])
        user["date_joined"] = _datetime(user["date_joined"])
        user["resource_uri"] = f"{user_uri}{key}/"
        user["user_permissions"] = permissions.get(key, [])
        if floor.upper_username:
            user["username"] = user["username"].upper()
        if floor.full:
            user["groups"] = groups.get(key, [])
        if floor.related:
            user["permission_names"] = names.get(key, [])
            user["permission_count"] = len(user["permission_names"])
            user["in_a_group"] = key in groups
        users.append(user)
    return users


def json_response(data: Any) -> HttpResponse:
    """``data`` as Tastypie's serializer writes JSON (:func:`xml_response`: XML)."""
    body = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return HttpResponse(body, content_type="application/json")


def xml_response(data: dict, page: bool) -> HttpResponse:
    """``data`` as Tastypie's serializer writes XML (``lxml``): a ``page`` (``meta`` and the
    resource's ``objects``) or one object.

    The resource's objects are bundles to Tastypie: written without a ``type``; every other
    dictionary is a ``hash``, a named list a ``list``, a value its type's name but a string's;
    each element's children in the order of their names."""
    from lxml.etree import Element, tostring

    def simple(name: str, value: Any) -> Any:
        element = Element(name)
        kind = _XML_TYPES.get(type(value))
        if kind is not None:
            element.set("type", kind)
        if value is not None:
            element.text = value if isinstance(value, str) else str(value)
        return element

    def element(name: str | None, value: Any, bundle: bool = False) -> Any:
        if isinstance(value, list):
            found = Element(name or "objects")
            if name:
                found.set("type", "list")
            found[:] = sorted((element(None, item) for item in value), key=lambda e: e.tag)
            return found
        if isinstance(value, dict):
            found = Element(name or "object")
            if not bundle:
                found.set("type", "hash")
            found[:] = [element(key, value[key]) for key in sorted(value)]
            return found
        return simple(name or "value", value)

    if page:
        root = Element("response")
        root.append(element("meta", data["meta"]))
        objects = Element("objects")
        objects.set("type", "list")
        objects[:] = [element(None, item, bundle=True) for item in data["objects"]]
        root.append(objects)
    else:
        root = element(None, data, bundle=True)
    body = tostring(root, xml_declaration=True, encoding="utf-8")
    return HttpResponse(body, content_type="application/xml; charset=utf-8")


#: Tastypie's ``get_type_string`` of the values the floors write (a string has no type).
_XML_TYPES = {int: "integer", float: "float", bool: "boolean", type(None): "null"}


def page_meta(request: HttpRequest, list_uri: str, limit: int, offset: int, total: int) -> dict:
    """The ``meta`` of a Tastypie page of ``list_uri``: its links keep the request's other
    parameters, as Tastypie's paginator writes them."""
    query = request.GET.copy()
    query.pop("limit", None)
    query.pop("offset", None)

    def link(at: int) -> str:
        query["limit"], query["offset"] = str(limit), str(at)
        return f"{list_uri}?{query.urlencode()}"

    return {
        "limit": limit,
        "next": link(offset + limit) if offset + limit < total else None,
        "offset": offset,
        "previous": link(offset - limit) if offset - limit >= 0 else None,
        "total_count": total,
    }


def api_key_holder(request: HttpRequest) -> tuple[int, bool] | HttpResponseBase:
    """The id of the active user the ``ApiKey`` header names with that key and whether it is
    a superuser (one query), or a 401."""
    kind, _, credentials = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if kind.lower() != "apikey" or ":" not in credentials:
        return HttpUnauthorized()
    with connection.cursor() as cursor:
        cursor.execute(API_KEY_SQL, credentials.split(":", 1))
        found = cursor.fetchone()
    if found is None or not found[1]:
        return HttpUnauthorized()
    return found[0], bool(found[2])


def api_key_user(request: HttpRequest, superuser_only: bool) -> int | HttpResponseBase:
    """The id of :func:`api_key_holder`'s user, or its 401.  ``superuser_only``: the floor
    checks no permissions, so only a superuser may ask."""
    found = api_key_holder(request)
    if isinstance(found, HttpResponseBase):
        return found
    if superuser_only and not found[1]:
        raise ValueError("the raw floor checks no permissions; authenticate a superuser")
    return found[0]


#: Whether a user holds a permission, its own or through a group (one query).
PERMISSION_SQL = (
    "SELECT 1 FROM auth_permission p "
    "INNER JOIN django_content_type ct ON ct.id = p.content_type_id "
    "WHERE ct.app_label = %s AND p.codename = %s AND ("
    "p.id IN (SELECT up.permission_id FROM auth_user_user_permissions up WHERE up.user_id = %s)"
    " OR p.id IN (SELECT gp.permission_id FROM auth_group_permissions gp "
    "INNER JOIN auth_user_groups ug ON ug.group_id = gp.group_id WHERE ug.user_id = %s))"
)


def holds_permission(user_id: int, app_label: str, codename: str) -> bool:
    """Whether the (active, not superuser) user holds ``<app_label>.<codename>``."""
    with connection.cursor() as cursor:
        cursor.execute(PERMISSION_SQL, [app_label, codename, user_id, user_id])
        return cursor.fetchone() is not None


def _refused(request: HttpRequest, floor: Floor) -> HttpResponseBase | None:
    """For the ``full`` floor: :func:`api_key_user`'s 401, else ``None``."""
    if not floor.full:
        return None
    found = api_key_user(request, superuser_only=True)
    return found if isinstance(found, HttpResponseBase) else None


def user_list(request: HttpRequest, variant: str = "plain") -> HttpResponseBase:
    """As ``/api/<api>/auth/user/?limit=0``: the first ``max_limit`` users (default 1000,
    Tastypie's ``Meta.max_limit``; ``?max_limit=0`` for all of them); with ``?limit=N``
    the first page of ``N`` (as Tastypie's default page of 20)."""
    floor = FLOORS[variant]
    refused = _refused(request, floor)
    if refused is not None:
        return refused
    max_limit = int(request.GET.get("max_limit", 1000))
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM auth_user")
        total = cursor.fetchone()[0]
    limit = int(request.GET.get("limit", 0))
    if limit:  # one page (offset 0), its meta as Tastypie's paginator writes it
        query = request.GET.copy()
        query.pop("limit", None)
        query["limit"], query["offset"] = str(limit), str(limit)
        following = f"{_prefix(floor, 'auth/user')}?{query.urlencode()}"
        meta = {
            "limit": limit,
            "next": following if limit < total else None,
            "offset": 0,
            "previous": None,
            "total_count": total,
        }
        return json_response({"meta": meta, "objects": _users(floor, limit=limit)})
    if max_limit and total > max_limit:
        raise ValueError("the raw floor does not paginate; seed at most max_limit users")
    users = _users(floor, limit=max_limit)
    meta = {"limit": max_limit, "next": None, "offset": 0, "previous": None, "total_count": total}
    if not max_limit:  # Tastypie's paginator leaves the links out of an unlimited page
        meta = {"limit": 0, "offset": 0, "total_count": total}
    return json_response({"meta": meta, "objects": users})


def user_detail(request: HttpRequest, pk: int, variant: str = "plain") -> HttpResponseBase:
    """``/raw/[<variant>/]auth/user/<pk>/``: one user, as ``/api/<api>/auth/user/<pk>/``."""
    floor = FLOORS[variant]
    refused = _refused(request, floor)
    if refused is not None:
        return refused
    return json_response(_users(floor, "WHERE id = %s", (pk,))[0])
