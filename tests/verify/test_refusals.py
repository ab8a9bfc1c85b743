"""``djony_verify`` on resources that take POSTs only (oppia's register and tracker
resources): their GETs answer 405 on both sides, which is reported as "not readable", does
not fail the run and is not timed; a difference in what they do serve still fails it, and
a run that read nothing fails with the reason."""

from __future__ import annotations

import gc

import pytest
from django.urls import include, path
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.constants import ALL
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify import timing, verdict
from tastypie_djony.verify.differences import Answer
from tastypie_djony.verify.generation import Request
from tastypie_djony.verify.refusals import not_readable
from tastypie_djony.verify.report import ResourceSummary, request_kind
from tastypie_djony.verify.running import Outcome
from tests.testapp.models import Country, Tag
from tests.verify.helpers import verify

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.test_refusals")]


class TagResource(ModelResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "tag"
        filtering = {"name": ALL}
        authorization = Authorization()


class SignupResource(TagResource):
    """POSTs only, on the list and on details."""

    class Meta(TagResource.Meta):
        resource_name = "signup"
        allowed_methods = ["post"]


class InboxResource(DjonyResource):
    """POSTs to the list, GETs of a detail."""

    class Meta:
        queryset = Tag.objects.all()
        resource_name = "inbox"
        list_allowed_methods = ["post"]
        detail_allowed_methods = ["get"]
        authorization = Authorization()


class DivergingSignupResource(DjonyResource):
    """POSTs only; what Tastypie still serves of it (``set/``) says which base serves it."""

    class Meta:
        queryset = Country.objects.all()
        resource_name = "divergingsignup"
        allowed_methods = ["post"]

    def dehydrate(self, bundle):
        bundle.data["served_by"] = "pony" if isinstance(self, DjonyResource) else "django"
        return bundle


api = Api(api_name="posts")
for resource in (TagResource, SignupResource, InboxResource, DivergingSignupResource):
    api.register(resource())
urlpatterns = [path("api/", include(api.urls))]


@pytest.fixture
def rows():
    for name in ("alpha", "beta", "gamma", "delta"):
        Tag.objects.create(name=name)
    Country.objects.create(code="de", name="Germany")
    Country.objects.create(code="fr", name="France")


def test_a_post_only_resource_is_not_readable_passes_and_is_not_timed(rows):
    run = verify("--resource", "/api/posts/tag/", "--resource", "/api/posts/signup/",
                 "--rounds", "5", "--timing-seconds", "60")  # fmt: skip
    assert run.code == 0, run.out
    assert run.report["not_readable"] == [
        "/api/posts/signup/: GET answers 405 on both sides (Allow: POST)"
    ]
    assert "\nnot readable: /api/posts/signup/: GET answers 405 on both sides" in run.out
    signup = run.resource("/api/posts/signup/")
    assert signup["different"] == 0 and signup["requests"] > 20
    assert signup["timing"] is None and signup["speedup"] is None  # schema/ alone not timed
    assert run.resource("/api/posts/tag/")["timing"] is not None
    assert "median speed-up over 1 resources timed" in run.out
    assert run.out.splitlines()[-1] == "Every answer is the same on both bases."


def test_a_resource_that_refuses_list_gets_only_is_timed_on_its_details(rows, monkeypatch):
    frozen_while_timed = []
    time_requests = timing.time_requests

    def watched(*args, **kwargs):
        frozen_while_timed.append(gc.get_freeze_count())
        return time_requests(*args, **kwargs)

    monkeypatch.setattr(timing, "time_requests", watched)
    run = verify("--resource", "/api/posts/inbox/", "--rounds", "5", "--timing-seconds", "60")
    assert len(frozen_while_timed) == 1 and frozen_while_timed[0] > 0  # (timing.frozen_heap)
    assert gc.get_freeze_count() == 0
    assert run.code == 0, run.out
    assert run.report["not_readable"] == [
        "/api/posts/inbox/: GET of a list answers 405 on both sides (Allow: POST)"
    ]
    figures = run.resource("/api/posts/inbox/")
    assert figures["not_readable"] == "GET of a list answers 405 on both sides (Allow: POST)"
    assert figures["timing"] is not None


def test_a_post_only_resource_whose_answers_differ_still_fails(rows):
    run = verify("--resource", "/api/posts/tag/", "--resource", "/api/posts/divergingsignup/")
    assert run.code == 1 and run.reason.endswith("answers differ"), run.out
    assert {d["resource"] for d in run.report["differences"]} == {"/api/posts/divergingsignup/"}


def test_a_run_that_read_nothing_fails(rows):
    run = verify("--resource", "/api/posts/signup/")
    assert run.code == 1
    assert run.reason == (
        "nothing read was compared: every resource's GETs answer 405 on both sides "
        "(/api/posts/signup/: GET answers 405 on both sides (Allow: POST))"
    )


def _outcome(path: str, status: int, method: str = "GET") -> Outcome:
    answer = Answer(status, {"Allow": "POST"} if status == 405 else {}, b"{}")
    request = Request("/api/r/", method, path)
    return Outcome(request, {"ModelResource": answer, "DjonyResource": answer}, None)


def test_405s_on_both_sides_are_not_errors_that_prove_nothing_other_errors_are():
    summary = ResourceSummary("/api/r/", "ModelResource")
    summary.outcomes = [_outcome("/api/r/", 405) for _ in range(8)]
    summary.outcomes += [_outcome("/api/r/1/", 200), _outcome("/api/r/2/", 404)]
    summary.not_readable = not_readable(summary.outcomes, lambda r: request_kind(r, "/api/r/"))
    assert str(summary.not_readable) == "GET of a list answers 405 on both sides (Allow: POST)"
    assert verdict.reason([summary], [], None) == ""
    summary.outcomes.append(_outcome("/api/r/3/", 500))  # 2 of the 3 others: errors
    assert verdict.reason([summary], [], None).startswith(
        "/api/r/: 2 of 3 answers were errors on both sides (mostly 404"
    )


def test_every_resource_whose_answers_were_mostly_errors_is_named():
    """The reason names the first such resource in full, then the others (oppia's
    downloaddata and progress answer 400s only)."""
    summaries = []
    for uri, status in [("/api/a/", 400), ("/api/b/", 200), ("/api/c/", 400), ("/api/d/", 500)]:
        summary = ResourceSummary(uri, "ModelResource")
        summary.outcomes = [_outcome(f"{uri}{n}/", status) for n in range(3)]
        summaries.append(summary)
    assert verdict.reason(summaries, [], None) == (
        "/api/a/: 3 of 3 answers were errors on both sides (mostly 400); "
        "and so for 2 more: /api/c/, /api/d/"
    )


def test_too_few_rounds_for_a_speed_figure_are_refused(rows):
    run = verify("--resource", "/api/posts/tag/", "--rounds", "2")
    assert run.code != 0
    assert run.reason == (
        "--rounds 2: a speed figure needs at least 5 rounds (or --timing-seconds 0: no timing)."
    )
    assert (
        verify("--resource", "/api/posts/tag/", "--rounds", "2", "--timing-seconds", "0").code == 0
    )
