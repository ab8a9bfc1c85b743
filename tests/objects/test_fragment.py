"""A kept condition's parameters for another value, by its right-hand side where that
alone decides: what Django's whole compile of the condition gives (``compiled.Fragment``)."""

from __future__ import annotations

import pytest
from django.core.exceptions import EmptyResultSet, FullResultSet

from djony.objects.compiled import Fragment, last_leaf
from tests.testapp.models import AllTypes, Book

pytestmark = pytest.mark.django_db


def condition(queryset):
    parent, index = last_leaf(queryset.query.where)
    return parent.children[index], queryset.query.get_compiler(queryset.db)


def whole(compiler, lookup):
    try:
        return compiler.compile(lookup)
    except (EmptyResultSet, FullResultSet) as error:
        return type(error)


#: (filter name, the kept value, other values): the same kind of condition for each.
CASES = [
    (Book, "pk", 1, [2, "3", 2**70, -(2**70)]),
    (Book, "title", "Dune", ["", "x' OR 1=1 --", "é"]),
    (Book, "title__iexact", "dune", ["DUNE", "%_"]),
    (Book, "title__contains", "un", ["%", "_", "\\"]),
    (Book, "title__in", ["a", "b"], [["c", "d"], ["e"], ["f", "g", "h"]]),
    (Book, "pages__gt", 10, [0, 2**70]),
    (Book, "author", 1, [2, "2"]),
    (Book, "author__name", "Ann", ["Bob"]),
    (Book, "in_print", True, [False, True]),
    (Book, "published__year", 2020, [1999]),
    (AllTypes, "uid", "12345678123456781234567812345678", ["87654321876543218765432187654321"]),
]


@pytest.mark.parametrize(("model", "name", "kept", "others"), CASES, ids=lambda v: str(v)[:20])
def test_the_parameters_are_those_of_django_s_whole_compile(model, name, kept, others):
    lookup, compiler = condition(model.objects.filter(**{name: kept}))
    fragment, params = Fragment.of(compiler, lookup)
    sql, django_params = compiler.compile(lookup)  # a list or a tuple, by Django release
    assert (fragment.sql, params) == (sql, tuple(django_params))
    for value in others:
        other, _ = condition(model.objects.filter(**{name: value}))
        expected = whole(compiler, other)
        try:
            found = fragment.params(compiler, other)
        except (EmptyResultSet, FullResultSet) as error:
            assert expected is type(error)
            continue
        if expected in (EmptyResultSet, FullResultSet):
            pytest.fail(f"{name}={value!r}: Django's compile raises {expected.__name__}")
        sql, expected_params = expected
        if sql == fragment.sql and len(expected_params) == fragment.count:
            assert found == tuple(expected_params), value
        else:
            assert found is None, value
