"""A user's model permissions, as Django's ``ModelBackend`` reads them, by SQL compiled once.

Tastypie's ``DjangoAuthorization`` asks ``request.user.has_perm(...)`` on every request.
For an active user who is not a superuser, Django's ``ModelBackend`` then builds and
compiles two queries on the request's user object (the user's own permissions, then its
groups' permissions) and runs them: building and compiling them costs many times what
running them costs (with twenty permissions, about 0.6 ms against 0.04 ms on SQLite).

:func:`read_permissions` runs just before a check that is certain to ask ``has_perm``
that way (a stock ``DjangoAuthorization`` method: :func:`asks_has_perm`): when the
user's ``has_perm`` is Django's and Django's ``ModelBackend`` is the only authentication
backend, it runs the SQL Django's backend compiles for those two queries, compiled once
per user model and database (proved the same for every user: the user's key is the one
parameter, nothing in the query depends on the request), on Django's cursor (logged,
counted), in Django's order, and leaves both sets where the backend keeps them
(``_user_perm_cache``, ``_group_perm_cache``).  ``has_perm`` then runs as Django's own
and finds them.  Anything else (a superuser, another backend, permissions already read,
a prefetched relation on the user, a key that is not an integer) is left to Django.

:class:`PermissionsReadOnceMixin` calls it from every ``authorized_*`` step of a resource,
the one place Tastypie's code and the plans ask the authorization through;
:func:`tastypie_djony.authorization.authorize_read_detail` calls it too.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import connections, router
from django.utils.functional import LazyObject, empty
from django.utils.module_loading import import_string
from tastypie.authorization import DjangoAuthorization

from djony.serving import plain_manager, request_independent
from tastypie_djony.stock import stock_authorized_method

#: The backends whose permission checks are Django's ``ModelBackend``'s own.
MODEL_BACKENDS = (
    "django.contrib.auth.backends.ModelBackend",
    "django.contrib.auth.backends.AllowAllUsersModelBackend",
)

#: Where ``ModelBackend`` keeps each set on the user object, in the order it reads them.
CACHES = (("user", "_user_perm_cache"), ("group", "_group_perm_cache"))

#: The columns ``ModelBackend`` reads of each permission.
COLUMNS = ("content_type__app_label", "codename")

#: ``tuple(settings.AUTHENTICATION_BACKENDS)`` -> whether it is one ``ModelBackend``.
_BACKENDS: dict[tuple, bool] = {}

#: (user model, database of the user's own permissions, of its groups', of its groups'
#: subquery) -> the two SQL statements, or ``None`` where Django's are not one integer key's.
_KEPT: dict[tuple, tuple[str, str] | None] = {}


def asks_has_perm(authorization: Any, action: str) -> bool:
    """Whether ``authorization.<action>`` (``read_list``, ``update_detail`` ...) is
    ``DjangoAuthorization``'s own, down to ``user.has_perm``: the check asks it of any
    request that has a ``user``."""
    if not isinstance(authorization, DjangoAuthorization):
        return False
    checks = "perm_list_checks" if action.endswith("_list") else "perm_obj_checks"
    kind, own = type(authorization), vars(authorization)
    return all(
        getattr(kind, name) is getattr(DjangoAuthorization, name) and name not in own
        for name in (action, checks, "base_checks", "check_user_perm")
    )


def read_permissions(authorization: Any, action: str, request: Any) -> None:
    """Before ``authorization.<action>`` for ``request``: read its user's permissions by
    the kept SQL where that check will ask Django's ``ModelBackend`` for them."""
    if request is None or not hasattr(request, "user") or not asks_has_perm(authorization, action):
        return
    user = request.user
    if isinstance(user, LazyObject):  # AuthenticationMiddleware's: has_perm reads it anyway
        if user._wrapped is empty:
            user._setup()
        user = user._wrapped
    if not _reads_both(user):
        return
    aliases = _aliases(user)
    kept = _statements(user, aliases)
    if kept is None:
        return
    for (_, cache), sql, alias in zip(CACHES, kept, aliases[:2], strict=True):
        with connections[alias].cursor() as cursor:
            cursor.execute(sql, (user.pk,))
            rows = cursor.fetchall()
        setattr(user, cache, {f"{app_label}.{codename}" for app_label, codename in rows})


def _reads_both(user: Any) -> bool:
    """Whether ``user.has_perm`` (no object) will run ``ModelBackend``'s two queries.

    Never without ``django.contrib.auth`` installed (its models are imported only then)."""
    if not apps.is_installed("django.contrib.auth"):
        return False
    from django.contrib.auth.models import PermissionsMixin

    kind = type(user)
    if (
        getattr(kind, "has_perm", None) is not PermissionsMixin.has_perm
        or "has_perm" in vars(user)
        or not _model_backend_only()
        or type(user.pk) is not int
    ):
        return False
    if not user.is_active or user.is_superuser or user.is_anonymous:
        return False  # no query: Django answers without them
    if hasattr(user, "_perm_cache") or any(hasattr(user, cache) for _, cache in CACHES):
        return False  # read already (this request's earlier check)
    # A prefetched relation changes the query Django's related manager builds.
    return "_prefetched_objects_cache" not in vars(user)


def _model_backend_only() -> bool:
    key = tuple(settings.AUTHENTICATION_BACKENDS)
    if key not in _BACKENDS:
        models = tuple(import_string(path) for path in MODEL_BACKENDS)
        _BACKENDS[key] = len(key) == 1 and import_string(key[0]) in models
    return _BACKENDS[key]


def _aliases(user: Any) -> tuple[str, str, str]:
    """Where Django's two queries run (the related manager's hint is the user object),
    then where the second one's subquery of the user's groups would (Django refuses a
    subquery of another database)."""
    from django.contrib.auth.models import Group, Permission

    return (
        router.db_for_read(Permission, instance=user),
        router.db_for_read(Permission),
        router.db_for_read(Group, instance=user),
    )


def _statements(user: Any, aliases: tuple[str, str, str]) -> tuple[str, str] | None:
    """The SQL of ``ModelBackend``'s two queries for users of ``user``'s model on
    ``aliases`` (:func:`_aliases`), kept."""
    key = (type(user), *aliases)
    if key not in _KEPT:
        _KEPT[key] = _compile(user, aliases)
    return _KEPT[key]


def _compile(user: Any, aliases: tuple[str, str, str]) -> tuple[str, str] | None:
    """Django's SQL of both queries for ``user``, where it is the same for every user of
    its model but the key (the one parameter), else ``None``."""
    from django.contrib.auth.backends import ModelBackend
    from django.contrib.auth.models import Group, Permission

    if not (plain_manager(Permission) and plain_manager(Group)):
        return None
    backend = ModelBackend()
    statements = []
    for (source, _), alias in zip(CACHES, aliases[:2], strict=True):
        queryset = getattr(backend, f"_get_{source}_permissions")(user)
        queryset = queryset.values_list(*COLUMNS).order_by()
        if queryset.db != alias:
            return None
        compiler = queryset.query.get_compiler(alias)
        sql, params = compiler.as_sql()
        if tuple(params) != (user.pk,) or not request_independent(queryset.query, compiler):
            return None
        if compiler.get_converters([column[0] for column in compiler.select]):
            return None  # values Django would convert: its own query reads them
        statements.append(sql)
    return statements[0], statements[1]


#: Tastypie's authorization steps: the method of ``Resource`` -> the authorization's.
STEPS = {
    f"authorized_{action}": action
    for action in (
        "read_list",
        "read_detail",
        "create_list",
        "create_detail",
        "update_list",
        "update_detail",
        "delete_list",
        "delete_detail",
    )
}


class PermissionsReadOnceMixin:
    """Each ``authorized_*`` step reads the user's permissions by kept SQL first
    (:func:`read_permissions`), then is Tastypie's own.  Override a step as on
    ``ModelResource``: an override that does not call ``super()`` asks Django as before."""


def _step(name: str, action: str) -> Any:
    def step(self: Any, object_list: Any, bundle: Any) -> Any:
        read_permissions(self._meta.authorization, action, bundle.request)
        return getattr(super(PermissionsReadOnceMixin, self), name)(object_list, bundle)

    step.__name__ = step.__qualname__ = name
    step.__doc__ = f"Tastypie's ``{name}``, the user's permissions read by kept SQL first."
    return stock_authorized_method(step)


for _name, _action in STEPS.items():
    setattr(PermissionsReadOnceMixin, _name, _step(_name, _action))
