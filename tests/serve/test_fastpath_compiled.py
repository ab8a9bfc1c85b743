"""SQL compiled once (``djony.objects.compiled``): kept where it cannot change, values as params.

A detail's to-many keys (one owner) reuse SQL compiled for an earlier request only
when the related model's default manager is Django's plain one; a default manager
whose filter changes between two requests is asked again each time.  A detail's own
row query is kept only for a resource reading ``Meta.queryset`` as it is: a replaced
``Meta.queryset`` or an overridden ``get_object_list`` is honoured on every request.
"""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from pony.orm import db_session

from djony.objects.compiled import OneValueQuery, plain_manager
from tests.patterns import api as patterns_api
from tests.patterns import testing
from tests.patterns.models import Critique, Label, Novel, PublishedManager
from tests.write.api import send
from tests.write.harness import get

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")

API = "patterns/v3"


def detail(path: str) -> dict:
    client = testing.client_for("alice")
    req = get(path)
    response = send(client, API, req.method, req.path, req.body, req.content_type)
    assert response.status_code == 200, response.content
    return json.loads(response.content)


def uris(objects, resource: str) -> list[str]:
    return [f"/{API}/{resource}/{obj.pk}/" for obj in objects]


def test_plain_manager_is_told_from_a_filtering_one():
    assert plain_manager(Label)
    assert plain_manager(Permission)  # PermissionManager adds methods only
    assert not plain_manager(Critique)  # PublishedManager.get_queryset filters


def test_each_owner_gets_its_own_related_keys_from_the_kept_sql():
    testing.reset()
    for novel in Novel.objects.all():
        assert detail(f"novel/{novel.pk}/")["labels"] == uris(novel.labels.all(), "label")
    # Label's Meta.ordering names a selected column (Django orders by its position): the
    # query is still proved the same for every request, and the next detail runs it kept.
    novel = Novel.objects.first()
    with mock.patch.object(
        OneValueQuery, "params_for", autospec=True, side_effect=OneValueQuery.params_for
    ) as asked:
        detail(f"novel/{novel.pk}/")
    assert (Label, novel.pk) in [
        (call.args[0].query.model, call.args[1]) for call in asked.mock_calls
    ]


def test_a_default_manager_whose_filter_changes_is_honoured_on_every_request():
    testing.reset()
    wanted = {"published": True}

    def get_queryset(manager):
        return super(PublishedManager, manager).get_queryset().filter(**wanted)

    novel = Critique.everything.filter(published=False).first().novel
    with mock.patch.object(PublishedManager, "get_queryset", get_queryset):
        shown = []
        for published in (True, False, True):
            wanted["published"] = published
            expected = uris(novel.critique_set.all(), "critique")
            got = detail(f"novel/{novel.pk}/")["critiques"]
            assert got == expected
            shown.append(got)
    assert shown[0] == shown[2] != shown[1]


def test_the_value_stays_a_parameter_and_is_prepared_by_django():
    compiled = OneValueQuery.compile(
        lambda: Label.objects.all(), "name", "x", lambda qs: qs.values_list("pk")
    )
    assert compiled is not None
    hostile = "x' OR '1'='1"
    params = compiled.params_for(hostile)
    assert hostile not in compiled.sql and params.count(hostile) == 1
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        assert list(cursor.fetchall()) == []  # mysqlclient gives a tuple


def test_values_django_would_compile_otherwise_are_not_given_the_kept_sql():
    compiled = OneValueQuery.compile(
        lambda: Label.objects.all(), "pk", 1, lambda qs: qs.values_list("pk")
    )
    assert compiled is not None
    assert compiled.params_for(None) is None  # IS NULL
    assert compiled.params_for(2**70) is None  # out of range: Django's query is empty
    assert compiled.params_for([1, 2]) is None
    assert compiled.params_for("2") == (2,)
    with pytest.raises(ValueError):
        compiled.params_for("two")  # what filter(pk="two") raises


def test_a_condition_other_than_exact_is_not_kept():
    assert (
        OneValueQuery.compile(
            lambda: Label.objects.all(), "name__icontains", "x", lambda qs: qs.values_list("pk")
        )
        is None
    )


def status_and_body(path: str) -> tuple[int, dict]:
    client = testing.client_for("alice")
    req = get(path)
    response = send(client, API, req.method, req.path, req.body, req.content_type)
    return response.status_code, json.loads(response.content) if response.content else {}


def test_each_detail_gets_its_own_row_from_the_kept_sql():
    testing.reset()
    for novel in Novel.objects.all():
        assert detail(f"novel/{novel.pk}/")["title"] == novel.title
    assert status_and_body("novel/999/")[0] == 404
    assert status_and_body("novel/x1/")[0] == 404  # as ModelResource: mismatched type


def test_a_replaced_meta_queryset_is_honoured():
    testing.reset()
    novel = Novel.objects.first()
    resource = patterns_api.APIS["v3"]._registry["novel"]
    assert detail(f"novel/{novel.pk}/")["title"] == novel.title
    with mock.patch.object(resource._meta, "queryset", Novel.objects.exclude(pk=novel.pk)):
        assert status_and_body(f"novel/{novel.pk}/")[0] == 404
    assert detail(f"novel/{novel.pk}/")["title"] == novel.title


def test_an_overridden_get_object_list_whose_filter_changes_is_honoured_on_every_request():
    testing.reset()
    novel = Novel.objects.order_by("year").first()
    resource = patterns_api.APIS["v3"]._registry["recentnovel"]
    reference = patterns_api.APIS["v2"]._registry["recentnovel"]
    wanted = {"year__gte": novel.year}

    def get_object_list(self, request):
        return super(type(self), self).get_object_list(request).filter(**wanted)

    with (
        mock.patch.object(type(resource), "get_object_list", get_object_list),
        mock.patch.object(type(reference), "get_object_list", get_object_list),
    ):
        statuses = []
        for year in (novel.year, novel.year + 1, novel.year):
            wanted["year__gte"] = year
            statuses.append(status_and_body(f"recentnovel/{novel.pk}/")[0])
    assert statuses == [200, 404, 200]


def test_the_detail_list_built_from_an_earlier_one_is_what_apply_filters_gives():
    from django.test import RequestFactory

    from tastypie_djony.resources import DjonyResource
    from tastypie_djony.serve.detail import filtered_list

    testing.reset()
    resource = patterns_api.APIS["v3"]._registry["novel"]
    request = RequestFactory().get("/")
    first = filtered_list(resource, DjonyResource, request, {"pk": "1"})  # kept from here
    assert first is not None
    for value in ("2", "3", "999"):
        built = filtered_list(resource, DjonyResource, request, {"pk": value})
        expected = resource.apply_filters(request, {"pk": value})
        assert str(built.queryset.query) == str(expected.queryset.query)
        assert len(built.loaders) == len(expected.loaders)
        with db_session:
            assert [n.pk for n in built] == [n.pk for n in expected]
    assert filtered_list(resource, DjonyResource, request, {"pk": "x"}) is None
    assert filtered_list(resource, DjonyResource, request, {"pk": "2", "title": "x"}) is None


def _twins(meta_queryset, authorization=None, **members):
    """A ModelResource and its DjonyResource twin over ``meta_queryset`` (no URLconf)."""
    from tastypie.authorization import Authorization
    from tastypie.resources import ModelResource

    from tastypie_djony.resources import DjonyResource

    def resource(base):
        class Meta:
            queryset = meta_queryset
            resource_name = "novel"
            fields = ["id", "title", "year"]

        if authorization is not None:
            Meta.authorization = authorization
        else:
            Meta.authorization = Authorization()
        return type(f"Novel{base.__name__}", (base,), {"Meta": Meta, **members})()

    return resource(ModelResource), resource(DjonyResource)


def _details(twins, values) -> list[tuple]:
    from django.test import RequestFactory

    request = RequestFactory().get("/?format=json")
    answers = []
    for value in values:
        pair = []
        for resource in twins:
            try:
                response = resource.get_detail(request, pk=value)
            except Exception as error:  # noqa: BLE001 - the twins must raise alike
                pair.append((type(error), str(error)))
            else:
                pair.append((response.status_code, response.content))
        answers.append(tuple(pair))
    return answers


def test_a_row_built_detail_reads_its_kept_sql_alone_and_answers_alike():
    from tastypie_djony.serve import detail as serve_detail

    testing.reset()
    twins = _twins(Novel.objects.all())
    first = Novel.objects.first()
    assert _details(twins, [str(first.pk)])[0][0][0] == 200  # keeps the SQL
    values = [str(n.pk) for n in Novel.objects.all()] + ["999", "x1", "1 OR 1=1"]
    # The kept query is the filtered list: the next details build none.
    with mock.patch.object(
        serve_detail, "filtered_list", side_effect=AssertionError("a filtered list was built")
    ):
        for reference, switched in _details(twins, values):
            assert switched == reference


def test_a_hooked_detail_reads_its_kept_sql_alone_and_its_hook_gets_the_object():
    from tastypie_djony.serve import detail as serve_detail

    testing.reset()
    seen = []

    def dehydrate(self, bundle):
        seen.append(type(bundle.obj))
        bundle.data["shout"] = bundle.obj.title.upper()
        bundle.data["labels"] = sorted(label.name for label in bundle.obj.labels.all())
        return bundle

    twins = _twins(Novel.objects.all(), dehydrate=dehydrate)
    first = Novel.objects.first()
    assert twins[1].served_by()["detail"] == "the bundle plan"
    assert _details(twins, [str(first.pk)])[0][0][0] == 200  # keeps the SQL
    values = [str(n.pk) for n in Novel.objects.all()] + ["999", "x1"]
    with mock.patch.object(
        serve_detail, "filtered_list", side_effect=AssertionError("a filtered list was built")
    ):
        for reference, switched in _details(twins, values):
            assert switched == reference
    assert set(seen) == {Novel}


def test_an_annotated_meta_queryset_detail_answers_alike():
    from django.db.models import Count

    testing.reset()
    twins = _twins(Novel.objects.annotate(label_count=Count("labels")))
    values = [str(n.pk) for n in Novel.objects.all()] * 2 + ["999", "x1"]
    for reference, switched in _details(twins, values):
        assert switched == reference


def test_an_authorization_with_a_read_detail_of_its_own_is_asked():
    from tastypie.authorization import Authorization
    from tastypie.exceptions import Unauthorized

    from tastypie_djony.stock import OBJECT, detail_authorization

    testing.reset()
    authorization = Authorization()
    refused = []

    def read_detail(object_list, bundle):
        refused.append(type(bundle.obj).__name__)
        raise Unauthorized("not this one")

    authorization.read_detail = read_detail  # on the instance, as a project may patch it
    twins = _twins(Novel.objects.all(), authorization)
    assert detail_authorization(twins[1]) == OBJECT
    first = str(Novel.objects.first().pk)
    for reference, switched in _details(twins, [first, first]):
        assert switched == reference
        assert reference[0].__name__ == "ImmediateHttpResponse"  # Tastypie's 401
    assert refused == ["Novel"] * 4
