"""``manage.py djony_verify`` on resources of the test app: a clean resource (with a
mixin, an intermediate base and old-style ``super()``) passes, a deliberately diverging
one makes the command exit 1 naming the request, and nothing is changed."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import include, path
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.constants import ALL
from tastypie.resources import ModelResource

from tastypie_djony.management.commands.djony_verify import Command
from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify import discovery, twins
from tests.testapp.models import Country, Tag
from tests.verify import helpers
from tests.verify.helpers import untimed

pytestmark = pytest.mark.django_db


class StampMixin:
    """A user mixin above the resource's base."""

    def dehydrate(self, bundle):
        bundle = super().dehydrate(bundle)
        bundle.data["stamp"] = bundle.data["name"][:1]
        return bundle


class CompanyBase(ModelResource):
    """An intermediate base class, as large projects have."""

    class Meta:
        abstract = True


class TagResource(StampMixin, CompanyBase):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "tag"
        filtering = {"name": ALL, "id": ALL}
        ordering = ["name", "id"]
        authorization = Authorization()
        writes = "django"  # the twin's writes fire Django's signals, as ModelResource's do

    def get_object_list(self, request):
        return super().get_object_list(request)  # the 2013 spelling


class DivergingCountryResource(DjonyResource):
    """Says which base serves it: every answer with a body differs."""

    class Meta:
        queryset = Country.objects.all()
        resource_name = "country"

    def dehydrate(self, bundle):
        bundle.data["served_by"] = "pony" if isinstance(self, DjonyResource) else "django"
        return bundle


clean = Api(api_name="clean")
clean.register(TagResource())
diverging = Api(api_name="diverging")
diverging.register(DivergingCountryResource())
urlpatterns = [path("api/", include(clean.urls)), path("api/", include(diverging.urls))]


@pytest.fixture
def rows():
    for name in ("alpha", "beta", "gamma", "delta"):
        Tag.objects.create(name=name)
    Country.objects.create(code="de", name="Germany")
    Country.objects.create(code="fr", name="France")


def verify(*args: str) -> tuple[str, CommandError | None]:
    out = StringIO()
    try:
        call_command(Command(), *untimed(args), stdout=out, stderr=StringIO())
    except CommandError as error:
        return out.getvalue(), error
    return out.getvalue(), None


@pytest.mark.urls("tests.verify.test_command")
def test_discovery_finds_each_mounted_resource():
    found = discovery.find_resources()
    assert sorted(r.get_resource_uri() for r in found.resources) == [
        "/api/clean/tag/",
        "/api/diverging/country/",
    ]


def test_twin_keeps_mixins_intermediate_bases_and_old_style_super():
    twin = twins.Twins().twin(TagResource)
    order = twin.__mro__
    assert order[1:4] == (TagResource, StampMixin, CompanyBase)
    assert DjonyResource in order and ModelResource not in order
    assert issubclass(twin, TagResource)
    back = twins.Twins().twin(DivergingCountryResource)
    assert ModelResource in back.__mro__ and DjonyResource not in back.__mro__


@pytest.mark.urls("tests.verify.test_command")
def test_a_clean_resource_passes_and_nothing_changes(rows, tmp_path):
    before = list(Tag.objects.order_by("pk").values())
    report = tmp_path / "verify.json"
    out, error = verify("--resource", "/api/clean/", "--writes", "--json", str(report))
    assert error is None, out
    assert "Every answer is the same on both bases." in out
    data = json.loads(report.read_text())
    [resource] = data["resources"]
    assert resource["resource"] == "/api/clean/tag/" and resource["base"] == "ModelResource"
    assert resource["requests"] > 50 and resource["different"] == 0
    assert list(Tag.objects.order_by("pk").values()) == before  # writes were rolled back


@pytest.mark.urls("tests.verify.test_command")
def test_a_diverging_resource_exits_1_and_names_the_request(rows, tmp_path):
    report = tmp_path / "verify.json"
    out, error = verify("--resource", "/api/diverging/", "--json", str(report))
    assert error is not None and error.returncode == 1
    assert "answers differ" in str(error)
    assert "GET /api/diverging/country/" in out
    assert "served_by" in out
    data = json.loads(report.read_text())
    assert data["differences"]
    assert all(d["resource"] == "/api/diverging/country/" for d in data["differences"])


@pytest.mark.urls("tests.verify.test_command")
def test_bounds_and_bad_options(rows):
    out, error = verify("--resource", "/api/clean/", "--max-requests", "7")
    assert error is None
    assert "djony_verify: 7 requests" in out
    _, error = verify("--database", "nowhere")
    assert error is not None and "not in DATABASES" in str(error)
    _, error = verify("--user", "nobody-at-all")
    assert error is not None and "no such user" in str(error)


@pytest.mark.urls("tests.verify.test_command")
def test_timed_per_resource_0_times_every_get_both_bases_answer_the_same_with_a_200(rows):
    timed = ("--resource", "/api/clean/", "--rounds", "5", "--timing-seconds", "60")
    default = helpers.verify(*timed)
    assert default.report["speedup_over_requests"]["requests"] == 6
    every = helpers.verify(*timed, "--timed-per-resource", "0")
    [resource] = every.report["resources"]
    identical_200 = resource["requests"] - resource["different"] - resource["improved"]
    count = every.report["speedup_over_requests"]["requests"]
    assert 6 < count <= identical_200
    assert f"\nOver the {count} timed requests: a median speed-up of " in every.out
    assert "\nOver the 6 timed requests: " in default.out
    _, error = verify("--resource", "/api/clean/", "--timed-per-resource", "-1")
    assert error is not None and "--timed-per-resource must not be negative" in str(error)


@pytest.mark.urls("tests.verify.test_command")
def test_max_requests_says_how_many_requests_of_each_resource_it_cut_off(rows):
    whole = helpers.verify()
    planned = {r["resource"]: r["requests"] for r in whole.report["resources"]}
    assert whole.report["left_out"] == [] and "cut off" not in whole.out
    run = helpers.verify("--max-requests", "7")
    sent = {r["resource"]: r["requests"] for r in run.report["resources"]}
    assert sent == {"/api/clean/tag/": 4, "/api/diverging/country/": 3}  # interleaved
    [bound] = run.report["left_out"]
    cut = {uri: planned[uri] - sent[uri] for uri in planned}
    assert bound == {"option": "--max-requests", "limit": 7, "requests": sum(cut.values()),
                     "by_resource": cut}  # fmt: skip
    total = sum(planned.values())
    assert (
        f"\nnot sent: {total - 7} of {total} requests, cut off by --max-requests 7: "
        f"/api/clean/tag/ {cut['/api/clean/tag/']} of {planned['/api/clean/tag/']}, "
        f"/api/diverging/country/ {cut['/api/diverging/country/']} of "
        f"{planned['/api/diverging/country/']}\n"
    ) in run.out
    assert run.out.splitlines()[-1] == (
        f"Not compared: {total - 7} requests cut off by --max-requests (per resource above)."
    )


@pytest.mark.urls("tests.verify.test_command")
def test_seconds_running_out_says_how_many_requests_were_not_sent(rows):
    run = helpers.verify("--resource", "/api/clean/", "--seconds", "0.000001")
    assert run.code == 1 and run.reason.startswith("nothing was compared")
    [bound] = run.report["left_out"]
    assert bound["option"] == "--seconds" and run.report["stopped_by_seconds"]
    assert bound["requests"] > 50 and list(bound["by_resource"]) == ["/api/clean/tag/"]
    assert "cut off by --seconds 1e-06: /api/clean/tag/" in run.out
