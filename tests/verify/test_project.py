"""``djony_verify`` tells the truth on a real project: a run that compared nothing or
only errors fails with one line saying why; shapes seen in open-source Tastypie APIs
(a plain ``Api`` under a namespaced include, a raising ``handler500``) are compared and
explained in a note, a list URI another view answers is not compared; ``--user`` gets
through each stock authentication.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import override_settings
from django.urls import include, path
from tastypie.api import Api
from tastypie.authentication import (
    ApiKeyAuthentication,
    BasicAuthentication,
    MultiAuthentication,
    SessionAuthentication,
)
from tastypie.authorization import Authorization
from tastypie.constants import ALL
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify import verdict
from tastypie_djony.verify.differences import Answer
from tastypie_djony.verify.effects import takes_the_time
from tastypie_djony.verify.generation import Request
from tastypie_djony.verify.report import ResourceSummary
from tastypie_djony.verify.running import Outcome
from tests.testapp.models import Country, Tag
from tests.verify.helpers import verify

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.test_project")]


class TagResource(ModelResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "tag"
        filtering = {"name": ALL}
        authorization = Authorization()


class KeyTagResource(TagResource):
    class Meta(TagResource.Meta):
        resource_name = "keytag"
        authentication = ApiKeyAuthentication()


class BasicTagResource(DjonyResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "basictag"
        authentication = BasicAuthentication()


class SessionTagResource(TagResource):
    class Meta(TagResource.Meta):
        resource_name = "sessiontag"
        authentication = SessionAuthentication()


class MultiTagResource(TagResource):
    class Meta(TagResource.Meta):
        resource_name = "multitag"
        authentication = MultiAuthentication(BasicAuthentication(), ApiKeyAuthentication())


class GuardedCountryResource(ModelResource):
    """A ``wrap_view`` of the project's own that raises outside Tastypie's error handling."""

    class Meta:
        queryset = Country.objects.all()
        resource_name = "guarded"

    def wrap_view(self, view):
        inner = super().wrap_view(view)

        def guarded(request, *args, **kwargs):
            if request.path.endswith("/schema/"):
                raise RuntimeError("the guard refuses schemas")
            return inner(request, *args, **kwargs)

        return guarded


def handler500(request):
    """The project's error page, broken (wger's first run aborted on one like it)."""
    raise LookupError("the 500 template is missing")


open_api = Api(api_name="open")
open_api.register(TagResource())
open_api.register(GuardedCountryResource())
auth_api = Api(api_name="auth")
for resource in (KeyTagResource, BasicTagResource, SessionTagResource, MultiTagResource):
    auth_api.register(resource())


class HiddenTagResource(TagResource):
    class Meta(TagResource.Meta):
        pass  # its own Meta: Api.register() writes api_name into it


hidden = Api(api_name="hidden")
hidden.register(HiddenTagResource())


class ShadowedTagResource(TagResource):
    class Meta(TagResource.Meta):
        resource_name = "shadowed"


def shadowing_page(request):
    """A project view mounted in front of the API (the resource never answers)."""
    return HttpResponse("<html>home</html>")


shadowed = Api(api_name="shadow")
shadowed.register(ShadowedTagResource())
urlpatterns = [
    path("api/shadow/shadowed/", shadowing_page, name="home"),
    path("api/", include(shadowed.urls)),
    path("api/", include(open_api.urls)),
    path("api/", include(auth_api.urls)),
    # pinry's shape: a plain Api under a namespace, which ModelResource's reverse() ignores
    path("ns/", include((hidden.urls, "hidden"), namespace="hidden")),
]


@pytest.fixture
def rows():
    for name in ("alpha", "beta", "gamma", "delta"):
        Tag.objects.create(name=name)
    Country.objects.create(code="de", name="Germany")
    return User.objects.create_user("ada", password="unused")


def test_allowed_hosts_without_testserver_is_a_one_line_failure(rows):
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "localhost"]):
        run = verify("--resource", "/api/open/tag/")
        assert run.code == 1
        assert run.reason.startswith("ALLOWED_HOSTS lacks 'testserver'")
        assert "\n" not in run.reason
        allowed = verify("--resource", "/api/open/tag/", "--host", "localhost")
    assert allowed.code == 0, allowed.out
    assert allowed.resource("/api/open/tag/")["identical"] > 20


def test_an_authenticated_api_without_user_says_pass_user(rows):
    run = verify("--resource", "/api/auth/keytag/")
    assert run.code == 1
    assert run.reason.endswith("every answer was 401: pass --user USERNAME"), run.reason
    assert "/api/auth/keytag/" in run.reason and "\n" not in run.reason


@pytest.mark.parametrize("uri", ["keytag", "basictag", "sessiontag", "multitag"])
def test_user_gets_through_every_stock_authentication(rows, uri):
    run = verify("--resource", f"/api/auth/{uri}/", "--user", "ada")
    assert run.code == 0, run.out
    figures = run.resource(f"/api/auth/{uri}/")
    assert figures["identical"] > 20 and figures["different"] == 0
    assert not run.report["notes"]


def test_a_custom_authentication_is_named_and_reached_through_the_hook(rows):
    run = verify("--resource", "/api/auth/keytag/", "--user", "ada", "--credentials",
                 "tests.verify.test_project.no_credentials")  # fmt: skip
    assert run.code == 0, run.out  # the hook gave nothing: the stock ApiKey rule applied


def no_credentials(authentication, user):
    assert isinstance(authentication, ApiKeyAuthentication) and user.username == "ada"
    return None


def test_a_list_uri_another_view_answers_is_not_compared_and_a_namespaced_api_is(rows, settings):
    """The resource no request reaches is named with the reason, counted on a line of its
    own, and leaves the exit status to the resources that were compared; the plain Api
    mounted under a namespace (pinry's shape) is compared, with a note on its '' URIs."""
    # The root URLconf's handler500 on both sides (see the handler500 test below).
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if "URLconfPerAPI" not in m]
    run = verify("--user", "ada")
    assert run.code == 0, run.out
    assert run.report["exit_status"] == 0 and run.report["failure"] is None
    assert run.report["not_compared"] == [
        "ShadowedTagResource: its list URI /api/shadow/shadowed/ is served by home, "
        "not by this resource",
    ]
    assert all(r["resource"] for r in run.report["resources"])  # never counted as resource ''
    assert len(run.report["resources"]) == 7
    assert run.resource("/ns/hidden/tag/")["identical"] > 20
    assert run.out.splitlines()[-1] == (
        'Not compared: 1 of 8 resources (each named above after "not compared:").'
    )


def test_a_plain_api_under_a_namespace_is_compared_and_its_empty_uris_explained(rows):
    run = verify("--resource", "/ns/")
    assert run.code == 0, run.out
    figures = run.resource("/ns/hidden/tag/")
    assert figures["different"] == 0 and figures["identical"] > 20
    [note] = [n for n in run.report["notes"] if n.startswith("namespaced:")]
    assert note == (
        "namespaced: /ns/hidden/tag/: HiddenTagResource reverses 'api_dispatch_list' without "
        "a namespace, but its API is mounted under the namespace 'hidden': its "
        "get_resource_uri() and every URI of it in the answers are '' on both sides "
        "(compared at the URI its list URL has there; a _build_reverse_url that reverses "
        "through it, as NamespacedModelResource's does with "
        "NamespacedApi(urlconf_namespace='hidden'), or a mount without a namespace would "
        "give the URIs)"
    )
    assert f"\n{note}\n" in run.out
    assert HiddenTagResource().get_resource_uri() == ""  # what the note says, in Tastypie


def test_a_list_uri_answered_by_another_view_is_not_compared(rows):
    run = verify("--resource", "/api/shadow/")
    assert run.code == 1
    assert run.reason == (
        "nothing was compared (ShadowedTagResource: its list URI /api/shadow/shadowed/ "
        "is served by home, not by this resource)"
    )
    assert run.report["resources"] == []


def test_the_twin_machinery_raising_is_a_failure_of_its_own():
    answer = Answer(500, {}, b"", exception="AttributeError: as_object_list\n  x.py:1 in f",
                    in_djony=True)  # fmt: skip
    summary = ResourceSummary("/api/open/tag/", "DjonyResource")
    request = Request("/api/open/tag/", "GET", "/api/open/tag/")
    summary.outcomes.append(Outcome(request, {"ModelResource": answer, "DjonyResource": answer},
                                    None))  # fmt: skip
    assert verdict.reason([summary], [], None) == (
        "the ModelResource side of GET /api/open/tag/ raised inside tastypie_djony "
        "(AttributeError: as_object_list): a djony_verify bug, please report it"
    )


def test_a_raising_handler500_is_reported_per_request(rows, settings):
    # The suite's URLconf-per-API middleware would hide the root URLconf's handler500.
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if "URLconfPerAPI" not in m]
    run = verify("--resource", "/api/open/guarded/")
    figures = run.resource("/api/open/guarded/")
    assert figures["requests"] > 10  # the run went on after the failing requests
    [note] = [n for n in run.report["notes"] if "error handling raised" in n]
    assert "LookupError: the 500 template is missing" in note
    assert "GET /api/open/guarded/schema/" in note
    assert run.code == 0, run.out  # both sides fail the same way there: a note, no difference


def test_an_answer_carries_only_its_own_request_s_exception(rows, settings):
    """A request whose error handling raised out of Django's client leaves the exception
    in the shared client: the next request's answer must not carry it (wger's DjonyResource
    400s were blamed with ModelResource's 500 template error)."""
    from tastypie_djony.verify.running import Runner

    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if "URLconfPerAPI" not in m]
    runner = Runner("default")
    broken = runner._request(Request("/api/open/guarded/", "GET", "/api/open/guarded/schema/"), {})
    assert broken.status == 500 and "LookupError" in broken.exception
    fine = runner._request(Request("/api/open/tag/", "GET", "/api/open/tag/"), {})
    assert fine.status == 200
    assert not fine.exception


def test_a_slower_resource_says_where_the_time_goes():
    """Only when DjonyResource was slower in nine rounds of ten, with the paths it took."""
    from tastypie_djony.verify.timing import Speed

    summary = ResourceSummary("/api/open/tag/", "ModelResource")
    summary.served_by = {"list": "the row-built plan", "detail": "Tastypie's general path: x"}
    summary.speed = Speed(0.8, 0.6, 0.95, 2.0, 2.5, requests=3, rounds=15)
    assert summary.where_the_time_goes() == (
        "/api/open/tag/: DjonyResource is slower here (0.80x, 0.60-0.95 over 15 rounds); "
        "lists: the row-built plan; details: Tastypie's general path: x"
    )
    summary.speed = Speed(0.8, 0.6, 1.2, 2.0, 2.5, requests=3, rounds=15)
    assert summary.where_the_time_goes() is None  # faster in some rounds: not told slower
    assert summary.as_json()["timing"]["p90"] == 1.2


def test_the_time_of_a_write_is_masked():
    from tests.testapp.models import Book

    assert takes_the_time(Book._meta.get_field("published"))  # default=timezone.now
    assert not takes_the_time(Book._meta.get_field("title"))
    assert not takes_the_time(User._meta.get_field("last_login"))  # no default at all
    assert takes_the_time(User._meta.get_field("date_joined"))
