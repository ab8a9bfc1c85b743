"""SQL and filters kept per recipe: a per-user list compiles once, and answers as Django does.

A list made from ``Meta.queryset`` by the same ``filter()`` calls (the same names, values
of the same types) is the same query in every request but for those values: its filters
are made again from a template and its SQL compiled once (:mod:`djony.objects.shapes`).
Each test compares the rows with Django's own queryset for the same values, and shows
where nothing is kept (another shape, a value that compiles otherwise, a query changed
behind the recipe's back).
"""

from __future__ import annotations

import copy
import datetime
import uuid

import pytest
from django.db import connection, connections
from django.db.models import Q, QuerySet
from django.test.utils import CaptureQueriesContext
from django.utils.functional import SimpleLazyObject

from djony.objects import shapes
from tastypie_djony.objectlist import DjonyObjectList
from tests.testapp.models import AllTypes, Author, Book

pytestmark = pytest.mark.django_db

#: The origins of these tests' lists (as Meta.queryset: one object, kept).
BOOKS = Book.objects.order_by("id")
ROWS = AllTypes.objects.order_by("id")


@pytest.fixture(autouse=True)
def forget():
    shapes._KEPT.clear()
    shapes._FILTERS.clear()
    yield
    shapes._KEPT.clear()
    shapes._FILTERS.clear()


@pytest.fixture
def books():
    ann, bob = Author.objects.create(name="Ann"), Author.objects.create(name="Bob")
    for author, count in ((ann, 3), (bob, 2)):
        for n in range(count):
            Book.objects.create(title=f"{author.name} {n}", author=author, in_print=n % 2 == 0)
    return ann, bob


def listed(origin: QuerySet) -> DjonyObjectList:
    """What DjonyResource.get_object_list gives: a copy of ``origin``, its recipe started."""
    return DjonyObjectList.made_from(origin)


FIELDS = ["id", "title", "author_id", "in_print"]


def rows_of(object_list: DjonyObjectList) -> list[tuple]:
    return object_list.values_rows(FIELDS)


def django_rows(**filters) -> list[tuple]:
    return list(BOOKS.filter(**filters).values_list(*FIELDS))


def test_a_per_user_list_compiles_once_and_reads_each_user_s_rows(books, compiles):
    ann, bob = books
    assert rows_of(listed(BOOKS).filter(author=ann)) == django_rows(author=ann)
    first = len(compiles)
    for author in (bob, ann, bob):
        with CaptureQueriesContext(connection) as queries:
            found = rows_of(listed(BOOKS).filter(author=author))
        assert len(queries) == 1
        assert found == django_rows(author=author)
    # Django's own lists above compile, once each; the kept list's reads do not
    assert len(compiles) == first + 3


#: A second origin over the same table (another resource's Meta.queryset).
OTHER_BOOKS = Book.objects.order_by("-id")

#: Filters of as many shapes as a cache holds (each a lookup of its own).
SHAPES = ("title", "title__startswith", "title__contains", "title__gt", "id__gte", "id__lt")


def test_each_origin_keeps_its_own_shapes(books, compiles, settings):
    """An API's resources keep their lists' SQL each in a cache of its own: read in turn,
    the shapes of one resource's lists do not push out another's.  (One cache of
    ``DJONY_CACHE_SIZE`` for all of them, read in rounds by more shapes than it holds,
    lost every entry before it was asked for again: each request compiled anew, slower
    than ModelResource.)"""
    settings.DJONY_CACHE_SIZE = len(SHAPES)

    def read_every_shape() -> None:
        for origin in (BOOKS, OTHER_BOOKS):
            for name in SHAPES:
                value = 2 if name.startswith("id") else "Ann"
                found = rows_of(listed(origin).filter(**{name: value}))
                assert found == list(origin.filter(**{name: value}).values_list(*FIELDS))

    read_every_shape()
    first = len(compiles)
    read_every_shape()
    assert len(compiles) == first + 2 * len(SHAPES)  # Django's own lists only: ours kept
    for origin in (BOOKS, OTHER_BOOKS):
        kept = [sql for owner, _key, sql in shapes._KEPT.items() if owner is origin]
        assert len(kept) == len(SHAPES) and None not in kept


def test_an_origin_keeps_at_most_the_cache_size(books, settings):
    settings.DJONY_CACHE_SIZE = 2
    for name in SHAPES:
        rows_of(listed(BOOKS).filter(**{name: 2 if name.startswith("id") else "Ann"}))
    assert len(shapes._KEPT.of(BOOKS)) == 2
    assert len(shapes._FILTERS.of(BOOKS)) == 2
    assert copy.deepcopy(BOOKS).__dict__["_djony_shape_sql"] == {}  # a copy starts empty
    assert "_djony_shape_sql" not in BOOKS._clone().__dict__  # a request's copy has none


def test_a_list_with_no_filter_compiles_once(books, compiles):
    expected = list(BOOKS[1:3].values_list(*FIELDS))
    first = len(compiles)
    for _ in range(3):
        object_list = listed(BOOKS).filter()[1:3]
        assert rows_of(object_list) == expected
        assert object_list.count() == 2
    assert len(compiles) == first + 2 + 2  # the rows and the count, once each (and a check)


def test_the_kept_sql_has_the_values_as_parameters_not_text(books):
    ann, bob = books
    rows_of(listed(BOOKS).filter(author=ann, title="Ann 0"))
    ((origin, key, kept),) = shapes._KEPT.items()
    assert origin is BOOKS
    assert "Ann 0" not in kept.sql and "Ann 0" in kept.params
    assert "Ann 0" not in repr(key) and ann not in key  # the key holds types, not values
    found = kept.params_for(listed(BOOKS).filter(author=bob, title="Bob 1").queryset.query)
    assert "Bob 1" in found and bob.pk in found and "Ann 0" not in found


@pytest.mark.parametrize(
    "values",
    [
        [{"author_id": 1}, {"author_id": 2}],
        [{"id": 1}, {"id": 2**70}, {"id": 3}],  # out of the column's range: no rows
        [{"pk": "1"}, {"pk": "2"}],  # the URI's text
        [{"in_print": True}, {"in_print": False}],
        [{"title": "Ann 0"}, {"title": ""}, {"title": "x' OR '1'='1"}],
        [{"author__name": "Ann"}, {"author__name": "Bob"}],  # through a join
        [{"author": 1, "in_print": True}, {"author": 2, "in_print": False}],
        [{"pk__in": [1, 2]}, {"pk__in": [3, 4]}, {"pk__in": [2, 2]}, {"pk__in": [5, 1]}],
        [{"pk__in": {1, 4}}, {"pk__in": {2, 3}}, {"author__in": (1,)}, {"author__in": (2,)}],
        [{"pk__in": ["1", "3"]}, {"pk__in": ["2", "4"]}, {"author__in": [1, 2], "in_print": True}],
    ],
)
def test_each_value_gets_the_rows_django_gives(books, values):
    for _ in range(2):
        for filters in values:
            assert rows_of(listed(BOOKS).filter(**filters)) == django_rows(**filters), filters


@pytest.mark.parametrize(
    "values",
    [
        [{"title__startswith": "Ann"}, {"title__startswith": "Bob 1"}, {"title__startswith": "%"}],
        [{"title__istartswith": "ann"}, {"title__istartswith": "_ob"}, {"title__iexact": "BOB 0"}],
        [{"title__contains": "n 1"}, {"title__contains": "' OR '1'='1"}, {"title__icontains": "B"}],
        [{"title__endswith": "0"}, {"title__iendswith": "1"}, {"title__endswith": "\\"}],
        [{"title__regex": "^A.*[02]$"}, {"title__iregex": "^b"}, {"title__regex": "x|1$"}],
        [{"pages__gt": 99}, {"pages__gt": 100}, {"pages__lte": 100}, {"pages__lt": "101"}],
        [{"pk__range": [1, 3]}, {"pk__range": [4, 9]}, {"pk__range": ("2", "2")}],
        [
            {"author__name__startswith": "A", "in_print": True},
            {"author__name__startswith": "B", "in_print": False},
        ],
        [{"price__gte": "9.99"}, {"price__gte": "10"}, {"rating__gt": 1.5}],
    ],
)
def test_each_lookup_s_values_get_the_rows_django_gives(books, values):
    """Any lookup but ``isnull``: its SQL is kept, each request's condition made by the
    lookup's class from its own value and compared with the kept one."""
    Book.objects.filter(title="Bob 1").update(pages=150, rating=2.5)
    for _ in range(2):
        for filters in values:
            assert rows_of(listed(BOOKS).filter(**filters)) == django_rows(**filters), filters
            assert listed(BOOKS).filter(**filters).count() == BOOKS.filter(**filters).count()
    assert [kept for kept in shapes._KEPT.values() if kept is not None]


def test_an_isnull_of_another_value_raises_what_django_raises(books):
    rows_of(listed(BOOKS).filter(editor__isnull=True))  # kept
    with pytest.raises(ValueError) as django_error:
        list(BOOKS.filter(editor__isnull="maybe"))
    with pytest.raises(ValueError) as ours:
        rows_of(listed(BOOKS).filter(editor__isnull="maybe"))
    assert str(django_error.value) in str(ours.value)


def test_isnull_keeps_a_shape_per_value_with_the_joins_django_builds(books, compiles):
    """``isnull=True`` through a relation makes its joins outer joins, ``False`` inner:
    each value is a shape of its own, its filter and SQL Django's for that value."""
    ann, bob = books
    Book.objects.filter(title="Ann 1").update(editor=bob)
    for name in ("editor__isnull", "editor__name__isnull", "isbn__isnull", "author__isnull"):
        for value in (True, False, True, False):
            filters = {name: value}
            ours = listed(BOOKS).filter(**filters)
            assert str(ours.queryset.query) == str(BOOKS.filter(**filters).query), filters
            assert rows_of(ours) == django_rows(**filters), filters
    first = len(compiles)
    for value in (True, False):
        assert rows_of(listed(BOOKS).filter(editor__name__isnull=value)) == django_rows(
            editor__name__isnull=value
        )
    assert len(compiles) == first + 2  # Django's own lists; ours none
    kept = [kept for kept in shapes._KEPT.values() if kept is not None]
    assert any("LEFT OUTER JOIN" in k.sql for k in kept)
    assert any("INNER JOIN" in k.sql for k in kept)


def test_a_date_s_part_is_kept_and_a_datetime_s_compiled_in_its_time_zone(db):
    """``day__year``, ``day__iso_week_day`` and ``clock__hour`` read no time zone: kept.
    ``published__year``'s bounds are in the active time zone: compiled per request."""
    AllTypes.objects.create(char="a", day=datetime.date(2020, 1, 2), clock=datetime.time(9))
    AllTypes.objects.create(char="b", day=datetime.date(2021, 5, 6), clock=datetime.time(17))
    for filters in (
        {"day__year": 2020},
        {"day__year": "2021"},
        {"day__year": 1999},
        {"day__year__gte": 2021},
        {"day__month": 5},
        {"day__iso_week_day": 4},
        {"day__iso_week_day": 0},
        {"day__week_day__lt": 5},
        {"clock__hour": 9},
        {"clock__hour__gt": 12},
    ):
        for _ in range(2):
            found = list(listed(ROWS).filter(**filters).values_rows(["id", "char"]))
            assert found == list(ROWS.filter(**filters).values_list("id", "char")), filters
    assert all(kept is not None for kept in shapes._KEPT.values())
    shapes._KEPT.clear()
    for year in (2020, 2026, 2020):
        found = listed(BOOKS).filter(published__year=year)
        assert rows_of(found) == django_rows(published__year=year)
    assert all(kept is None for kept in shapes._KEPT.values())


def test_a_like_value_is_a_parameter_django_escaped(books, compiles):
    """``startswith``'s pattern is the parameter Django's lookup prepares for each value
    (its wildcards escaped), never text in the SQL."""
    rows_of(listed(BOOKS).filter(title__startswith="Ann"))
    first = len(compiles)
    for value in ("Bob", "A%", "_nn", "Ann 1"):
        found = rows_of(listed(BOOKS).filter(title__startswith=value))
        assert found == django_rows(title__startswith=value), value
    assert len(compiles) == first + 4  # Django's own lists; ours none
    ((_origin, _key, kept),) = shapes._KEPT.items()
    assert "Ann" not in kept.sql
    found = kept.params_for(listed(BOOKS).filter(title__startswith="A%").queryset.query)
    django_params = BOOKS.filter(title__startswith="A%").query.sql_with_params()[1]
    assert found is not None and "A%" not in found
    assert [p for p in found if isinstance(p, str)] == [
        p for p in django_params if isinstance(p, str)
    ]


def test_chained_filters_slices_orderings_and_counts(books):
    ann, bob = books
    for author in (ann, bob, ann):
        object_list = listed(BOOKS).filter(author=author).filter(in_print=True)
        expected = BOOKS.filter(author=author).filter(in_print=True)
        assert object_list.count() == expected.count()
        page = object_list.order_by("-title")[0:2]
        assert rows_of(page) == list(expected.order_by("-title")[0:2].values_list(*FIELDS))
        assert [b.pk for b in page] == [b.pk for b in expected.order_by("-title")[0:2]]
        assert all(type(book) is Book for book in page)


def test_values_of_every_plain_type(db):
    day, uid = datetime.date(2020, 1, 2), uuid.uuid4()
    AllTypes.objects.create(char="a", integer=1, flag=True, day=day, uid=uid)
    AllTypes.objects.create(char="b", integer=2, flag=False, day=day.replace(day=3))
    fields = ["id", "char", "integer", "flag", "day", "uid"]
    for filters in (
        {"char": "a"},
        {"char": "b"},
        {"integer": 2},
        {"integer": 1},
        {"flag": False},
        {"flag": True},
        {"day": day},
        {"day": day.replace(day=3)},
        {"uid": uid},
        {"uid": uuid.uuid4()},
    ):
        for _ in range(2):
            found = listed(ROWS).filter(**filters).values_rows(fields)
            assert found == list(ROWS.filter(**filters).values_list(*fields)), filters


def test_a_lazy_instance_is_read_through(books):
    for author in (*books, *books):
        lazy = SimpleLazyObject(lambda author=author: author)
        assert lazy.pk  # read, as authentication reads request.user
        assert rows_of(listed(BOOKS).filter(author=lazy)) == django_rows(author=author)
    assert [kept for kept in shapes._KEPT.values() if kept is not None]


def test_a_bad_value_raises_what_django_raises(books):
    rows_of(listed(BOOKS).filter(pk=1))  # the template is kept
    with pytest.raises(ValueError) as django_error:
        BOOKS.filter(pk="abc")
    with pytest.raises(ValueError) as ours:
        listed(BOOKS).filter(pk="abc")
    assert str(ours.value) == str(django_error.value)


def test_other_calls_and_values_are_not_kept(books):
    ann, _ = books
    for object_list in (
        listed(BOOKS).filter(Q(author=ann)),  # a Q object
        listed(BOOKS).filter(author__in=[ann.pk, None]),  # a list holding None
        listed(BOOKS).filter(author__in=[]),  # nothing
        listed(BOOKS).filter(editor=None),  # IS NULL
        listed(BOOKS).exclude(author=ann),
    ):
        assert rows_of(object_list) == list(object_list.queryset.values_list(*FIELDS))
        assert all(kept is None for kept in shapes._KEPT.values())
        assert all(template is None for template in shapes._FILTERS.values())


class _Own(QuerySet):
    """A QuerySet subclass: its filter() may add conditions a recipe does not show."""

    def filter(self, *args, **kwargs):
        return super().filter(*args, **kwargs)


class _Helpers(QuerySet):
    """A QuerySet subclass that only adds methods (wger's ``SubmissionQuerySet``)."""

    def in_print(self):
        return self.filter(in_print=True)


def test_a_queryset_subclass_starts_no_recipe_unless_it_only_adds_methods():
    assert shapes.start(_Own(model=Book)) is None
    assert shapes.start(Book.objects.all()) is not None
    assert shapes.start(_Helpers(model=Book)) is not None


def test_a_helper_queryset_s_list_compiles_once_and_reads_what_django_reads(books, compiles):
    ann, bob = books
    origin = _Helpers(model=Book).order_by("id")
    assert rows_of(listed(origin).filter(author=ann)) == django_rows(author=ann)
    first = len(compiles)
    for author in (bob, ann, bob):
        assert rows_of(listed(origin).filter(author=author)) == django_rows(author=author)
    assert len(compiles) == first + 3  # Django's own lists only, as for a plain QuerySet
    own = _Own(model=Book).order_by("id")
    assert rows_of(listed(own).filter(author=ann)) == django_rows(author=ann)
    first = len(compiles)
    assert rows_of(listed(own).filter(author=bob)) == django_rows(author=bob)
    assert len(compiles) == first + 2  # its filter() is its own: compiled per list


def test_filter_with_nothing_is_a_copy_as_django_s(books):
    """Tastypie's ``apply_filters`` calls ``filter()`` with nothing on every unfiltered page."""
    ann, _ = books
    origin = listed(IN_PRINT)
    copied = origin.filter()
    assert copied.queryset is not origin.queryset
    assert copied.queryset.query is not origin.queryset.query
    assert str(copied.queryset.query) == str(IN_PRINT.filter().query)
    assert copied.recipe == origin.recipe
    assert rows_of(copied) == list(IN_PRINT.values_list(*FIELDS))
    narrowed = copied.filter(author=ann)  # the copy is a list of its own
    assert rows_of(narrowed) == list(IN_PRINT.filter(author=ann).values_list(*FIELDS))
    assert rows_of(origin.filter()) == list(IN_PRINT.values_list(*FIELDS))


def test_filter_with_nothing_on_a_queryset_subclass_is_its_own(books):
    """A subclass's ``filter()`` may add conditions even when called with nothing."""

    class Narrowing(QuerySet):
        def filter(self, *args, **kwargs):
            return super().filter(*args, in_print=True, **kwargs)

    object_list = DjonyObjectList.made_from(Narrowing(model=Book).order_by("id"))
    assert rows_of(object_list.filter()) == list(IN_PRINT.values_list(*FIELDS))


def test_a_query_changed_behind_the_recipe_compiles_again(books):
    ann, bob = books
    rows_of(listed(BOOKS).filter(author=ann))
    changed = listed(BOOKS)
    changed.queryset.query.add_q(Q(in_print=True))  # not through filter(): not recorded
    object_list = changed.filter(author=bob)
    expected = BOOKS.filter(in_print=True, author=bob)
    assert rows_of(object_list) == list(expected.values_list(*FIELDS))
    assert rows_of(object_list) != django_rows(author=bob)


def test_a_kept_filter_builds_the_query_django_builds(books):
    ann, bob = books
    listed(BOOKS).filter(author=ann, in_print=True)  # kept
    ours = listed(BOOKS).filter(author=bob, in_print=False).queryset
    django = BOOKS.filter(author=bob, in_print=False)
    assert str(ours.query) == str(django.query)
    assert ours.query.where == django.query.where
    assert [type(c) for c in ours.query.where.children] == [
        type(c) for c in django.query.where.children
    ]


def test_an_in_list_keeps_its_sql_per_length(books, compiles):
    rows_of(listed(BOOKS).filter(pk__in=[1, 2]))
    first = len(compiles)
    for keys in ([3, 4], [5, 1], [2, 4]):
        assert rows_of(listed(BOOKS).filter(pk__in=keys)) == django_rows(pk__in=keys)
    assert len(compiles) == first + 3  # Django's own three lists; ours none
    rows_of(listed(BOOKS).filter(pk__in=[1, 2, 3]))  # another length: its own SQL
    assert len([kept for kept in shapes._KEPT.values() if kept is not None]) == 2


def test_a_value_the_backend_refuses_when_compiled_is_left_to_django_s_compile(books):
    """PostgreSQL adapts an IP address only when the SQL is compiled (``?ip=%20`` raises
    there): the kept SQL answers nothing, so the list's own compile raises it where its
    error handling makes it the client's 400."""
    rows_of(listed(BOOKS).filter(title="Ann 0"))
    ((_origin, _key, kept),) = shapes._KEPT.items()

    class Refusing:
        def compile(self, node):
            raise ValueError("' ' does not appear to be an IPv4 or IPv6 address")

    query = listed(BOOKS).filter(title="Ann 1").queryset.query
    assert kept.params_for(query) is not None
    kept._converters[connections[kept.alias]] = (Refusing(), {})
    assert kept.params_for(query) is None


IN_PRINT = Book.objects.filter(in_print=True).order_by("id")


def test_an_origin_condition_replaced_behind_the_recipe_compiles_again(books):
    """The same number of conditions, one of the origin's swapped for another value's
    (``query.where.children[0] = ...``): not the kept SQL's, so compiled as Django does."""
    ann, bob = books
    rows_of(listed(IN_PRINT).filter(author=ann))
    changed = listed(IN_PRINT)
    where = changed.queryset.query.where
    first = where.children[0]
    where.children[0] = type(first)(first.lhs, False)  # in_print=False
    expected = list(Book.objects.filter(in_print=False, author=bob).values_list(*FIELDS))
    assert rows_of(changed.filter(author=bob)) == expected


def test_a_boolean_condition_s_list_is_kept_whatever_sql_the_backend_writes(books, compiles):
    """PostgreSQL writes ``in_print=False`` as ``WHERE NOT in_print`` (no parameter): the
    value is in the condition's SQL, so each value is a shape of its own (the recipe
    records a boolean's value), on every backend."""
    for in_print in (False, True, False, True):
        assert rows_of(listed(BOOKS).filter(in_print=in_print)) == django_rows(in_print=in_print)
    first = len(compiles)
    for in_print in (False, False, True):
        assert rows_of(listed(BOOKS).filter(in_print=in_print)) == django_rows(in_print=in_print)
    assert len([entry for entry in shapes._KEPT.values() if entry is not None]) == 2
    assert len(compiles) - first == 3  # Django's own lists; ours none


class _Cloning(QuerySet):
    def _clone(self):
        return super()._clone()


class _Initialising(QuerySet):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class _Meta(type):
    pass


class _WithMetaclass(_Helpers, metaclass=_Meta):
    pass


@pytest.mark.parametrize(
    "kind, plain",
    [
        (QuerySet, True),
        (_Helpers, True),
        (type("FromHelpers", (_Helpers,), {"more": lambda self: self}), True),
        (_Own, False),  # filter()
        (_Cloning, False),  # _clone()
        (_Initialising, False),  # __init__()
        (type("Subclassed", (_Own,), {}), False),  # filter() further up
        (_WithMetaclass, False),
    ],
)
def test_only_a_queryset_class_adding_methods_is_read_as_django_s(kind, plain):
    from djony.objects.compiled import plain_manager, plain_queryset_class

    assert plain_queryset_class(kind) is plain
    manager = kind.as_manager()
    manager.model = Book
    assert plain_manager(Book, manager) is plain
