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
from tests.verify.project.models import Reaction, Story, Writer
from tests.verify.project.resources import StoryResource

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.project.urls")]

COMPARED = [
    "/api/project/djonyreaction/",
    "/api/project/genre/",
    "/api/project/profile/",
    "/api/project/publisher/",
    "/api/project/reaction/",
    "/api/project/story/",
    "/api/project/writer/",
]
NOT_COMPARED = [
    "ShelfmarkResource: a plain Resource (neither ModelResource nor DjonyResource): it has "
    "no twin to compare it with",
    "StoryCountResource: its twin cannot be built: StoryCountResource on DjonyResource: "
    "ImproperlyConfigured: DjonyResource StoryCountResource: Meta.queryset uses "
    "values()/values_list(), which no resource can serve (its objects are dicts or tuples, "
    "not model instances; ModelResource answers 500). Return objects (filter()/exclude()/"
    "order_by()/annotate()/union() ...), and compute other values in a dehydrate_<field>() "
    "method.",
]
KEPT = [
    "StoryResource.genre_names: its related resource comes from a callable, which has no "
    "twin; the twin's field uses genre_resource as the original's does",
    "StoryResource.shelfmark: ShelfmarkResource is a plain Resource (neither ModelResource "
    "nor DjonyResource): it has no twin; the twin's field uses ShelfmarkResource as the "
    "original's does",
]
NOT_COMPARED_LINE = 'Not compared: 2 of 9 resources (each named above after "not compared:").'


@pytest.fixture
def rows():
    seed.create()


def test_every_resource_with_a_twin_is_compared_and_the_same(rows):
    before = list(Reaction.objects.order_by("pk").values())
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
    assert list(Reaction.objects.order_by("pk").values()) == before


def test_writes_to_a_generic_foreign_key_are_compared_on_both_bases(rows):
    run = verify("--writes", "--resource", "/api/project/reaction/",
                 "--resource", "/api/project/djonyreaction/")  # fmt: skip
    assert run.code == 0, run.out
    writes = [w for w in run.report["writes"] if w["method"] == "POST"]
    assert {w["resource"] for w in writes} == {
        "/api/project/reaction/",
        "/api/project/djonyreaction/",
    }
    for write in writes:  # a new reaction to the story the first row points at
        assert '"target": "/api/project/story/' in write["body"]
        assert write["identical"] and write["ModelResource"] == write["DjonyResource"] == 201
    assert Reaction.objects.count() == 5


def test_a_difference_fails_the_run_whatever_was_not_compared(rows, monkeypatch):
    def dehydrate(self, bundle):
        bundle.data["served_by"] = "pony" if isinstance(self, DjonyResource) else "django"
        return bundle

    monkeypatch.setattr(StoryResource, "dehydrate", dehydrate)
    run = verify("--resource", "/api/project/story/", "--resource", "/api/project/shelfmark/")
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
        if field.model is Writer and field.name == "name":
            raise RuntimeError("no values for this one")
        return term_values(term, samples, field)

    monkeypatch.setattr(generation, "term_values", failing)
    run = verify("--resource", "/api/project/writer/", "--resource", "/api/project/story/")
    assert run.code == 0, run.out
    [reason] = run.report["not_compared"]
    assert reason.startswith(
        "WriterResource: its requests cannot be made: field 'name': RuntimeError: no values "
        "for this one (raised at tests/verify/test_related_fields.py:"
    ), reason
    assert [r["resource"] for r in run.report["resources"]] == ["/api/project/story/"]


def test_a_bug_of_the_command_says_so(rows, monkeypatch):
    monkeypatch.setattr(generation, "text_term_value", None)  # calling it raises TypeError
    run = verify("--resource", "/api/project/writer/", "--resource", "/api/project/profile/")
    [reason] = run.report["not_compared"]
    assert reason.startswith(
        "WriterResource: its requests cannot be made: field 'name': TypeError: 'NoneType' "
        "object is not callable (raised at tastypie_djony/verify/generation.py:"
    ), reason
    assert reason.endswith(": a djony_verify bug, please report it")
    assert run.code == 0 and [r["resource"] for r in run.report["resources"]] == [
        "/api/project/profile/"
    ]


def test_a_request_that_raises_inside_the_command_is_not_sent_and_the_run_goes_on(
    rows, monkeypatch
):
    def no_copies(model, source, key, using):
        raise RuntimeError(f"no copy of {model.__name__} {source}")

    monkeypatch.setattr(copies, "make", no_copies)
    run = verify("--writes", "--resource", "/api/project/story/")
    assert run.code == 0, run.out
    not_sent = run.report["not_sent"]
    assert {n["request"].split(" ", 1)[0] for n in not_sent} == {"PUT", "PATCH", "DELETE"}
    first = Story.objects.order_by("pk").first().pk
    assert all(n["reason"].startswith(f"RuntimeError: no copy of Story {first} (raised at ")
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
    run = verify("--resource", "/api/project/genre/")
    assert run.code == 1
    assert run.reason == (
        "nothing was compared (GenreResource: its list URI /api/project/genre/ is not served "
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
        '127.0.0.1 - - [02/Dec/2026] "GET /api/project/reaction/?kind=like HTTP/1.1" 200 9\n'
        "/api/project/reaction/1/\n"
        "/elsewhere/\n"
    )
    run = verify("--resource", "/api/project/reaction/", "--from-log", str(log))
    assert run.code == 0, run.out
    [figures] = run.report["resources"]
    plain = verify("--resource", "/api/project/reaction/")
    assert figures["requests"] == plain.resource("/api/project/reaction/")["requests"] + 2
    missing = verify("--from-log", str(tmp_path / "nowhere.log"))
    assert missing.code == 1 and missing.reason.endswith("nowhere.log: no such file.")
