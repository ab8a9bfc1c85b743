"""``djony_verify`` end to end on a project with every related field Tastypie has
(:mod:`tests.verify.project`): a ``GenericForeignKeyField`` over two models on both bases,
``'self'``, dotted paths, a callable ``to``, callable attributes, a plain ``Resource``.

Every resource with a twin is compared, reads and writes; the two without one (a plain
``Resource``; a ``ModelResource`` whose ``values()`` queryset DjonyResource refuses) are
named with the reason and counted on a line of their own, and the exit status is what the
report says: 0 when every answer compared is the same, 1 when one differs.  Trouble inside
the command (a field it cannot make requests for, a request that raises) leaves that
resource or request out, named, and the run goes on.
"""

from __future__ import annotations

import pytest

from tastypie_djony.management.commands import djony_verify
from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify import copies, generation
from tests.verify.helpers import verify
from tests.verify.project import seed
from tests.verify.project.models import Poem, Poet, Response
from tests.verify.project.resources import PoemResource

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.project.urls")]

COMPARED = [  # in URL order: Tastypie's Api mounts its resources by name
    "/api/project/biography/",
    "/api/project/djonyresponse/",
    "/api/project/imprint/",
    "/api/project/poem/",
    "/api/project/poet/",
    "/api/project/response/",
    "/api/project/theme/",
]
NOT_COMPARED = [
    "ShelfmarkResource: a plain Resource (neither ModelResource nor DjonyResource): it has "
    "no twin to compare it with",
    "PoemCountResource: its twin cannot be built: PoemCountResource on DjonyResource: "
    "ImproperlyConfigured: DjonyResource PoemCountResource: Meta.queryset uses "
    "values()/values_list(), which no resource can serve (its objects are dicts or tuples, "
    "not model instances; ModelResource answers 500). Return objects (filter()/exclude()/"
    "order_by()/annotate()/union() ...), and compute other values in a dehydrate_<field>() "
    "method.",
]
KEPT = [
    "PoemResource.theme_names: its related resource comes from a callable, which has no "
    "twin; the twin's field uses theme_resource as the original's does",
    "PoemResource.shelfmark: ShelfmarkResource is a plain Resource (neither ModelResource "
    "nor DjonyResource): it has no twin; the twin's field uses ShelfmarkResource as the "
    "original's does",
]
NOT_COMPARED_LINE = 'Not compared: 2 of 9 resources (each named above after "not compared:").'


@pytest.fixture
def rows():
    seed.create()


def test_every_resource_with_a_twin_is_compared_and_the_same(rows):
    before = list(Response.objects.order_by("pk").values())
    run = verify("--writes")
    assert run.code == 0, run.out
    assert run.report["exit_status"] == 0 and run.report["failure"] is None
    assert [r["resource"] for r in run.report["resources"]] == COMPARED
    for figures in run.report["resources"]:
        assert figures["different"] == 0 and figures["not_sent"] == 0, figures
        assert figures["identical"] > 20, figures
        assert figures["writes_succeeded_on_both_sides"] >= 2, figures
    assert run.report["not_compared"] == NOT_COMPARED
    assert run.report["related_kept"] == KEPT
    assert run.report["not_sent"] == []
    lines = run.out.splitlines()
    assert lines[-2:] == ["Every answer is the same on both bases.", NOT_COMPARED_LINE]
    for reason in NOT_COMPARED:
        assert f"not compared: {reason}" in lines
    for kept in KEPT:
        assert f"related kept: {kept}" in lines
    assert list(Response.objects.order_by("pk").values()) == before


def test_writes_to_a_generic_foreign_key_are_compared_on_both_bases(rows):
    run = verify("--writes", "--resource", "/api/project/response/",
                 "--resource", "/api/project/djonyresponse/")  # fmt: skip
    assert run.code == 0, run.out
    writes = [w for w in run.report["writes"] if w["method"] == "POST"]
    assert {w["resource"] for w in writes} == {
        "/api/project/response/",
        "/api/project/djonyresponse/",
    }
    for write in writes:  # a new response to the poem the first row points at
        assert '"target": "/api/project/poem/' in write["body"]
        assert write["identical"] and write["ModelResource"] == write["DjonyResource"] == 201
    assert Response.objects.count() == 5


def test_a_difference_fails_the_run_whatever_was_not_compared(rows, monkeypatch):
    def dehydrate(self, bundle):
        bundle.data["served_by"] = "pony" if isinstance(self, DjonyResource) else "django"
        return bundle

    monkeypatch.setattr(PoemResource, "dehydrate", dehydrate)
    run = verify("--resource", "/api/project/poem/", "--resource", "/api/project/shelfmark/")
    assert run.code == 1
    assert run.reason.endswith("answers differ"), run.reason
    assert run.report["exit_status"] == 1 and run.report["failure"] == run.reason
    assert run.report["not_compared"] == NOT_COMPARED[:1]
    assert run.out.splitlines()[-1] == (
        'Not compared: 1 of 2 resources (each named above after "not compared:").'
    )


def test_a_field_the_command_cannot_make_requests_for_names_the_resource_and_field(
    rows, monkeypatch
):
    term_values = generation.term_values

    def failing(term, samples, field):
        if field.model is Poet and field.name == "name":
            raise RuntimeError("no values for this one")
        return term_values(term, samples, field)

    monkeypatch.setattr(generation, "term_values", failing)
    run = verify("--resource", "/api/project/poet/", "--resource", "/api/project/poem/")
    assert run.code == 0, run.out
    [reason] = run.report["not_compared"]
    assert reason.startswith(
        "PoetResource: its requests cannot be made: field 'name': RuntimeError: no values "
        "for this one (raised at tests/verify/test_related_fields.py:"
    ), reason
    assert [r["resource"] for r in run.report["resources"]] == ["/api/project/poem/"]


def test_a_bug_of_the_command_says_so(rows, monkeypatch):
    monkeypatch.setattr(generation, "text_term_value", None)  # calling it raises TypeError
    run = verify("--resource", "/api/project/poet/", "--resource", "/api/project/biography/")
    [reason] = run.report["not_compared"]
    assert reason.startswith(
        "PoetResource: its requests cannot be made: field 'name': TypeError: 'NoneType' "
        "object is not callable (raised at tastypie_djony/verify/generation.py:"
    ), reason
    assert reason.endswith(": a djony_verify bug, please report it")
    assert run.code == 0 and [r["resource"] for r in run.report["resources"]] == [
        "/api/project/biography/"
    ]


def test_a_request_that_raises_inside_the_command_is_not_sent_and_the_run_goes_on(
    rows, monkeypatch
):
    def no_copies(model, source, key, using):
        raise RuntimeError(f"no copy of {model.__name__} {source}")

    monkeypatch.setattr(copies, "make", no_copies)
    run = verify("--writes", "--resource", "/api/project/poem/")
    assert run.code == 0, run.out
    not_sent = run.report["not_sent"]
    assert {n["request"].split(" ", 1)[0] for n in not_sent} == {"PUT", "PATCH", "DELETE"}
    first = Poem.objects.order_by("pk").first().pk
    assert all(n["reason"].startswith(f"RuntimeError: no copy of Poem {first} (raised at ")
               for n in not_sent)  # fmt: skip
    [figures] = run.report["resources"]
    assert figures["not_sent"] == len(not_sent) and figures["identical"] > 20
    assert run.out.splitlines()[-1] == (
        f'Not compared: {len(not_sent)} requests (each named above after "not sent:").'
    )


def test_twins_no_request_reaches_are_not_compared_never_identical(rows, monkeypatch):
    """A twin the copied URLconf does not serve would leave both sides the original's."""
    from tests.verify.project import urls

    monkeypatch.setattr(djony_verify, "twin_urlconf", lambda stand_ins: urls)
    run = verify("--resource", "/api/project/theme/")
    assert run.code == 1
    assert run.reason == (
        "nothing was compared (ThemeResource: its list URI /api/project/theme/ is not served "
        "by its twin in the twins' URLconf (a URL pattern djony_verify cannot copy?))"
    )


def test_an_error_outside_any_resource_stops_the_run_with_what_it_was_doing(monkeypatch):
    def broken():
        raise RuntimeError("the URLconf walk broke")

    monkeypatch.setattr(djony_verify.discovery, "find_resources", broken)
    run = verify()
    assert run.code == 2
    assert run.reason.startswith(
        "djony_verify stopped while reading the URLconf: RuntimeError: the URLconf walk "
        "broke (raised at tests/verify/test_related_fields.py:"
    ), run.reason


def test_logged_paths_are_replayed_below_their_resource(rows, tmp_path):
    log = tmp_path / "access.log"
    log.write_text(
        '127.0.0.1 - - [02/Dec/2026] "GET /api/project/response/?kind=like HTTP/1.1" 200 9\n'
        "/api/project/response/1/\n"
        "/elsewhere/\n"
    )
    run = verify("--resource", "/api/project/response/", "--from-log", str(log))
    assert run.code == 0, run.out
    [figures] = run.report["resources"]
    plain = verify("--resource", "/api/project/response/")
    assert figures["requests"] == plain.resource("/api/project/response/")["requests"] + 2
    missing = verify("--from-log", str(tmp_path / "nowhere.log"))
    assert missing.code == 1 and missing.reason.endswith("nowhere.log: no such file.")
