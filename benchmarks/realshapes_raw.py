"""The raw-SQL floor of the real-world shapes: the same bytes from cursor queries.

No ORM, no Tastypie: the rows of a page (or a detail) in one query per table (pins
joined to their submitter and image, their tags by pin; exercises, their muscles by
exercise; a user's points after the ``ApiKey`` header's one query), the page's ``meta``
as Tastypie's paginator writes it, URIs from the API's prefix, ``json.dumps``.
``/raw/shapes/<resource>/`` answers as ``/api/shapes-v2/<resource>/``
(:mod:`example_project.showcase.realshapes`); the benchmark checks the bytes are equal
before it times anything.
"""

from __future__ import annotations

import datetime
import hashlib
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.http import Http404, HttpRequest, HttpResponseBase
from django.utils.html import strip_tags

from benchmarks.raw import _datetime, api_key_user, json_response, page_meta, xml_response
from example_project.showcase.realshapes.points import BONUS

API = "/api/shapes-v2/"
DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
PIN_SQL = (
    "SELECT p.id, p.url, p.origin, p.description, p.published, u.username, u.email, "
    "i.id, i.image, i.width, i.height FROM showcase_pin p "
    "INNER JOIN auth_user u ON u.id = p.submitter_id "
    "INNER JOIN showcase_image i ON i.id = p.image_id"
)
TAGS_SQL = (
    "SELECT pt.pin_id, t.name FROM showcase_pin_tags pt "
    "INNER JOIN showcase_tag t ON t.id = pt.tag_id WHERE pt.pin_id IN ({keys}) ORDER BY t.name"
)
THUMBNAILS_SQL = (
    "SELECT original_id, size, image, width, height FROM showcase_thumbnail "
    "WHERE original_id IN ({keys})"
)
THUMBNAIL_SIZES = ("standard", "thumbnail", "square")
EXERCISE_SQL = (
    "SELECT e.id, e.name, e.slug, e.description, e.category_id, e.creation_date, "
    "e.license_author FROM showcase_exercise e"
)
MUSCLES_SQL = (
    "SELECT exercise_id, muscle_id FROM showcase_exercise_muscles "
    "WHERE exercise_id IN ({keys}) ORDER BY muscle_id"
)
POINTS_SQL = "SELECT id, date, description, points, type FROM showcase_points"


def _rows(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _marks(keys: list) -> str:
    return ", ".join(["%s"] * len(keys))


def _aware(value: Any) -> datetime.datetime:
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)


def _date(value: Any) -> str:
    return value if isinstance(value, str) else value.isoformat()


def _gravatar(email: str) -> str:
    return (
        f"https://www.gravatar.com/avatar/{hashlib.md5(email.strip().lower().encode()).hexdigest()}"
    )


def _pins(where: str, params: list, window: str) -> list[dict]:
    rows = _rows(f"{PIN_SQL} {where} ORDER BY p.id{window}", params)
    keys = [row[0] for row in rows]
    tags: dict[int, list[str]] = defaultdict(list)
    thumbnails: dict[int, dict[str, dict]] = defaultdict(dict)
    if keys:
        for pin, name in _rows(TAGS_SQL.format(keys=_marks(keys)), keys):
            tags[pin].append(name)
        images = sorted({row[7] for row in rows})
        for original, size, image, width, height in _rows(
            THUMBNAILS_SQL.format(keys=_marks(images)), images
        ):
            thumbnails[original][size] = {"height": height, "image": image, "width": width}
    return [
        {
            "description": description,
            "id": pk,
            "image": {
                "height": height,
                "image": image,
                "width": width,
                **{size: thumbnails[image_id][size] for size in THUMBNAIL_SIZES},
            },
            "origin": origin,
            "published": _datetime(published),
            "submitter": {"gravatar": _gravatar(email), "username": username},
            "tags": tags.get(pk, []),
            "url": url,
        }
        for (
            pk,
            url,
            origin,
            description,
            published,
            username,
            email,
            image_id,
            image,
            width,
            height,
        ) in rows
    ]


def _exercises(where: str, params: list, window: str) -> list[dict]:
    rows = _rows(f"{EXERCISE_SQL} {where} ORDER BY e.id{window}", params)
    keys = [row[0] for row in rows]
    muscles: dict[int, list[str]] = defaultdict(list)
    if keys:
        for exercise, muscle in _rows(MUSCLES_SQL.format(keys=_marks(keys)), keys):
            muscles[exercise].append(f"{API}muscle/{muscle}/")
    return [
        {
            "category": f"{API}exercisecategory/{category}/",
            "creation_date": _date(created),
            "description": strip_tags(description),
            "id": pk,
            "license_author": author,
            "muscles": muscles.get(pk, []),
            "name": name,
            "resource_uri": f"{API}exercise/{slug}/",
            "slug": slug,
        }
        for pk, name, slug, description, category, created, author in rows
    ]


def _points(where: str, params: list, window: str) -> list[dict]:
    rows = _rows(f"{POINTS_SQL} {where} ORDER BY date DESC{window}", params)
    return [
        {
            "bonus": points >= BONUS,
            "date": _aware(date).strftime("%Y-%m-%d %H:%M:%S"),
            "description": description,
            "id": pk,
            "points": points,
            "type": kind,
        }
        for pk, date, description, points, kind in rows
    ]


def _pin_scope(request: HttpRequest) -> tuple[str, list]:
    """Public pins only (no authenticated user), narrowed by ``submitter__in``."""
    where, params = "WHERE p.private = %s", [False]
    submitters = request.GET.get("submitter__in")
    if submitters is not None:
        keys = [int(key) for key in submitters.split(",")]
        where += f" AND p.submitter_id IN ({_marks(keys)})"
        params += keys
    return where, params


def _exercise_scope(request: HttpRequest) -> tuple[str, list]:
    """Narrowed by ``category__name__in`` and ``name__icontains`` (a search, as wger's)."""
    joins, conditions, params = "", [], []
    names = request.GET.get("category__name__in")
    if names is not None:
        names_list = names.split(",")
        joins = "INNER JOIN showcase_exercisecategory c ON c.id = e.category_id "
        conditions.append(f"c.name IN ({_marks(names_list)})")
        params += names_list
    search = request.GET.get("name__icontains")
    if search is not None:
        if any(character in search for character in "%_\\"):
            raise ValueError("the raw floor searches for letters and spaces only")
        conditions.append("UPPER(e.name) LIKE UPPER(%s)")
        params.append(f"%{search}%")
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    return joins + where, params


def _points_scope(request: HttpRequest) -> tuple[str, list] | HttpResponseBase:
    user = api_key_user(request, superuser_only=False)
    if isinstance(user, HttpResponseBase):
        return user
    return "WHERE user_id = %s", [user]


#: resource -> (the request's WHERE (or its 401), the objects, the COUNT's table, detail key)
SHAPES: dict[str, tuple[Callable, Callable, str, str]] = {
    "pin": (_pin_scope, _pins, "showcase_pin p", "p.id"),
    "exercise": (_exercise_scope, _exercises, "showcase_exercise e", "e.slug"),
    "points": (_points_scope, _points, "showcase_points", "id"),
}


def shape_list(request: HttpRequest, resource: str) -> HttpResponseBase:
    """A page (``limit``, ``offset``; ``limit=0`` up to ``max_limit``) as Tastypie writes it."""
    scope, objects_of, table, _key = SHAPES[resource]
    scoped = scope(request)
    if isinstance(scoped, HttpResponseBase):
        return scoped
    where, params = scoped
    limit = min(int(request.GET.get("limit", DEFAULT_LIMIT)) or MAX_LIMIT, MAX_LIMIT)
    offset = int(request.GET.get("offset", 0))
    total = _rows(f"SELECT COUNT(*) FROM {table} {where}", params)[0][0]
    objects = objects_of(where, params, f" LIMIT {int(limit)} OFFSET {int(offset)}")
    meta = page_meta(request, f"{API}{resource}/", limit, offset, total)
    return _response(request, {"meta": meta, "objects": objects}, page=True)


def shape_detail(request: HttpRequest, resource: str, key: str) -> HttpResponseBase:
    """One object, as ``/api/shapes-v2/<resource>/<key>/`` (a slug for exercises)."""
    scope, objects_of, _table, column = SHAPES[resource]
    scoped = scope(request)
    if isinstance(scoped, HttpResponseBase):
        return scoped
    where, params = ("", []) if resource == "exercise" else scoped
    where = f"{where} AND {column} = %s" if where else f"WHERE {column} = %s"
    objects = objects_of(where, [*params, key if resource == "exercise" else int(key)], "")
    if not objects:
        raise Http404
    return _response(request, objects[0], page=False)


def _response(request: HttpRequest, data: dict, page: bool) -> HttpResponseBase:
    """JSON, or XML for ``?format=xml``."""
    if request.GET.get("format") == "xml":
        return xml_response(data, page)
    return json_response(data)
