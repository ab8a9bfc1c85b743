"""Pony runs in Django's transactions: same connection, same atomic blocks.

Django's writes are visible to Pony and Pony's to Django before commit; one
rollback undoes both; Pony never ends a transaction Django owns; outside
any atomic block a writing ``db_session`` commits at its end; atomic blocks
opened inside a ``db_session`` keep their meaning.
"""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import connection, connections, transaction
from django.http import HttpRequest, HttpResponse
from django.test import Client, TestCase, override_settings
from django.urls import path
from pony.orm import commit, db_session, flush
from pony.orm.core import CommitException, TransactionIntegrityError

from tests.testapp.models import AllTypes, Country, Tag
from tests.testapp.testing import AutocommitTestCase, assert_not_committed, committed_names


class Boom(Exception):
    pass


def pony_names() -> set[str]:
    with db_session:
        return {tag.name for tag in Tag.p.select()}


def django_names() -> set[str]:
    return set(Tag.objects.values_list("name", flat=True))


def assert_autocommit_restored() -> None:
    assert not connection.in_atomic_block
    assert connection.get_autocommit()
    assert connection.savepoint_ids == []


class TestInsideAtomic(AutocommitTestCase):
    def test_each_sees_the_other_before_commit_and_one_rollback_undoes_both(self) -> None:
        with pytest.raises(Boom):
            with transaction.atomic():
                Tag.objects.create(name="django")
                assert pony_names() == {"django"}
                with db_session:
                    Tag.p(name="pony")
                assert django_names() == {"django", "pony"}
                assert_not_committed("pony")
                raise Boom
        assert django_names() == set()
        assert pony_names() == set()
        assert_autocommit_restored()

    def test_commit_keeps_both(self) -> None:
        with transaction.atomic():
            Tag.objects.create(name="django")
            with db_session:
                Tag.p(name="pony")
            assert_not_committed("pony")
        assert committed_names() == {"django", "pony"}
        assert_autocommit_restored()

    def test_failed_session_inside_atomic_undoes_only_pony(self) -> None:
        with transaction.atomic():
            Tag.objects.create(name="django")
            with pytest.raises(Boom):
                with db_session:
                    Tag.p(name="pony")
                    flush()
                    raise Boom
            assert django_names() == {"django"}
        assert committed_names() == {"django"}

    def test_pony_integrity_error_leaves_djangos_transaction_usable(self) -> None:
        with transaction.atomic():
            AllTypes.objects.create(code="dup")
            with pytest.raises(TransactionIntegrityError):
                with db_session:
                    AllTypes.p(code="dup")
            assert not connection.needs_rollback
            Tag.objects.create(name="after")
        assert committed_names() == {"after"}
        assert AllTypes.objects.count() == 1


class TestOutsideAtomic(AutocommitTestCase):
    def test_writing_session_commits_at_its_end(self) -> None:
        with db_session:
            Tag.p(name="pony")
            flush()
            assert connection.in_atomic_block  # Pony's own transaction, not autocommit
            assert_not_committed("pony")
        assert committed_names() == {"pony"}
        assert_autocommit_restored()

    def test_failed_session_writes_nothing(self) -> None:
        with pytest.raises(Boom):
            with db_session:
                Tag.p(name="one")
                flush()
                Tag.objects.create(name="django joins Pony's transaction")
                raise Boom
        assert committed_names() == set()
        assert_autocommit_restored()

    def test_read_only_session_opens_no_transaction(self) -> None:
        Tag.objects.create(name="x")
        with db_session:
            assert Tag.p.select().count() == 1
            assert not connection.in_atomic_block
        assert_autocommit_restored()

    def test_explicit_commit_then_more_writes(self) -> None:
        with pytest.raises(Boom):
            with db_session:
                Tag.p(name="first")
                commit()
                assert not connection.in_atomic_block
                assert committed_names() == {"first"}
                Tag.p(name="second")
                flush()
                raise Boom
        assert committed_names() == {"first"}
        assert_autocommit_restored()


class TestAtomicInsideSession(AutocommitTestCase):
    """``transaction.atomic()`` blocks opened inside a ``db_session``."""

    def test_pony_writes_flushed_in_a_block_share_its_commit(self) -> None:
        with pytest.raises(Boom):
            with db_session:
                with transaction.atomic():
                    Tag.p(name="in block")
                    flush()
                    Tag.objects.create(name="django in block")
                assert not connection.in_atomic_block
                assert committed_names() == {"in block", "django in block"}
                raise Boom
        assert committed_names() == {"in block", "django in block"}
        assert_autocommit_restored()

    def test_pony_writes_flushed_in_a_block_share_its_rollback(self) -> None:
        with db_session:
            with pytest.raises(Boom):
                with transaction.atomic():
                    Tag.objects.create(name="django")
                    Tag.p(name="pony in block")
                    flush()
                    raise Boom
            Tag.p(name="after")
        assert committed_names() == {"after"}
        assert_autocommit_restored()

    def test_writes_after_a_block_still_form_one_transaction(self) -> None:
        with pytest.raises(Boom):
            with db_session:
                for name in ("a", "b"):
                    with transaction.atomic():
                        Tag.p(name=name)
                        flush()
                Tag.p(name="outside any block")
                flush()
                assert connection.in_atomic_block
                raise Boom
        assert committed_names() == {"a", "b"}
        assert_autocommit_restored()

    def test_block_inside_pony_transaction_nests(self) -> None:
        with db_session:
            Tag.p(name="pony")
            flush()
            with pytest.raises(Boom):
                with transaction.atomic():
                    Tag.objects.create(name="django")
                    raise Boom
            assert django_names() == {"pony"}
        assert committed_names() == {"pony"}
        assert_autocommit_restored()

    def test_commit_inside_a_newer_block_is_refused(self) -> None:
        with pytest.raises(CommitException, match="began after this db_session's first write"):
            with db_session:
                Tag.p(name="pony")
                flush()
                with transaction.atomic():
                    Tag.objects.create(name="django")
                    commit()
        # Pony gave the session up; its transaction is rolled back on its next statement.
        assert connection.in_atomic_block
        assert pony_names() == set()
        assert committed_names() == set()
        assert_autocommit_restored()


class TestFixturesAndTestData(TestCase):
    """Inside Django's TestCase (also on the in-memory SQLite test database)."""

    fixtures = ["djony_countries"]

    @classmethod
    def setUpTestData(cls) -> None:
        cls.tag = Tag.objects.create(name="from setUpTestData")

    def test_pony_sees_fixtures_and_test_data(self) -> None:
        with db_session:
            self.assertEqual({c.code for c in Country.p.select()}, {"FR", "IT"})
            self.assertEqual(Country.p[101].name, "France")
            self.assertEqual(Tag.p[self.tag.pk].name, "from setUpTestData")

    def test_pony_writes_are_rolled_back_with_the_test(self) -> None:
        with db_session:
            Tag.p(name="written by a test")
        self.assertEqual(django_names(), {"from setUpTestData", "written by a test"})

    def test_previous_test_left_nothing(self) -> None:
        self.assertEqual(pony_names(), {"from setUpTestData"})


def pony_view(request: HttpRequest) -> HttpResponse:
    with db_session:
        Tag.p(name=request.GET["name"])
    if "fail" in request.GET:
        raise Boom("view failed after writing")
    return HttpResponse("ok")


urlpatterns = [path("pony/", pony_view)]


@override_settings(ROOT_URLCONF=__name__, MIDDLEWARE=[])
class TestAtomicRequests(AutocommitTestCase):
    def test_a_failing_view_keeps_nothing(self) -> None:
        settings_dict = connections.settings["default"]
        with mock.patch.dict(settings_dict, {"ATOMIC_REQUESTS": True}):
            client = Client(raise_request_exception=False)
            assert client.get("/pony/", {"name": "kept"}).status_code == 200
            assert client.get("/pony/", {"name": "lost", "fail": "1"}).status_code == 500
        assert committed_names() == {"kept"}
        assert_autocommit_restored()
