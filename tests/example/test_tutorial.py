"""Tastypie's tutorial resources in the example (``/api/v2/`` and ``/api/v3/``): the same
answers on both bases, with and without a permitted API key; a detail's stock
``DjangoAuthorization`` is answered without building the object, an override of
``check_user_perm`` still gets it; the benchmark's floor and DRF twins answer the same."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission, User
from tastypie.authorization import DjangoAuthorization
from tastypie.models import ApiKey

from benchmarks import harness, tutorial
from example_project.showcase import seeding
from tastypie_djony.serve import bundles

pytestmark = [pytest.mark.django_db, pytest.mark.urls("example_project.urls")]


@pytest.fixture
def seeded():
    seeding.seed(users=12, progress=None)
    seeding.seed_entries(entries=60, authors=10)
    return tutorial.headers()


def answers(client, path: str, headers: dict) -> tuple:
    v2 = client.get(f"/api/v2/{path}", **headers)
    v3 = client.get(f"/api/v3/{path}", **headers)
    return v2, v3


def same(v2, v3) -> None:
    assert v3.status_code == v2.status_code
    assert v3["Content-Type"] == v2["Content-Type"]
    assert v3.content.replace(b"/api/v3/", b"/api/v2/") == v2.content


@pytest.mark.parametrize("case", tutorial.CASES, ids=lambda case: case.name)
def test_every_case_answers_as_modelresource(client, seeded, case):
    v2, v3 = answers(client, case.path, seeded)
    assert v2.status_code == 200, v2.content[:300]
    same(v2, v3)


def test_the_tutorial_entry_carries_its_user_and_its_hook(client, seeded):
    _, v3 = answers(client, "entry/7/?format=json", seeded)
    entry = json.loads(v3.content)
    assert entry["user"]["resource_uri"] == "/api/v3/user/7/"
    assert "email" not in entry["user"] and entry["headline"] == entry["title"].upper()
    assert entry["slug"]  # filled by Entry.save() from the title


@pytest.fixture
def clerk(seeded):
    """An active user with an API key and no permission at all."""
    user = User.objects.get(pk=5)
    user.is_active, user.is_superuser = True, False
    user.save()
    key = ApiKey.objects.get_or_create(user=user)[0].key
    return user, {"HTTP_AUTHORIZATION": f"ApiKey {user.username}:{key}"}


@pytest.mark.parametrize("path", ["entry/7/?format=json", "author/3/?format=json"])
def test_a_user_without_the_permission_is_refused_alike(client, clerk, path):
    v2, v3 = answers(client, path, clerk[1])
    assert v2.status_code == 401
    same(v2, v3)


def test_a_user_given_the_permission_reads_alike(client, clerk):
    user, headers = clerk
    user.user_permissions.add(Permission.objects.get(codename="change_entry"))
    v2, v3 = answers(client, "entry/7/?format=json", headers)
    assert v2.status_code == 200
    same(v2, v3)


def test_without_a_key_both_answer_401(client, seeded):
    v2, v3 = answers(client, "entry/7/?format=json", {})
    assert v2.status_code == 401
    same(v2, v3)


@pytest.fixture
def reads_of_obj(monkeypatch):
    """Count the reads of ``bundle.obj`` on the bundle path."""
    reads = []
    stock = bundles.PageBundle.obj

    def counted(bundle):
        reads.append(bundle)
        return stock.fget(bundle)

    monkeypatch.setattr(bundles.PageBundle, "obj", property(counted, stock.fset))
    return reads


def test_stock_django_authorization_builds_no_object(client, seeded, reads_of_obj):
    v2, v3 = answers(client, "author/3/?format=json", seeded)
    same(v2, v3)
    assert reads_of_obj == []


def test_an_overridden_check_user_perm_gets_the_object(client, seeded, reads_of_obj, monkeypatch):
    from example_project.showcase import api_v2, api_v3

    seen = []

    def check_user_perm(self, user, permission, obj):
        seen.append(type(obj).__name__)
        return obj.pk != 3 and user.has_perm(permission)

    for api in (api_v2.api, api_v3.api):
        authorization = api._registry["author"]._meta.authorization
        assert type(authorization) is DjangoAuthorization
        # An override on the instance (a subclass's is found as well)
        monkeypatch.setattr(
            authorization, "check_user_perm", check_user_perm.__get__(authorization)
        )
    v2, v3 = answers(client, "author/3/?format=json", seeded)
    assert v2.status_code == 401 and seen == ["User", "User"]
    same(v2, v3)


@pytest.mark.urls("benchmarks.urls")
def test_the_benchmark_flavours_answer_the_same_before_timing(client, seeded):
    """``benchmarks.tutorial`` times nothing unless these hold (no timing here)."""
    for case in tutorial.CASES:
        assert tutorial.check(client, case, tutorial.FLAVOURS, seeded) > 0


@pytest.mark.urls("benchmarks.urls")
def test_the_benchmark_s_editor_reads_through_its_group_permissions(client, seeded):
    """``--as editor``: a user who is not a superuser, holding the permissions through a
    group; every flavour (the floor reading the permission itself) answers alike."""
    editor = tutorial.headers("editor")
    username = editor["HTTP_AUTHORIZATION"].split()[1].split(":")[0]
    user = User.objects.get(username=username)
    assert not user.is_superuser and not user.user_permissions.filter(codename="change_entry")
    for case in tutorial.CASES:
        if case.name not in tutorial.DEMO_ONLY:
            assert tutorial.check(client, case, tutorial.FLAVOURS, editor) > 0
    user.groups.clear()  # then DjangoAuthorization refuses it, and so does the floor
    assert client.get("/api/v2/entry/7/", **editor).status_code == 401
    with pytest.raises(ValueError, match="holding the permission"):
        client.get("/raw/tutorial/entry/7/", **editor)


@pytest.mark.urls("benchmarks.urls")
def test_the_benchmark_check_catches_a_different_body(client, seeded, monkeypatch):
    real = tutorial.get

    def tampered(client, flavour, case, extra):
        response = real(client, flavour, case, extra)
        if flavour == "v3":
            response.content = response.content.replace(b'"id": 7', b'"id": 8')
        return response

    monkeypatch.setattr(tutorial, "get", tampered)
    with pytest.raises(tutorial.NotIdentical, match="v3 entry-detail: body differs"):
        tutorial.check(client, tutorial.CASES_BY_NAME["entry-detail"], ("v2", "v3"), seeded)


@pytest.mark.parametrize("order", harness.ORDERS)
def test_the_benchmark_times_every_request_each_round_in_its_order(order):
    """``turns``: each flavour's cases back to back (the same order for every flavour of a
    round); ``mixed``: any order.  Every (case, flavour) once a round, after a warm-up."""
    sent = []

    class Answer:
        status_code = 200

    def get(client, flavour, case, extra):
        sent.append((flavour, case.name))
        return Answer()

    cases = [harness.Case(name, f"{name}/", name) for name in ("a", "b", "c")]
    flavours = ("v2", "v3", "raw")
    collected_at = []  # how many requests were sent at each garbage collection
    samples = harness.measure(
        None, cases, flavours, 4, {}, get=get, order=order,
        collect=lambda: collected_at.append(len(sent)),
    )  # fmt: skip
    assert {key: len(times) for key, times in samples.items()} == {
        (c.name, f): 4 for c in cases for f in flavours
    }
    every = 3 if order == "turns" else 9  # before each turn, or each round
    assert collected_at == list(range(9, 9 + 4 * 9, every))
    rounds = [sent[9 + 9 * n : 18 + 9 * n] for n in range(4)]  # (the first 9: the warm-up)
    for sent_in_round in rounds:
        assert sorted(sent_in_round) == sorted((f, c.name) for c in cases for f in flavours)
        if order == "turns":
            turns = [sent_in_round[i : i + 3] for i in (0, 3, 6)]
            assert all(len({f for f, _ in turn}) == 1 for turn in turns)
            assert len({tuple(name for _, name in turn) for turn in turns}) == 1


@pytest.mark.parametrize(
    "credentials", ["nobody:abc", "{username}:wrong", "{username}", "{username}:{key}"]
)
def test_api_key_answers_alike_and_runs_tastypies_query(client, clerk, credentials):
    """The kept user lookup (tastypie_djony.apikey): the same answer and the same SQL."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    user, headers = clerk
    key = headers["HTTP_AUTHORIZATION"].rsplit(":", 1)[1]
    header = {"HTTP_AUTHORIZATION": "ApiKey " + credentials.format(username=user.username, key=key)}
    path = "myentry/?format=json"
    with CaptureQueriesContext(connection) as v2_queries:
        v2 = client.get(f"/api/v2/{path}", **header)
    with CaptureQueriesContext(connection) as v3_queries:
        v3 = client.get(f"/api/v3/{path}", **header)
    same(v2, v3)
    if v2_queries.captured_queries:
        assert v3_queries.captured_queries[0]["sql"] == v2_queries.captured_queries[0]["sql"]


def test_an_inactive_user_is_refused_alike(client, clerk):
    user, headers = clerk
    User.objects.filter(pk=user.pk).update(is_active=False)
    v2, v3 = answers(client, "myentry/?format=json", headers)
    assert v2.status_code == 401
    same(v2, v3)


def _key_headers(user: User) -> dict:
    key = ApiKey.objects.get_or_create(user=user)[0].key
    return {"HTTP_AUTHORIZATION": f"ApiKey {user.username}:{key}"}


def test_per_user_lists_answer_each_user_in_turn_as_modelresource(seeded):
    """``myentry`` filters ``get_object_list`` by ``request.user``: its filters and SQL are
    kept per recipe after the first request (djony.objects.shapes), so users taking turns,
    their own and others' details, values the lookup refuses and pages are each compared."""
    from django.test import Client

    from example_project.showcase.models import Entry

    client = Client(raise_request_exception=False)  # Tastypie's 404 for a mismatched type
    users = list(User.objects.filter(entry__isnull=False).distinct().order_by("pk")[:3])
    assert len(users) == 3
    others = {
        user.pk: Entry.objects.exclude(user=user).values_list("pk", flat=True)[0] for user in users
    }
    for _ in range(2):
        for user in users:
            own = Entry.objects.filter(user=user).values_list("pk", flat=True)[0]
            for path in (
                "myentry/",
                f"myentry/{own}/",
                f"myentry/{others[user.pk]}/",  # another user's: 404
                "myentry/abc/",
                f"myentry/{2**70}/",
                "myentry/?limit=2&offset=1",
                f"myentry/?id={own}",
            ):
                v2, v3 = answers(
                    client, path + ("&" if "?" in path else "?") + "format=json", _key_headers(user)
                )
                same(v2, v3)
