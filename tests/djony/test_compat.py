"""``djony.meta.compat.evaluate_compiled``: a queryset evaluated with the SQL its caller
already compiled gives what ``list(queryset)`` gives, compiling once."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db.models.sql.compiler import SQLCompiler

from djony.meta.compat import evaluate_compiled
from tests.testapp.models import Author, Book


@pytest.fixture
def books(db) -> list[Book]:
    ann = Author.objects.create(name="Ann")
    bob = Author.objects.create(name="Bob")
    return [
        Book.objects.create(title=title, author=author)
        for title, author in [("Aeon", ann), ("Dune", bob), ("Emma", ann)]
    ]


def compiled(queryset):
    compiler = queryset.query.get_compiler(queryset.db)
    return compiler, compiler.as_sql()


def counting_compiles():
    return mock.patch.object(SQLCompiler, "as_sql", autospec=True, side_effect=SQLCompiler.as_sql)


@pytest.mark.parametrize(
    "shape",
    [
        lambda qs: qs.order_by("title"),
        lambda qs: qs.filter(author__name="Ann").order_by("-pk"),
        lambda qs: qs.select_related("author").order_by("pk"),
        lambda qs: qs.only("title").order_by("pk"),
        lambda qs: qs.prefetch_related("tags").order_by("pk"),
        lambda qs: qs.order_by("pk")[1:],
    ],
    ids=["ordered", "filtered", "select_related", "only", "prefetch_related", "sliced"],
)
def test_the_objects_are_list_of_the_queryset(books, shape) -> None:
    """The same objects, of the model's class, with the same loaded fields and caches."""
    expected = list(shape(Book.objects.all()))
    queryset = shape(Book.objects.all())
    compiler, sql = compiled(queryset)
    found = evaluate_compiled(queryset, compiler, sql)
    assert found == expected
    assert [type(obj) for obj in found] == [Book] * len(expected)
    assert [obj.get_deferred_fields() for obj in found] == [
        obj.get_deferred_fields() for obj in expected
    ]
    assert [obj._state.fields_cache.keys() for obj in found] == [
        obj._state.fields_cache.keys() for obj in expected
    ]


def test_the_query_is_compiled_once(books) -> None:
    """The caller's compile is the only one: Django's iterable runs its SQL."""
    queryset = Book.objects.filter(author__name="Ann").order_by("title")
    compiler, sql = compiled(queryset)
    with counting_compiles() as as_sql:
        found = evaluate_compiled(queryset, compiler, sql)
    assert [book.title for book in found] == ["Aeon", "Emma"]
    assert as_sql.call_count == 0


def test_the_stand_ins_are_gone_after_use(books) -> None:
    """A clone of the query, and the compiler, compile as Django does afterwards."""
    queryset = Book.objects.order_by("title")
    compiler, sql = compiled(queryset)
    evaluate_compiled(queryset, compiler, sql)
    assert "get_compiler" not in queryset.query.__dict__
    assert "as_sql" not in compiler.__dict__
    clone = queryset.filter(title="Dune")
    with counting_compiles() as as_sql:
        assert [book.title for book in clone] == ["Dune"]
    assert as_sql.call_count == 1


def test_other_iterables_and_evaluated_querysets_evaluate_as_django_does(books) -> None:
    """``values()`` lists and a queryset evaluated before are Django's own evaluation."""
    values = Book.objects.order_by("title").values("title")
    compiler, sql = compiled(values)
    assert evaluate_compiled(values, compiler, sql) == [
        {"title": "Aeon"},
        {"title": "Dune"},
        {"title": "Emma"},
    ]
    evaluated = Book.objects.order_by("title")
    list(evaluated)
    compiler, sql = compiled(evaluated)
    with counting_compiles() as as_sql:
        assert [book.title for book in evaluate_compiled(evaluated, compiler, sql)] == [
            "Aeon",
            "Dune",
            "Emma",
        ]
    assert as_sql.call_count == 0  # the result cache, no query at all
