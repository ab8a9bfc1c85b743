"""Tastypie's ``ApiKeyAuthentication``, its user query compiled once.

On every request the stock ``ApiKeyAuthentication.is_authenticated`` runs
``User.objects.select_related("api_key").get(username=...)``; building and compiling
that query costs more than running it (about a third of a tutorial detail).  When the
authentication's methods are Tastypie's own and ``User.objects`` is Django's plain
default manager (:func:`~djony.objects.compiled.plain_manager`: its SQL cannot change between
requests), :func:`is_authenticated` does what the stock method does, step for step,
with the lookup's SQL compiled once per database: the username stays a parameter,
prepared by Django's own lookup (:class:`~djony.objects.compiled.OneValueQuery`), the SQL runs
on Django's cursor (logged, counted, wrapped as any query), and the user and its
``api_key`` are built by Django's own ``ModelIterable`` from the rows (``from_db``,
``select_related``'s populators, signals): the same ``request.user``, the same answer.
A subclass overriding any step, or another user manager, keeps Tastypie's own method.
Inside Tastypie's ``MultiAuthentication`` (:func:`multi_authenticated`) each such backend
is served so, in the backends' order; the others are asked as Tastypie asks them.
"""

from __future__ import annotations

import copy
from typing import Any

from django.contrib.auth import get_user_model
from django.db import router
from django.db.models import QuerySet
from tastypie.authentication import ApiKeyAuthentication, MultiAuthentication
from tastypie.compat import get_username_field
from tastypie.http import HttpUnauthorized

from djony.serving import NotKeptForValue, OneValueQuery, plain_manager

#: The steps of ``ApiKeyAuthentication.is_authenticated`` (none may be overridden).
STEPS = (
    "is_authenticated",
    "extract_credentials",
    "get_authorization_data",
    "check_active",
    "get_key",
    "_unauthorized",
)

#: As ``QuerySet.get``: at most this many rows are read.
MAX_GET_RESULTS = 21

#: (user model, username field, alias) -> its OneValueQuery, or None.
_KEPT: dict[tuple, Any] = {}


def kept_lookup(authentication: Any) -> bool:
    """Whether ``authentication`` is served by :func:`is_authenticated`."""
    if type(authentication) is not ApiKeyAuthentication:
        kind = type(authentication)
        if not isinstance(authentication, ApiKeyAuthentication) or any(
            getattr(kind, step) is not getattr(ApiKeyAuthentication, step) for step in STEPS
        ):
            return False
    if any(step in vars(authentication) for step in STEPS):
        return False
    user_model = get_user_model()
    return getattr(user_model, "objects", None) is user_model._default_manager and plain_manager(
        user_model
    )


def kept_multi(authentication: Any) -> bool:
    """Whether ``authentication`` is Tastypie's ``MultiAuthentication`` (its loop not
    overridden) with a backend :func:`kept_lookup` serves: :func:`multi_authenticated`."""
    kind = type(authentication)
    return (
        isinstance(authentication, MultiAuthentication)
        and kind.is_authenticated is MultiAuthentication.is_authenticated
        and "is_authenticated" not in vars(authentication)
        and any(kept_lookup(backend) for backend in authentication.backends)
    )


def multi_authenticated(authentication: Any, request: Any) -> Any:
    """``MultiAuthentication.is_authenticated(request)``, step for step, its
    ``ApiKeyAuthentication`` backends served by :func:`is_authenticated`."""
    unauthorized = False
    for backend in authentication.backends:
        if kept_lookup(backend):
            check = is_authenticated(backend, request)
        else:
            check = backend.is_authenticated(request)
        if check:
            if isinstance(check, HttpUnauthorized):
                unauthorized = unauthorized or check
            else:
                request._authentication_backend = backend
                return check
    return unauthorized


def is_authenticated(authentication: Any, request: Any) -> Any:
    """``authentication.is_authenticated(request)``, with the user found by kept SQL."""
    try:
        username, api_key = authentication.extract_credentials(request)
    except ValueError:
        return authentication._unauthorized()
    if not username or not api_key:
        return authentication._unauthorized()
    users = _users(username)
    if users is None:  # not kept for this value: Tastypie's own lookup
        return authentication.is_authenticated(request)
    if len(users) != 1:  # DoesNotExist, MultipleObjectsReturned
        return authentication._unauthorized()
    (user,) = users
    if not authentication.check_active(user):
        return False
    key_auth_check = authentication.get_key(user, api_key)
    if key_auth_check and not isinstance(key_auth_check, HttpUnauthorized):
        request.user = user
    return key_auth_check


def _users(username: Any) -> list | None:
    """What ``User.objects.select_related("api_key").get(username=...)`` reads, or ``None``."""
    user_model = get_user_model()
    name = get_username_field()
    alias = router.db_for_read(user_model)
    key = (user_model, name, alias)
    if key not in _KEPT:
        try:
            _KEPT[key] = _compile(user_model, name, username, alias)
        except NotKeptForValue:
            return None
    compiled = _KEPT[key]
    if compiled is None:
        return None
    params = compiled.params_for(username)
    if params is None:
        return None
    query = copy.copy(compiled.query)  # the iterable is handed the kept compiler once
    return compiled.objects(QuerySet(model=user_model, query=query, using=alias), params)


def _compile(user_model: type, name: str, sample: Any, alias: str) -> Any:
    """The kept lookup for ``alias``, or ``None`` when its SQL is not one value's."""
    compiled = OneValueQuery.compile(
        lambda: user_model.objects.select_related("api_key").using(alias),
        name,
        sample,
        lambda queryset: queryset.order_by()[:MAX_GET_RESULTS],
    )
    if compiled is None or compiled.alias != alias:
        return None
    return compiled
