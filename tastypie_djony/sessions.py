"""Resource methods called outside a request get a Pony session of their own.

Tastypie's cookbook ("Using your resource in regular views") and users' tests
call ``obj_get``, ``obj_get_list``, ``full_dehydrate``, ``obj_create`` ...
directly, with no request around them.  A ``ModelResource`` needs nothing
for that; a ``DjonyResource`` method decorated with :func:`in_session` opens
what the request would have opened, only when no Pony session is active:

* a read: a ``db_session`` (``strict=False``: the loaded values of the
  objects it returns stay readable after it ends, and so do the objects
  they name by a foreign key, loaded before it ends:
  :func:`~djony.objects.rows.load_to_one`);
* a write: a ``db_session`` reading from the model's write database; the
  write's own steps are atomic (:mod:`tastypie_djony.write`), and no
  transaction is opened around the caller's code, as in a request.

An object from a session that has ended (returned by an earlier call) is
replaced in the bundle by the same row of the new session, so it can be
dehydrated, updated or deleted there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from pony.orm import db_session
from tastypie.bundle import Bundle

from djony.serving import (
    adopt,
    assignments_not_saved,
    is_entity_object,
    load_to_one,
    session_active,
    write_alias,
    writing,
)

Method = TypeVar("Method", bound=Callable[..., Any])


def in_session(write: bool = False) -> Callable[[Method], Method]:
    """Decorate a resource method to run in a Pony session when none is active."""

    def decorate(method: Method) -> Method:
        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if session_active():
                return method(self, *args, **kwargs)
            if not write:
                with assignments_not_saved(), db_session(strict=False):
                    _adopt_bundles(args, kwargs)
                    result = method(self, *args, **kwargs)
                    if is_entity_object(result):  # obj_get, get_via_uri: an object
                        load_to_one([result])
                    return result
            with (
                assignments_not_saved(),
                writing(write_alias(self._meta.object_class)),
                db_session(strict=False),
            ):
                _adopt_bundles(args, kwargs)
                return method(self, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def _adopt_bundles(args: tuple, kwargs: dict) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, Bundle):
            value.obj = adopt(value.obj)


class OutsideRequestMixin:
    """The resource methods Tastypie's documentation calls outside a request, in a session."""

    @in_session()
    def build_bundle(self, *args: Any, **kwargs: Any) -> Bundle:
        return super().build_bundle(*args, **kwargs)

    @in_session()
    def obj_get(self, *args: Any, **kwargs: Any) -> Any:
        return super().obj_get(*args, **kwargs)

    @in_session()
    def cached_obj_get(self, *args: Any, **kwargs: Any) -> Any:
        return super().cached_obj_get(*args, **kwargs)

    def obj_get_list(self, *args: Any, **kwargs: Any) -> Any:
        if session_active():
            return super().obj_get_list(*args, **kwargs)
        with assignments_not_saved(), db_session(strict=False):
            objects = super().obj_get_list(*args, **kwargs)
        # Evaluated later, in a session of its own: no page loaders, whose
        # related data would belong to that session only.
        with_loaders = getattr(objects, "with_loaders", None)
        return objects if with_loaders is None else with_loaders(())

    @in_session()
    def get_via_uri(self, *args: Any, **kwargs: Any) -> Any:
        return super().get_via_uri(*args, **kwargs)

    @in_session()
    def full_dehydrate(self, *args: Any, **kwargs: Any) -> Bundle:
        return super().full_dehydrate(*args, **kwargs)

    @in_session()
    def full_hydrate(self, *args: Any, **kwargs: Any) -> Bundle:
        return super().full_hydrate(*args, **kwargs)

    @in_session(write=True)
    def obj_create(self, *args: Any, **kwargs: Any) -> Bundle:
        return super().obj_create(*args, **kwargs)

    @in_session(write=True)
    def obj_update(self, *args: Any, **kwargs: Any) -> Bundle:
        return super().obj_update(*args, **kwargs)

    @in_session(write=True)
    def obj_delete(self, *args: Any, **kwargs: Any) -> None:
        return super().obj_delete(*args, **kwargs)

    @in_session(write=True)
    def obj_delete_list(self, *args: Any, **kwargs: Any) -> None:
        return super().obj_delete_list(*args, **kwargs)

    @in_session(write=True)
    def rollback(self, *args: Any, **kwargs: Any) -> None:
        return super().rollback(*args, **kwargs)

    # Tastypie's views, called directly as its own tests and users' tests do
    # (``resource.dispatch("list", request)``, ``resource.get_list(request)``):
    # the session the request's ``wrap_view`` would have opened.
    def dispatch(self, request_type: str, request: Any, **kwargs: Any) -> Any:
        if getattr(request, "method", "GET") in ("GET", "HEAD", "OPTIONS"):
            return self._dispatch_reading(request_type, request, **kwargs)
        return self._dispatch_writing(request_type, request, **kwargs)

    @in_session()
    def _dispatch_reading(self, request_type: str, request: Any, **kwargs: Any) -> Any:
        return super().dispatch(request_type, request, **kwargs)

    @in_session(write=True)
    def _dispatch_writing(self, request_type: str, request: Any, **kwargs: Any) -> Any:
        return super().dispatch(request_type, request, **kwargs)

    @in_session(write=True)
    def post_list(self, *args: Any, **kwargs: Any) -> Any:
        return super().post_list(*args, **kwargs)

    @in_session(write=True)
    def put_list(self, *args: Any, **kwargs: Any) -> Any:
        return super().put_list(*args, **kwargs)

    @in_session(write=True)
    def put_detail(self, *args: Any, **kwargs: Any) -> Any:
        return super().put_detail(*args, **kwargs)

    @in_session(write=True)
    def patch_list(self, *args: Any, **kwargs: Any) -> Any:
        return super().patch_list(*args, **kwargs)

    @in_session(write=True)
    def patch_detail(self, *args: Any, **kwargs: Any) -> Any:
        return super().patch_detail(*args, **kwargs)

    @in_session(write=True)
    def delete_list(self, *args: Any, **kwargs: Any) -> Any:
        return super().delete_list(*args, **kwargs)

    @in_session(write=True)
    def delete_detail(self, *args: Any, **kwargs: Any) -> Any:
        return super().delete_detail(*args, **kwargs)

    @in_session()
    def get_multiple(self, *args: Any, **kwargs: Any) -> Any:
        return super().get_multiple(*args, **kwargs)
