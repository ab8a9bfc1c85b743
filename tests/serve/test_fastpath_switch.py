"""Which requests the fast path serves, its off switch and its verification mode.

``Meta.fast_path = False`` sends every request of a resource down Tastypie's general path;
``DJONY_VERIFY_FAST_PATH = True`` (on in the test settings) renders both paths for every
request the fast path serves and raises :class:`~tastypie_djony.serve.verify.FastPathMismatch`
on any difference.
"""

import json

import pytest
from django.test import RequestFactory, override_settings

from tastypie_djony.serve.plans import BundlePlan
from tastypie_djony.serve.verify import FastPathMismatch
from tests.zoo.testing import zoo  # noqa: F401
from tests.zoo.urls import APIS

pytestmark = pytest.mark.django_db


def resource(api_name: str, name: str):
    return APIS[api_name][0]._registry[name]


def request(url: str = "/", **extra):
    return RequestFactory().get(url, HTTP_ACCEPT="application/json", **extra)


#: Served from rows: stock fields over columns, forward keys, plain relations, any key type.
SERVED = ["animal", "animal_by_slug", "animal_by_number", "habitat", "label", "pet", "bird"]
SERVED += ["keeper_animals", "zone_enclosures", "defaults_animal", "distinct_animal"]
SERVED += ["stamped_animal", "uri_attribute_animal", "mixed_animal", "narrow_list"]
#: Declined: a key that may name no row, a dotted to-many, URIs built by the resource.
DECLINED = ["enclosure", "guarded_enclosure", "kwargs_animal", "tagged_keeper"]


@pytest.mark.parametrize("name", SERVED)
def test_served(name):
    assert resource("zf", name).list_plan(request()) is not None


@pytest.mark.parametrize("name", DECLINED)
def test_declined(name):
    assert resource("zf", name).list_plan(request()) is None


@pytest.mark.parametrize("name", SERVED)
def test_the_off_switch(name):
    assert resource("zg", name).list_plan(request()) is None


@pytest.mark.parametrize("name", ["odd_denied", "forbidden_detail"])
def test_details_with_an_authorization_hook_take_the_bundle_plan(name):
    """Not the row-built plan: the hook gets the found object, as in ``obj_get``."""
    assert resource("zf", name).list_plan(request()) is not None
    assert type(resource("zf", name).detail_plan(request())) is BundlePlan


def test_every_format_the_serializer_writes_is_served_by_the_plans():
    """XML, YAML, plist and JSONP: the serializer writes the plan's page data."""
    from tastypie_djony.serve.plans import RowPlan

    animal = resource("zf", "animal")
    for query in ("?format=xml", "?format=yaml", "?format=plist", "?callback=f"):
        assert type(animal.list_plan(request(f"/{query}"))) is RowPlan, query


def _tampered(monkeypatch):
    """The served pages' JSON renders one name wrong (the lists' and the details' renderer)."""
    from tastypie_djony import convert
    from tastypie_djony.serve import detail, lists

    original = convert.render_json

    def render(data):
        return original(data).replace('"Zebra"', '"Zebu"')

    monkeypatch.setattr(lists, "render_json", render)
    monkeypatch.setattr(detail, "render_json", render)


@pytest.mark.parametrize("url", ["/zf/animal/", "/zf/animal/{a0}/"])
def test_a_difference_fails_loudly(zoo, monkeypatch, url):  # noqa: F811
    _tampered(monkeypatch)
    url = url.format(**zoo.ids)
    view = resource("zf", "animal").wrap_view(
        "dispatch_list" if url.count("/") == 3 else "dispatch_detail"
    )
    kwargs = {"resource_name": "animal", "api_name": "zf"}
    if url.count("/") > 3:
        kwargs["pk"] = str(zoo.ids["a0"])
    with pytest.raises(FastPathMismatch, match=r"fast path's body differs.*Zebu.*Zebra"):
        view(request(url, SERVER_NAME="testserver"), **kwargs)


@override_settings(DJONY_VERIFY_FAST_PATH=False)
def test_without_verification_the_fast_answer_is_served(zoo, monkeypatch):  # noqa: F811
    _tampered(monkeypatch)
    response = zoo.get("animal/", "zf")
    names = [item["name"] for item in json.loads(response.content)["objects"]]
    assert "Zebu" in names


def test_verification_accepts_rows_the_ordering_does_not_decide_between() -> None:
    from tastypie_djony.serve.verify import _same_rows_in_another_order

    page = b'{"meta": {"total_count": 2}, "objects": [{"id": 1}, {"id": 2}]}'
    swapped = b'{"meta": {"total_count": 2}, "objects": [{"id": 2}, {"id": 1}]}'
    assert _same_rows_in_another_order(page, swapped)
    assert not _same_rows_in_another_order(page, swapped.replace(b'"id": 1', b'"id": 3'))
    assert not _same_rows_in_another_order(page, swapped.replace(b"2}, ", b"3}, "))


@pytest.mark.parametrize("api_name", ["zf", "zg"])
def test_a_resource_that_has_served_requests_can_be_copied(zoo, api_name):  # noqa: F811
    """Tastypie deep-copies resources (a related field keeps the resource it made, and
    each new instance copies its class's fields); what a resource builds on first use
    (URI templates holding the resolver, plans) is left to the copy to build again."""
    import copy

    zoo.check("hooked_animal/<a1>/")
    zoo.check("full_hooked_animal/")
    served = resource(api_name, "full_hooked_animal")
    copied = copy.deepcopy(served)
    assert not any(name.startswith("_djony_") for name in vars(copied))
    answer = copied.get_list(request("/zf/full_hooked_animal/"))
    assert answer.status_code == 200


def test_a_full_related_resource_with_the_off_switch_keeps_its_own_dehydrate(monkeypatch):
    """``Meta.fast_path = False`` on a ``full=True`` related resource: no nested plan for it."""
    from tastypie_djony.serve.plans import BundlePlan
    from tastypie_djony.sources import ObjectSource, source_for
    from tastypie_djony.sources.nested import NestedOneSource

    owner = resource("zf", "full_hooked_animal")
    plan = owner.bundle_plan(request())
    keeper = owner.fields["keeper"]
    assert isinstance(source_for(plan.plan, "keeper", keeper), NestedOneSource)
    related = keeper.get_related_resource(None)
    monkeypatch.setattr(related._meta, "fast_path", False, raising=False)
    for cache in keeper._rel_resources.values():
        monkeypatch.setattr(cache._meta, "fast_path", False, raising=False)
    source = source_for(plan.plan, "keeper", keeper)
    assert isinstance(source, ObjectSource)
    assert source.declined == "keeper: its related resource is not served by plans"
    assert isinstance(plan, BundlePlan)


def test_a_stock_django_authorization_detail_is_served_from_the_row(zoo, monkeypatch):  # noqa: F811
    """It needs the model class only: the row-built plan, answering as ModelResource does."""
    from django.contrib.auth.models import User
    from tastypie.authorization import DjangoAuthorization

    from tastypie_djony.serve.plans import RowPlan
    from tastypie_djony.stock import MODEL_CLASS, detail_authorization

    for api in ("zm", "zf"):  # the reference and its DjonyResource twin alike
        monkeypatch.setattr(resource(api, "animal")._meta, "authorization", DjangoAuthorization())
    animal = resource("zf", "animal")
    assert detail_authorization(animal) == MODEL_CLASS
    assert type(animal.detail_plan(request())) is RowPlan
    url = f"animal/{zoo.ids['a0']}/"
    answers = {api: zoo.get(url, api) for api in ("zm", "zf")}
    assert answers["zm"].status_code == answers["zf"].status_code == 401
    zoo.client.force_login(User.objects.create_superuser("boss", "boss@example.com", "pw"))
    answers = {api: zoo.get(url, api) for api in ("zm", "zf")}
    assert answers["zm"].status_code == 200
    body = answers["zm"].content.replace(b"/zm/", b"/zf/")
    assert (answers["zf"].status_code, answers["zf"].content) == (200, body)
