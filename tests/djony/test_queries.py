"""Pony's queries show up where Django's do.

``assertNumQueries``, ``CaptureQueriesContext``, ``connection.execute_wrapper``
and ``connection.queries`` under ``DEBUG`` see every statement Pony runs,
with its parameters.
"""

from __future__ import annotations

from contextlib import nullcontext

from django.db import connection, reset_queries
from django.test import TestCase, override_settings
from django.test.utils import CaptureQueriesContext
from pony.orm import db_session, select

import djony
from tests.testapp.models import Author, Book, Tag


class QueryLoggingTests(TestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        djony.db()  # building the mapping may query the server (MySQL); not counted below
        cls.ann = Author.objects.create(name="Ann")
        Book.objects.create(title="One", author=cls.ann)
        Book.objects.create(title="Two", author=cls.ann)
        Tag.objects.create(name="100% pure_thing")
        Tag.objects.create(name="100 pure")

    def test_assert_num_queries_counts_a_read(self) -> None:
        with self.assertNumQueries(1):
            with db_session:
                self.assertEqual(sorted(select(b.title for b in Book.p)), ["One", "Two"])

    def test_assert_num_queries_counts_a_relation_load(self) -> None:
        with self.assertNumQueries(2):
            with db_session:
                author = Author.p[self.ann.pk]
                self.assertEqual(len(author.books), 2)

    def test_assert_num_queries_counts_a_write(self) -> None:
        # Inside TestCase's atomic block Pony writes in a savepoint of its own.
        with self.assertNumQueries(3):
            with db_session:
                Tag.p(name="new")

    def test_capture_queries_context_shows_sql_with_parameters(self) -> None:
        with CaptureQueriesContext(connection) as context:
            with db_session:
                Book.p.select(lambda b: b.title == "Two")[:]
        (query,) = context.captured_queries
        self.assertIn(Book._meta.db_table, query["sql"])
        self.assertIn("Two", query["sql"])

    def test_percent_and_underscore_in_values(self) -> None:
        """Literal "%" survives Django's cursor (which formats "%s" placeholders), logged or not."""
        for context in (nullcontext(), CaptureQueriesContext(connection)):
            with context:
                with db_session:
                    self.assertEqual(
                        select(t.name for t in Tag.p if t.name.startswith("100%"))[:],
                        ["100% pure_thing"],
                    )
                    self.assertEqual(
                        select(t.name for t in Tag.p if "_" in t.name)[:], ["100% pure_thing"]
                    )
                    self.assertEqual(
                        select(t.name for t in Tag.p if t.name == "100% pure_thing").count(), 1
                    )

    def test_execute_wrapper_sees_pony_queries(self) -> None:
        seen: list[tuple[str, object]] = []

        def wrapper(execute, sql, params, many, context):
            seen.append((sql, params))
            return execute(sql, params, many, context)

        title = "One"  # a variable: Pony sends it as a parameter
        with connection.execute_wrapper(wrapper):
            with db_session:
                self.assertEqual(Book.p.select(lambda b: b.title == title).count(), 1)
                Tag.p(name="wrapped")
        (count_sql, count_params), *writes = seen
        self.assertIn(Book._meta.db_table, count_sql)
        self.assertIn("COUNT", count_sql.upper())
        self.assertEqual(
            list(count_params.values() if isinstance(count_params, dict) else count_params), ["One"]
        )
        inserts = [(sql, params) for sql, params in writes if sql.startswith("INSERT")]
        self.assertEqual(len(inserts), 1)
        self.assertIn(
            "wrapped",
            list(inserts[0][1].values() if isinstance(inserts[0][1], dict) else inserts[0][1]),
        )

    @override_settings(DEBUG=True)
    def test_connection_queries_under_debug(self) -> None:
        reset_queries()
        with db_session:
            Author.p.select(lambda a: a.name == "Ann").first()
        self.assertEqual(len(connection.queries), 1)
        self.assertIn(Author._meta.db_table, connection.queries[0]["sql"])
        self.assertIn("Ann", connection.queries[0]["sql"])

    def test_no_logging_without_debug(self) -> None:
        reset_queries()
        with db_session:
            Author.p.select().count()
        self.assertEqual(connection.queries, [])
