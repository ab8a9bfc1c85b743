"""``djony_verify`` end to end on the pattern corpus (:mod:`tests.patterns`): every resource
of both APIs (``/v2/`` on ModelResource, ``/v3/`` on DjonyResource, generic relations
included) is compared with its twin and found the same, and the run exits 0 as its JSON
report says; the generic relations also with writes."""

from __future__ import annotations

import pytest

from tests.patterns import seed, testing
from tests.patterns.api import APIS
from tests.verify.helpers import verify

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.patterns.urls")]

GENERIC = ("rating", "ratedquote", "quote", "memo")


@pytest.fixture
def rows():
    testing.create_users()
    seed.create()


def test_every_resource_of_the_corpus_is_compared_and_the_same(rows):
    mounted = sorted(
        f"/{name}/{resource}/" for name, api in APIS.items() for resource in api._registry
    )
    run = verify("--user", "alice", "--max-requests", str(12 * len(mounted)))
    assert run.code == 0, run.out
    assert run.report["exit_status"] == 0 and run.report["failure"] is None
    assert [r["resource"] for r in run.report["resources"]] == mounted
    for figures in run.report["resources"]:
        assert figures["requests"] >= 12 and figures["different"] == 0, figures
    assert run.report["not_compared"] == [] and run.report["not_sent"] == []
    assert run.out.splitlines()[-2] == "Every answer is the same on both bases."
    [bound] = run.report["left_out"]  # each resource's tail, past its first 12 requests
    assert bound["option"] == "--max-requests" and set(bound["by_resource"]) == set(mounted)
    assert run.out.splitlines()[-1] == (
        f"Not compared: {bound['requests']} requests cut off by --max-requests "
        "(per resource above)."
    )


def test_generic_relations_read_and_written_on_both_bases(rows):
    prefixes = [arg for name in GENERIC for arg in ("--resource", f"/v2/{name}/")]
    prefixes += [arg for name in GENERIC for arg in ("--resource", f"/v3/{name}/")]
    run = verify("--writes", "--user", "alice", *prefixes)
    assert run.code == 0, run.out
    assert sorted(r["resource"] for r in run.report["resources"]) == sorted(
        f"/{api}/{name}/" for api in ("v2", "v3") for name in GENERIC
    )
    for figures in run.report["resources"]:
        assert figures["different"] == 0 and figures["identical"] > 15, figures
        assert figures["writes_succeeded_on_both_sides"] >= 2, figures
    posted = [w for w in run.report["writes"] if w["resource"].endswith("/rating/")]
    assert any('"content_object": "/v' in w["body"] and w["identical"] for w in posted)
