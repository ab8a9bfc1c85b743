"""The object list speaks the QuerySet API: each method used inside ``get_object_list()``,
``apply_filters()`` and ``authorized_read_list()`` of a ``ModelResource``, checked by
``djony_verify`` against its ``DjonyResource`` twin (same status, headers and body for
every generated request).

Where ModelResource itself cannot serve the result (``values()`` gives dicts; Django
refuses ``filter()`` after ``union()``), both sides must fail the same way (a
``values()`` list is served as ModelResource serves it: 200 for an empty page, 500
otherwise), and the command says the answers were errors on both sides instead of
calling them identical.
"""

from __future__ import annotations

import copy

import pytest
from django.urls import include, path
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.resources import ModelResource

from tastypie_djony.objectlist import DjonyObjectList
from tests.testapp.models import Author, Book
from tests.verify.helpers import verify

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.test_querysets")]


def _keys(qs):
    return [obj.pk for obj in qs if obj.pages > 60]  # iteration


METHODS = {
    "or": lambda qs: qs.filter(pages__lt=100) | qs.filter(title__startswith="H"),
    "and": lambda qs: qs.filter(pages__gte=90) & qs.filter(in_print=True),
    # (SQLite refuses ORDER BY inside a compound statement: the parts are unordered)
    "union": lambda qs: (
        qs.filter(pages__lt=100)
        .order_by()
        .union(qs.filter(title="Heidi").order_by())
        .order_by("title")
    ),
    "intersection": lambda qs: (
        qs.order_by().intersection(qs.filter(pages__gte=90).order_by()).order_by("-pages")
    ),
    "difference": lambda qs: (
        qs.order_by().difference(qs.filter(title="Emma").order_by()).order_by("pk")
    ),
    "values": lambda qs: qs.values("title", "pages"),
    "valueslist": lambda qs: qs.values_list("title", flat=True),
    "none": lambda qs: qs.none(),
    "exists": lambda qs: qs if qs.filter(title="Emma").exists() else qs.none(),
    "count": lambda qs: qs.filter(pages__gte=90) if qs.count() > 2 else qs,
    "inbulk": lambda qs: qs.filter(pk__in=sorted(qs.in_bulk())[1:4]),
    "slicing": lambda qs: qs.filter(pk__in=[obj.pk for obj in qs.order_by("pk")[1:4]]),
    "iteration": lambda qs: qs.filter(pk__in=_keys(qs)),
    "selectforupdate": lambda qs: qs.select_for_update(),
    "using": lambda qs: qs.using("default"),
    "only": lambda qs: qs.only("title", "pages", "author"),
    "defer": lambda qs: qs.defer("isbn", "rating"),
}
#: Where ModelResource answers errors only: Django refuses filter() after a combinator
#: (Tastypie filters every object list it gets from get_object_list), values() are dicts.
BOTH_FAIL = {
    ("union", "get_object_list"), ("intersection", "get_object_list"),
    ("difference", "get_object_list"),
    *((m, hook) for m in ("values", "valueslist")
      for hook in ("get_object_list", "apply_filters", "authorized_read_list")),
}  # fmt: skip


class InObjectList:
    def get_object_list(self, request):
        return self.transform(super().get_object_list(request))


class InApplyFilters:
    def apply_filters(self, request, applicable_filters):
        return self.transform(super().apply_filters(request, applicable_filters))


class InAuthorizedReadList:
    def authorized_read_list(self, object_list, bundle):
        return self.transform(super().authorized_read_list(object_list, bundle))


HOOKS = {
    "get_object_list": InObjectList,
    "apply_filters": InApplyFilters,
    "authorized_read_list": InAuthorizedReadList,
}


def resource_for(method: str, hook: str) -> type:
    meta = type("Meta", (), {
        "queryset": Book.objects.all(),
        "resource_name": f"{method}-{hook.replace('_', '')}",
        # (a few terms of each kind: the hooks' methods are the subject here, every lookup
        # term is tests/differential/test_filters.py's and the other verify tests')
        "filtering": {"title": ["exact", "startswith", "in"], "pages": ["gte", "lt", "range"]},
        "ordering": ["title", "pages"],
        "authorization": Authorization(),
        "excludes": ["published"],
    })  # fmt: skip
    return type(
        f"{method.title()}{HOOKS[hook].__name__}Resource",
        (HOOKS[hook], ModelResource),
        {"Meta": meta, "transform": staticmethod(METHODS[method]), "__module__": __name__},
    )


CASES = [(method, hook) for method in METHODS for hook in HOOKS]
api = Api(api_name="qs")
for case in CASES:
    api.register(resource_for(*case)())
urlpatterns = [path("api/", include(api.urls))]


@pytest.fixture
def rows():
    ada, bert = Author.objects.create(name="Ada"), Author.objects.create(name="Bert")
    for index, title in enumerate(("Dune", "Emma", "Faust", "Gilgamesh", "Heidi", "Ivanhoe")):
        Book.objects.create(title=title, author=(ada, bert)[index % 2], pages=50 + 20 * index,
                            in_print=index != 3, isbn=f"isbn-{index}")  # fmt: skip


@pytest.mark.parametrize(("method", "hook"), CASES)
def test_each_queryset_method_in_each_hook_answers_as_modelresource(rows, method, hook):
    uri = f"/api/qs/{method}-{hook.replace('_', '')}/"
    run = verify("--resource", uri)
    figures = run.resource(uri)
    assert figures["different"] == 0, run.out
    if (method, hook) in BOTH_FAIL:
        assert run.code == 1
        assert "answers were errors on both sides" in run.reason, run.reason
    else:
        assert run.code == 0, run.out
        assert figures["identical"] >= 20


def test_combinations_are_object_lists_with_django_semantics(rows):
    base = DjonyObjectList(Book.objects.all())
    combined = base.filter(pages__lt=100) | base.filter(title="Heidi")
    assert isinstance(combined, DjonyObjectList)
    expected = Book.objects.filter(pages__lt=100) | Book.objects.filter(title="Heidi")
    assert [b.title for b in combined.order_by("title")] == [
        b.title for b in expected.order_by("title")
    ]
    union = base.filter(pages__lt=100).order_by().union(base.filter(title="Heidi").order_by())
    assert sorted(b.title for b in union) == sorted(b.title for b in expected)
    assert union.count() == expected.count()
    assert sorted(base.in_bulk()) == sorted(Book.objects.in_bulk())
    assert base.latest("pages").title == Book.objects.latest("pages").title
    assert base.earliest("pages").title == Book.objects.earliest("pages").title
    assert base.contains(base.get(title="Emma")) and base.filter(title="Dune").exists()
    ids = Author.objects.filter(books__in=base.filter(title="Emma")).values_list("name", flat=True)
    assert list(ids) == ["Bert"]  # an object list as a subquery
    with pytest.raises(NotImplementedError, match=r"DjonyObjectList.update\(\) is not supported"):
        base.update(pages=1)
    with pytest.raises(NotImplementedError, match=r"acount\(\).*synchronous count\(\)"):
        base.acount()
    with pytest.raises(AttributeError):
        base.no_such_method  # noqa: B018
    with pytest.raises(NotImplementedError, match="async for"):
        base.__aiter__()
    evaluated = base.filter(pages__lt=100)
    assert len(evaluated) == 3
    copied = copy.deepcopy(evaluated)
    assert copied._result is None and [b.title for b in copied] == [b.title for b in evaluated]
    assert DjonyObjectList[Book] is DjonyObjectList


def test_result_cache_is_none_until_evaluated_then_the_objects(rows):
    """``_result_cache``, which code written for QuerySets reads (Tastypie's own tests do)."""
    from pony.orm import db_session

    with db_session:
        object_list = DjonyObjectList(Book.objects.order_by("pk"))
        queryset = Book.objects.order_by("pk")
        assert object_list._result_cache is None and queryset._result_cache is None
        objects, instances = list(object_list), list(queryset)
        assert objects
        assert [obj.pk for obj in object_list._result_cache] == [obj.pk for obj in objects]
        assert [obj.pk for obj in objects] == [obj.pk for obj in instances]
