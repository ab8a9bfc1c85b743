"""The raw-SQL floor: the v2 user JSON built by hand from two cursor queries.

No ORM, no Tastypie: one query for the users, one for their permission keys
in ``Permission.Meta.ordering``, URIs from a prefix, ``json.dumps``.  The
benchmark checks these bytes equal ModelResource's before it times anything,
so the floor answers the same question the resources answer.
"""

from __future__ import annotations

import datetime
import json
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone

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
    "SELECT up.user_id, up.permission_id FROM auth_user_user_permissions up "
    "INNER JOIN auth_permission p ON p.id = up.permission_id "
    "INNER JOIN django_content_type ct ON ct.id = p.content_type_id "
    "{where} ORDER BY ct.app_label, ct.model, p.codename"
)


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


def _users(where: str = "", params: tuple = (), limit: int = 0) -> list[dict]:
    user_uri = reverse(
        "api_dispatch_detail", kwargs={"api_name": "v2", "resource_name": "auth/user", "pk": 0}
    )[:-2]
    perm_uri = reverse(
        "api_dispatch_detail",
        kwargs={"api_name": "v2", "resource_name": "auth/permission", "pk": 0},
    )[:-2]
    with connection.cursor() as cursor:
        limit_sql = f" LIMIT {int(limit)}" if limit else ""
        cursor.execute(
            f"SELECT {', '.join(USER_COLUMNS)} FROM auth_user {where}{limit_sql}", params
        )
        rows = cursor.fetchall()
        if where:
            cursor.execute(PERMISSIONS_SQL.format(where="WHERE up.user_id = %s"), params)
        else:
            keys = [row[0] for row in rows] or [0]
            marks = ", ".join(["%s"] * len(keys))
            cursor.execute(PERMISSIONS_SQL.format(where=f"WHERE up.user_id IN ({marks})"), keys)
        permissions = defaultdict(list)
        for user_id, permission_id in cursor.fetchall():
            permissions[user_id].append(f"{perm_uri}{permission_id}/")
    users = []
    for row in rows:
        user = dict(zip(USER_COLUMNS, row, strict=True))
        for name in ("is_superuser", "is_staff", "is_active"):
            user[name] = bool(user[name])
        user["last_login"] = _datetime(user["last_login"])
        user["date_joined"] = _datetime(user["date_joined"])
        user["resource_uri"] = f"{user_uri}{user['id']}/"
        user["user_permissions"] = permissions.get(user["id"], [])
        users.append(user)
    return users


def _response(data: Any) -> HttpResponse:
    body = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return HttpResponse(body, content_type="application/json")


def user_list(request: HttpRequest) -> HttpResponse:
    """As ``/api/v2/auth/user/?limit=0``: the first ``max_limit`` users (default 1000,
    Tastypie's ``Meta.max_limit``; ``?max_limit=0`` for all of them)."""
    max_limit = int(request.GET.get("max_limit", 1000))
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM auth_user")
        total = cursor.fetchone()[0]
    if max_limit and total > max_limit:
        raise ValueError("the raw floor does not paginate; seed at most max_limit users")
    users = _users(limit=max_limit)
    meta = {"limit": max_limit, "next": None, "offset": 0, "previous": None, "total_count": total}
    if not max_limit:  # Tastypie's paginator leaves the links out of an unlimited page
        meta = {"limit": 0, "offset": 0, "total_count": total}
    return _response({"meta": meta, "objects": users})


def user_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """``/raw/auth/user/<pk>/``: one user, as ``/api/v2/auth/user/<pk>/``."""
    return _response(_users("WHERE id = %s", (pk,))[0])
