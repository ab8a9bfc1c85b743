"""``djony.meta.compat``: a queryset evaluated with the SQL its caller already compiled
(``evaluate_compiled``), or built from that SQL's rows (``objects_from_rows``), gives what
``list(queryset)`` gives, compiling once."""

from __future__ import annotations

import copy
from unittest import mock

import pytest
from django.db import connections, models
from django.db.models import QuerySet
from django.db.models.signals import post_init
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext

from djony.meta.compat import builds_from_rows, evaluate_compiled, objects_from_rows
from djony.objects.compiled import OneValueQuery
from tests.testapp.models import Author, Book, BookDetail, Country


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


def converted_rows(queryset, compiler, sql) -> list:
    """The rows of ``sql``, converted as Django's iterable converts them."""
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(*sql)
        rows = cursor.fetchall()
    expressions = [column[0] for column in compiler.select[: compiler.col_count]]
    converters = compiler.get_converters(expressions)
    return list(compiler.apply_converters(rows, converters)) if converters else rows


def described(obj, depth: int = 2):
    """What a caller can see of ``obj``: class, database, columns, deferred fields, and
    the related objects cached on it (described the same way)."""
    if obj is None:
        return None
    columns = {name: value for name, value in vars(obj).items() if name != "_state"}
    cached = {}
    if depth:
        cached = {
            name: described(related, depth - 1) for name, related in obj._state.fields_cache.items()
        }
    return (
        type(obj),
        obj._state.db,
        obj._state.adding,
        columns,
        obj.get_deferred_fields(),
        cached,
    )


@pytest.fixture
def library(books) -> list[Book]:
    france = Country.objects.create(code="FR", name="France")
    Author.objects.filter(name="Ann").update(country=france)
    BookDetail.objects.create(book=books[0], summary="long")
    return books


@pytest.mark.parametrize(
    "shape",
    [
        lambda: Book.objects.order_by("pk"),
        lambda: Book.objects.select_related("author__country").order_by("pk"),
        lambda: Book.objects.select_related("detail", "editor").order_by("pk"),
        lambda: Book.objects.annotate(twice=models.F("pages") * 2).order_by("pk"),
        lambda: Book.objects.only("title").order_by("pk"),
        lambda: Author.objects.get(name="Ann").books.order_by("pk"),
        lambda: Author.objects.get(name="Ann").books.select_related("author").order_by("pk"),
        lambda: Book.objects.order_by("pk")[1:],
    ],
    ids=[
        "plain",
        "select_related",
        "reverse_one_to_one",
        "annotated",
        "only",
        "related_manager",
        "related_manager_select_related",
        "sliced",
    ],
)
def test_objects_from_rows_are_what_django_builds(library, shape) -> None:
    """The same instances: columns, state, deferred fields, ``select_related``'s and the
    known related objects, annotations, each instance's ``post_init`` signal."""
    initialised = []

    def record(sender, instance, **kwargs):
        initialised.append((sender, type(instance)))

    post_init.connect(record)
    try:
        django_queryset = shape()
        expected = list(django_queryset)
        from_django = list(initialised)
        initialised.clear()
        queryset = shape()
        compiler, sql = compiled(queryset)
        assert builds_from_rows(queryset, compiler)
        found = objects_from_rows(queryset, compiler, converted_rows(queryset, compiler, sql))
    finally:
        post_init.disconnect(record)
    assert [described(obj) for obj in found] == [described(obj) for obj in expected]
    assert initialised == from_django
    # A related manager's owner is its instance itself, unless select_related read another.
    assert known_owners(queryset, found) == known_owners(django_queryset, expected)


def known_owners(queryset, objects) -> list[bool]:
    return [
        any(getattr(obj, field.name) is owner for owner in known.values())
        for obj in objects
        for field, known in queryset._known_related_objects.items()
    ]


@pytest.mark.parametrize(
    "shape",
    [
        lambda: Book.objects.prefetch_related("tags").order_by("pk"),
        lambda: Book.objects.order_by("title").values("title"),
        lambda: Book.objects.distinct().order_by("author__name"),
        lambda: Author.objects.get(name="Ann").books.only("title").order_by("pk"),
    ],
    ids=["prefetch_related", "values", "extra_select", "owner_column_deferred"],
)
def test_what_objects_from_rows_would_not_build_is_left_to_django(library, shape) -> None:
    """``prefetch_related``, other iterables, columns Django's iterable drops, and a known
    related object whose key column is deferred are Django's own evaluation."""
    queryset = shape()
    compiler, _sql = compiled(queryset)
    assert not builds_from_rows(queryset, compiler)


def test_an_evaluated_queryset_or_another_database_is_left_to_django(library) -> None:
    queryset = Book.objects.order_by("pk")
    compiler, _sql = compiled(queryset)
    assert builds_from_rows(queryset, compiler)
    assert not builds_from_rows(queryset.using("replica"), compiler)
    list(queryset)
    assert not builds_from_rows(queryset, compiler)


@pytest.mark.skipif(not hasattr(models, "FETCH_PEERS"), reason="fetch modes are Django 6.1's")
def test_objects_from_rows_are_peers_in_fetch_peers_mode(library) -> None:
    queryset = Book.objects.select_related("author").fetch_mode(models.FETCH_PEERS).order_by("pk")
    expected = list(
        Book.objects.select_related("author").fetch_mode(models.FETCH_PEERS).order_by("pk")
    )
    compiler, sql = compiled(queryset)
    found = objects_from_rows(queryset, compiler, converted_rows(queryset, compiler, sql))
    assert [described(obj) for obj in found] == [described(obj) for obj in expected]
    peers = found[0]._state.peers
    assert [ref() for ref in peers] == found
    assert all(obj._state.peers is peers for obj in found)


def test_kept_sql_builds_its_objects_from_its_rows(library) -> None:
    """A kept query's objects: its SQL run once on Django's cursor (no compile, no
    executor of Django's), the objects those of Django's own query."""
    compiled_query = OneValueQuery.compile(
        lambda: Book.objects.select_related("author"), "title", "Aeon", lambda qs: qs[:2]
    )
    assert compiled_query is not None
    queryset = QuerySet(model=Book, query=copy.copy(compiled_query.query), using="default")
    params = compiled_query.params_for("Emma")
    with (
        counting_compiles() as as_sql,
        mock.patch.object(
            SQLCompiler, "execute_sql", autospec=True, side_effect=SQLCompiler.execute_sql
        ) as executed,
        CaptureQueriesContext(connections["default"]) as queries,
    ):
        found = compiled_query.objects(queryset, params)
    assert as_sql.call_count == executed.call_count == 0
    assert len(queries) == 1
    expected = list(Book.objects.select_related("author").filter(title="Emma"))
    assert [described(obj) for obj in found] == [described(obj) for obj in expected]
