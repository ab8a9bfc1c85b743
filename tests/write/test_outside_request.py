"""Resource methods called outside a request, as Tastypie's cookbook does.

"Using your resource in regular views" builds a bundle, calls ``obj_get`` and
``full_dehydrate`` and serialises the result; users' tests call
``obj_create``, ``obj_update`` and ``obj_delete`` directly.  Each flow below
runs on ModelResource (``v2``) and on DjonyResource (``v3``) with no request
around it and no setup beyond the resource: the results and every table's
rows afterwards must be the same.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.http import HttpRequest
from django.utils import timezone
from pony.orm.core import local as pony_local
from tastypie.bundle import Bundle

from tests.testapp.models import Book, Tag
from tests.write import api as write_api
from tests.write.api import build_write_api

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = pytest.mark.usefixtures("transactional_db")

APIS = {"v2": "model", "v3": "djony"}
_registries: dict[str, dict] = {}


def resource(api: str, name: str) -> Any:
    if api not in _registries:
        _registries[api] = build_write_api(api, APIS[api])._registry
    return _registries[api][name]


def cookbook_detail(api: str) -> Any:
    res = resource(api, "book")
    request = HttpRequest()
    bundle = res.build_bundle(request=request)
    obj = res.obj_get(bundle, pk=1)
    bundle = res.build_bundle(obj=obj, request=request)
    bundle = res.full_dehydrate(bundle)
    return res.serialize(
        None, res.alter_detail_data_to_serialize(request, bundle), "application/json"
    )


def cookbook_list(api: str) -> Any:
    res = resource(api, "book")
    request = HttpRequest()
    objects = res.obj_get_list(res.build_bundle(request=request))
    bundles = [res.full_dehydrate(res.build_bundle(obj=obj, request=request)) for obj in objects]
    return [res.serialize(None, b, "application/json") for b in bundles], len(objects)


def list_then_related(api: str) -> Any:
    """Objects of ``obj_get_list`` read after it returned, through a foreign key too."""
    res = resource(api, "book")
    books = res.obj_get_list(res.build_bundle())
    return len(books), [(book.title, book.author.name, book.author.email) for book in books]


def get_then_related(api: str) -> Any:
    """The object of ``obj_get`` read through a foreign key after it returned."""
    res = resource(api, "book")
    book = res.obj_get(res.build_bundle(), pk=2)
    return book.title, book.author.name, book.tags.count()


def cached_get(api: str) -> Any:
    res = resource(api, "tag")
    obj = res.cached_obj_get(res.build_bundle(), pk=2)
    return obj.pk, obj.name


def via_uri(api: str) -> Any:
    res = resource(api, "author")
    obj = res.get_via_uri(f"/{api}/author/2/")
    return obj.pk, obj.name, obj.email


def create(api: str) -> Any:
    res = resource(api, "book")
    data = {"title": "Made here", "author": f"/{api}/author/2/", "pages": 12}
    bundle = res.obj_create(res.build_bundle(data=data))
    return bundle.obj.pk, bundle.obj.title, bundle.obj.pages


def create_then_dehydrate(api: str) -> Any:
    res = resource(api, "tag")
    bundle = res.obj_create(res.build_bundle(data={"name": "fresh"}))
    fresh = res.full_dehydrate(res.build_bundle(obj=bundle.obj))
    return res.serialize(None, fresh, "application/json")


def create_then_count_related(api: str) -> Any:
    """A to-many relation of the new object counted after ``obj_create`` returned."""
    res = resource(api, "book")
    data = {"title": "Counted", "author": f"/{api}/author/2/", "tags": [f"/{api}/tag/1/"]}
    bundle = res.obj_create(res.build_bundle(data=data))
    return bundle.obj.tags.count(), bundle.obj.tags.exists(), bundle.obj.author.name


def update(api: str) -> Any:
    res = resource(api, "book")
    data = {"title": "Emma (revised)", "author": f"/{api}/author/3/"}
    bundle = res.obj_update(res.build_bundle(data=data), pk=2)
    return bundle.obj.pk, bundle.obj.title


def update_object_read_earlier(api: str) -> Any:
    res = resource(api, "tag")
    obj = res.obj_get(res.build_bundle(), pk=3)
    bundle = res.obj_update(res.build_bundle(obj=obj, data={"name": "verse"}), pk=3)
    return bundle.obj.name


def update_django_instance(api: str) -> Any:
    """``build_bundle(obj=<Django instance>)``, then ``obj_update`` (Tastypie SlugBasedResource)."""
    res = resource(api, "tag")
    tag = Tag.objects.get(pk=3)
    bundle = res.obj_update(res.build_bundle(obj=tag, data={"name": "verse"}), pk=3)
    return bundle.obj.pk, bundle.obj.name


def update_django_instance_changed_in_memory(api: str) -> Any:
    """What the caller assigned to the instance is saved too, as by its ``save()``."""
    res = resource(api, "book")
    book = Book.objects.get(pk=2)
    book.pages = 321
    bundle = res.obj_update(res.build_bundle(obj=book, data={"title": "Retitled"}), pk=2)
    return bundle.obj.title, bundle.obj.pages


def update_in_place_new_key(api: str) -> Any:
    """A new key in the data saves another row, as ``Model.save()`` does (``update_in_place``)."""
    res = resource(api, "tag")
    bundle = res.build_bundle(obj=Tag.objects.get(pk=3))
    new = res.update_in_place(HttpRequest(), bundle, {"id": 50, "name": "moved"})
    return new.obj.pk, new.obj.name


def full_hydrate_django_instance(api: str) -> Any:
    """A relation of a hydrated Django instance reads as the instance reads it, after the call."""
    res = resource(api, "book")
    bundle = res.full_hydrate(res.build_bundle(obj=Book.objects.get(pk=2), data={"title": "T"}))
    author = bundle.obj.author
    return bundle.obj.title, author.name, callable(getattr(author, "save", None))


def rollback(api: str) -> Any:
    """``rollback(bundles)`` deletes the object of each bundle that has a key."""
    res = resource(api, "tag")
    saved = res.obj_get(res.build_bundle(), pk=2)
    bundles = [Bundle(obj=Tag.objects.get(pk=1)), Bundle(obj=Tag()), Bundle(), Bundle(obj=saved)]
    res.rollback(bundles)
    res.rollback([])


def delete(api: str) -> Any:
    res = resource(api, "book")
    res.obj_delete(Bundle(), pk=4)  # as delete_detail: build_bundle() holds an empty object


def delete_object_read_earlier(api: str) -> Any:
    res = resource(api, "tag")
    obj = res.obj_get(res.build_bundle(), pk=1)
    res.obj_delete(res.build_bundle(obj=obj))


def create_refused(api: str) -> Any:
    res = resource(api, "book")
    try:
        res.obj_create(res.build_bundle(data={"title": "No author"}))
    except Exception as exc:  # the same exception class on both sides
        return type(exc).__name__
    return None


FLOWS: list[Callable[[str], Any]] = [
    cookbook_detail,
    cookbook_list,
    list_then_related,
    get_then_related,
    cached_get,
    via_uri,
    create,
    create_then_dehydrate,
    create_then_count_related,
    update,
    update_object_read_earlier,
    update_django_instance,
    update_django_instance_changed_in_memory,
    update_in_place_new_key,
    full_hydrate_django_instance,
    rollback,
    delete,
    delete_object_read_earlier,
    create_refused,
]


def _rows(start: datetime.datetime) -> dict:
    """Every table's rows; a time after ``start`` (a ``timezone.now`` default) is ``<now>``."""
    return {
        table: [
            {
                k: "<now>" if isinstance(v, datetime.datetime) and v >= start else v
                for k, v in row.items()
            }
            for row in rows
        ]
        for table, rows in write_api.snapshot().items()
    }


def _run(flow: Callable[[str], Any], api: str) -> tuple[Any, dict]:
    write_api.reset()
    start = timezone.now()
    result = flow(api)
    if isinstance(result, str):
        result = result.replace(f"/{api}/", "/API/")
    elif isinstance(result, tuple) and isinstance(result[0], list):
        result = ([r.replace(f"/{api}/", "/API/") for r in result[0]], *result[1:])
    return result, _rows(start)


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.__name__)
def test_outside_request(flow: Callable[[str], Any]) -> None:
    expected, expected_rows = _run(flow, "v2")
    result, rows = _run(flow, "v3")
    assert pony_local.db_session is None  # nothing left open
    assert result == expected
    assert rows == expected_rows
