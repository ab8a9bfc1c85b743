"""``DjangoAuthorization``'s permission checks read the user's permissions by kept SQL
(``tastypie_djony.permissions``): the same statements ModelResource's requests run, in
the same order, the same answers, and Django's backend builds no query for them.

``secure/apikey`` is ApiKey + DjangoAuthorization, ``secure/session-django`` Session +
DjangoAuthorization, ``secure/multi`` Basic or ApiKey + DjangoAuthorization.  apiuser,
basicuser and sessionuser hold the book permissions themselves; noperm holds none.
"""

import pytest
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.db import connection, transaction
from django.http import HttpRequest
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils.functional import SimpleLazyObject
from tastypie.authorization import DjangoAuthorization
from tastypie.exceptions import ImmediateHttpResponse
from tastypie.resources import Resource

from tastypie_djony import permissions
from tastypie_djony.resources import DjonyResource
from tests.differential.harness import REFERENCE, TARGETS, Case
from tests.differential.test_auth import apikey, basic
from tests.testapp.models import Book

pytestmark = pytest.mark.django_db

CASES = [
    Case("secure/apikey/", headers=apikey("apiuser")),
    Case("secure/apikey/<b2>/", headers=apikey("apiuser")),
    Case("secure/apikey/set/<b1>;<b2>/", headers=apikey("apiuser")),
    Case("secure/apikey/schema/", headers=apikey("apiuser")),
    Case("secure/apikey/", headers=apikey("noperm")),
    Case("secure/apikey/<b2>/", headers=apikey("noperm")),
    Case("secure/multi/<b2>/", headers=basic("basicuser")),
    Case("secure/session-django/", client="session"),
    Case("secure/session-django/<b1>/", client="session"),
    Case("secure/session-django/?title__startswith=Dune", client="session"),
]


def permission_statements(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries.captured_queries if "auth_permission" in query["sql"]]


class Asked:
    """Counts the queries Django's ``ModelBackend`` builds for a user's permissions."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built = 0
        for source in ("user", "group"):
            name = f"_get_{source}_permissions"
            method = getattr(ModelBackend, name)
            monkeypatch.setattr(ModelBackend, name, self._counting(method))

    def _counting(self, method):
        def counted(backend, user):
            self.built += 1
            return method(backend, user)

        return counted


def answers_and_statements(differential, case: Case, api: str, asked: Asked) -> tuple:
    """The permission statements of ``case``'s request to ``api`` and how many queries
    Django built for them (the reference's answer asked anew, the data may have changed;
    another API's checked against it)."""
    asked.built = 0
    if api == REFERENCE:
        differential.forget(case)
        with CaptureQueriesContext(connection) as queries:
            differential.answer(case, api)
    else:  # compared with the reference's answer just asked
        with CaptureQueriesContext(connection) as queries:
            differential.check(case, api)
    return permission_statements(queries), asked.built


@pytest.mark.parametrize("case", CASES, ids=str)
def test_the_permission_queries_are_modelresource_s_and_django_builds_none(
    differential, case, monkeypatch
):
    asked = Asked(monkeypatch)
    expected, built = answers_and_statements(differential, case, REFERENCE, asked)
    assert built == 2 and len(expected) == 2  # the user's own, then its groups'
    for api in TARGETS:
        differential.get(case, api)  # the first request of a user model compiles the SQL
        got, built = answers_and_statements(differential, case, api, asked)
        assert got == expected
        assert built == 0


def test_permissions_through_a_group(differential, monkeypatch):
    """noperm, in a group holding the book permissions, reads the books as ModelResource
    lets it (401 and an empty page without the group)."""
    asked = Asked(monkeypatch)
    with transaction.atomic():
        group = Group.objects.create(name="book keepers")
        group.permissions.set(Permission.objects.filter(content_type__model="book"))
        User.objects.get(username="noperm").groups.add(group)
        for case in CASES[4:6]:
            expected, _ = answers_and_statements(differential, case, REFERENCE, asked)
            assert differential.answer(case, REFERENCE).status == 200
            assert len(expected) == 2
            for api in TARGETS:
                assert answers_and_statements(differential, case, api, asked) == (expected, 0)
        transaction.set_rollback(True)
    for case in CASES[4:6]:
        differential.forget(case)


@pytest.mark.parametrize(
    "settings_change",
    [
        {"AUTHENTICATION_BACKENDS": [
            "django.contrib.auth.backends.ModelBackend",
            "django.contrib.auth.backends.AllowAllUsersModelBackend",
        ]},
        {"AUTHENTICATION_BACKENDS": ["tests.differential.test_permissions_once.OwnBackend"]},
    ],
    ids=["two backends", "a backend of its own"],
)  # fmt: skip
def test_other_backends_are_asked_as_django_asks_them(differential, monkeypatch, settings_change):
    asked = Asked(monkeypatch)
    case = Case("secure/apikey/<b2>/", headers=apikey("apiuser"))
    with override_settings(**settings_change):
        expected, built = answers_and_statements(differential, case, REFERENCE, asked)
        assert built == 2
        for api in TARGETS:
            assert answers_and_statements(differential, case, api, asked) == (expected, 2)


class OwnBackend(ModelBackend):
    """A project's backend (its permissions may come from anywhere)."""


def test_a_superuser_reads_no_permissions(differential, monkeypatch):
    asked = Asked(monkeypatch)
    case = Case("secure/apikey/", headers=apikey("noperm"))
    with transaction.atomic():
        User.objects.filter(username="noperm").update(is_superuser=True)
        expected, built = answers_and_statements(differential, case, REFERENCE, asked)
        assert (expected, built) == ([], 0)
        assert differential.answer(case, REFERENCE).status == 200
        for api in TARGETS:
            assert answers_and_statements(differential, case, api, asked) == ([], 0)
        transaction.set_rollback(True)
    differential.forget(case)


class BookResource(DjonyResource):
    class Meta:
        queryset = Book.objects.all()
        resource_name = "permissions-once-book"
        authorization = DjangoAuthorization()


class OwnCheck(DjangoAuthorization):
    def check_user_perm(self, user, permission, obj_or_list):
        return user.username == "noperm"


class OwnCheckBookResource(DjonyResource):
    class Meta:
        queryset = Book.objects.all()
        resource_name = "permissions-once-own-check"
        authorization = OwnCheck()


@pytest.mark.parametrize("step", sorted(permissions.STEPS))
def test_every_step_reads_the_sets_django_reads(differential, step):
    """Each ``authorized_*`` step: the user's sets are Django's own, and the step answers
    as on a user object whose permissions Django read itself."""
    resource = BookResource()
    with transaction.atomic():
        user = User.objects.get(username="basicuser")
        group = Group.objects.create(name="some")
        group.permissions.set(Permission.objects.order_by("pk")[:7])
        user.groups.add(group)
        user = User.objects.get(pk=user.pk)
        request = HttpRequest()
        request.user = user
        bundle = resource.build_bundle(obj=Book.objects.first(), request=request)
        with CaptureQueriesContext(connection) as queries:
            result = getattr(resource, step)(Book.objects.all(), bundle)
        fresh = User.objects.get(pk=user.pk)
        assert user._user_perm_cache == ModelBackend().get_user_permissions(fresh)
        assert user._group_perm_cache == ModelBackend().get_group_permissions(fresh)
        assert len(permission_statements(queries)) == 2
        expected = getattr(Resource, step)  # Tastypie's own step: Django reads the sets
        request.user = User.objects.get(pk=user.pk)
        assert _outcome(lambda: expected(resource, Book.objects.all(), bundle)) == _outcome(
            lambda: result
        )
        transaction.set_rollback(True)


def _outcome(call):
    try:
        result = call()
    except ImmediateHttpResponse as refused:
        return refused.response.status_code
    return list(result) if hasattr(result, "model") else result


def test_an_authorization_of_its_own_is_asked_as_it_is(differential):
    resource = OwnCheckBookResource()
    request = HttpRequest()
    request.user = User.objects.get(username="noperm")
    bundle = resource.build_bundle(obj=Book.objects.first(), request=request)
    with CaptureQueriesContext(connection) as queries:
        assert resource.authorized_read_detail(Book.objects.all(), bundle) is True
    assert permission_statements(queries) == []
    assert not hasattr(request.user, "_user_perm_cache")


def test_a_lazy_user_is_read_first_as_has_perm_reads_it(differential):
    """``AuthenticationMiddleware``'s ``request.user`` not read yet (no authentication class
    asked): the permissions are left on the user it wraps, as ``has_perm`` leaves them."""
    resource = BookResource()
    request = HttpRequest()
    request.user = SimpleLazyObject(lambda: User.objects.get(username="basicuser"))
    bundle = resource.build_bundle(obj=Book.objects.first(), request=request)
    with CaptureQueriesContext(connection) as queries:
        assert resource.authorized_read_detail(Book.objects.all(), bundle) is True
    assert len(permission_statements(queries)) == 2
    assert "testapp.change_book" in request.user._wrapped._user_perm_cache
