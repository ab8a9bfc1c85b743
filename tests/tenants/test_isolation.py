"""A thread-local tenant, per-user lists, per-object authorization: ModelResource's answers.

The tenant app's default managers scope every query by the current tenant, an
expression read when the query is compiled (:mod:`tests.tenants`).  Whatever
DjonyResource keeps from one request (compiled detail SQL, a detail's filtered
list, one-owner related keys, plans, URI templates) must not carry one tenant's
or one user's rows into another's answer: every request below is sent to both
twins, in an order where another user has warmed the kept state first.
"""

from __future__ import annotations

import itertools

import pytest

from tests.tenants import testing

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db", "verify")


@pytest.fixture(params=[True, False], ids=["verified", "unverified"])
def verify(request, settings):
    """With and without the setting that renders both paths (it would hide a leak as a 500)."""
    settings.DJONY_VERIFY_FAST_PATH = request.param


USERS = ("ann", "bert", "nobody", None, "amy")
#: the row-built path (note), the bundle path (hnote), per-user lists (unote),
#: per-object authorization (anote), full related (fnote), related resources.
RESOURCES = ("note", "hnote", "unote", "anote", "fnote", "tag", "comment")


def paths(resource: str) -> list[str]:
    return [
        *(f"{resource}/{pk}/" for pk in (1, 2, 3, 4)),
        f"{resource}/",
        f"{resource}/set/1;2;3;4/",
        f"{resource}/?title=acme%20plan" if "note" in resource else f"{resource}/?limit=2",
    ]


def check(user, path) -> None:
    reference, target = testing.twins(user, path)
    assert target == reference, (user, path)


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize("order", ["users-outer", "paths-outer"])
def test_interleaved_users_get_their_own_tenants_answers(resource, order):
    pairs = list(itertools.product(USERS, paths(resource)))
    if order == "paths-outer":
        pairs = [(user, path) for path, user in itertools.product(paths(resource), USERS)]
    for user, path in pairs:
        check(user, path)


def test_a_tenants_secret_is_not_shown_to_another_tenant_after_it_was_read():
    for resource in ("note", "hnote", "fnote"):
        for user in ("ann", "bert", "ann", "bert"):
            reference, target = testing.twins(user, f"{resource}/1/")
            assert target == reference
            assert (target[0] == 200) == (user == "ann"), (resource, user, target)


def test_related_lists_through_a_tenant_manager_follow_the_current_tenant():
    for user in ("ann", "bert", "nobody", "ann", "amy", "bert"):
        for pk in (1, 2):
            check(user, f"tenant/{pk}/")
        check(user, "tenant/")
        check(user, "tenant/set/1;2/")


THREADS = 6
ROUNDS = 4


def test_threads_of_different_tenants_at_once_get_their_own_answers():
    """Threads calling the test client at once, each as another user, in another order."""
    import random
    import threading

    from django.db import connection

    requests = [
        (user, path)
        for user in ("ann", "bert", "amy", "nobody")
        for resource in ("note", "hnote", "anote", "unote", "tenant")
        for path in (f"{resource}/1/", f"{resource}/2/", f"{resource}/")
    ]
    expected = {request: testing.answer(testing.REFERENCE, *request) for request in requests}
    failures: list = []
    barrier = threading.Barrier(THREADS)

    def work(seed: int) -> None:
        mine = list(requests) * ROUNDS
        random.Random(seed).shuffle(mine)
        try:
            barrier.wait(timeout=30)
            for request in mine:
                got = testing.answer(testing.TARGET, *request)
                if got != expected[request]:
                    failures.append((request, got[0], expected[request][0]))
        except BaseException as exc:  # noqa: BLE001 (reported below)
            failures.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []
