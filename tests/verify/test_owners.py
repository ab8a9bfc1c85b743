"""djony_verify's share of the project's own code: whose code a moment of a request is,
and the sampled share of each resource's time.

The project's code is what is neither a library (Django, the standard library, the
packages installed in the environment) nor Tastypie's or djony's; a library's frame
belongs to its caller.  These tests are the project here.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading

import django
import tastypie.resources

import tastypie_djony.resources
from djony.serving import INSIDE_DJANGO_CALLS
from tastypie_djony.verify import timing
from tastypie_djony.verify.owners import Owners, project_shares
from tastypie_djony.verify.report import ResourceSummary, own_code_line, table


def test_each_file_has_its_owner():
    owners = Owners()
    assert owners.of(__file__) is True  # the project's (these tests)
    assert owners.of(tastypie_djony.resources.__file__) is False
    assert owners.of(tastypie.resources.__file__) is False  # Tastypie's, though installed
    assert owners.of(django.__file__) is None
    assert owners.of(json.__file__) is None
    assert owners.of("<frozen importlib._bootstrap>") is None
    for hook in INSIDE_DJANGO_CALLS:  # djony inside Django's own calls: the caller's
        assert owners.of(hook) is None
    # A project under the interpreter's prefix (a system Python's /usr, /usr/src/app) is
    # still the project: only the library directories themselves are libraries.
    assert owners.of(os.path.join(sys.prefix, "src", "app", "views.py")) is True


def _within(work):
    """Plays the request's call: only what runs inside it is looked at."""
    return work()


def _captured(work) -> list:
    frames = []
    work(lambda *args, **kwargs: frames.append(sys._getframe().f_back))
    return frames


def test_a_library_frame_belongs_to_its_caller_and_nothing_outside_the_request_counts():
    owners = Owners()
    within = _within.__code__

    # json's decoder (a library) calling back: its caller inside the request is the
    # project (this test's lambda), then Tastypie's own code would be ours.
    (in_library,) = _captured(
        lambda hook: _within(lambda: json.loads('{"a": 1}', object_pairs_hook=hook))
    )
    assert owners.of(in_library.f_code.co_filename) is None
    assert owners.projects(in_library, within) is True

    # The same library, called by djony's code inside the request (``time_requests``
    # calling its ``collect``): not the project's.
    def djony_calls_json(hook):
        collect = functools.partial(json.loads, '{"a": 1}', object_pairs_hook=hook)
        requests = {"/r/": [("a", ["mr", "dj"])]}
        return _within(
            lambda: timing.time_requests(lambda *_: 1.0, requests, 1, 1e18, collect=collect)
        )

    in_ours = _captured(djony_calls_json)[0]
    assert owners.projects(in_ours, within) is False

    # Outside the request's call: not counted at all.
    (outside,) = _captured(lambda hook: hook())
    assert owners.projects(outside, within) is None


def _busy_in_the_project(rounds: int = 30_000) -> int:
    total = 0
    for number in range(rounds):
        total += number % 7
    return total


def test_the_share_of_each_resource_is_the_project_code_it_ran():
    """One resource spends its requests in the project's Python loop, the other in a C
    sort called straight from the request's call: nearly all and nearly none."""
    data = list(range(60_000, 0, -1))
    work = {
        "project": functools.partial(_within, _busy_in_the_project),
        "library": functools.partial(_within, functools.partial(sorted, data, key=str)),
    }
    switch = sys.getswitchinterval()
    threads = threading.active_count()
    shares = project_shares(
        lambda side, request: work[request](),
        {"/project/": [("project", "dj")], "/library/": [("library", "dj")]},
        _within.__code__,
        deadline=float("inf"),
    )
    assert shares["/project/"] > 0.9
    assert shares["/library/"] < 0.1
    assert sys.getswitchinterval() == switch  # put back
    assert threading.active_count() == threads  # the sampler is gone


def test_too_few_samples_give_no_share():
    shares = project_shares(
        lambda side, request: None, {"/quick/": [("a", "dj")]}, _within.__code__, deadline=0
    )
    assert shares == {"/quick/": None}


def test_the_report_gives_the_share_per_resource_and_their_median():
    summaries = []
    for uri, share in (("/api/a/", 0.86), ("/api/b/", 0.04), ("/api/c/", 0.30), ("/api/d/", None)):
        summary = ResourceSummary(uri, "DjonyResource")
        summary.outcomes = []
        summary.own_code = share
        summaries.append(summary)
    line = own_code_line(summaries)
    assert "sampled on DjonyResource: 30% of a request's time (median over 3 resources; " in line
    assert "the most, 86%, /api/a/)" in line
    rows = table(summaries).splitlines()
    assert "own code" in rows[0]
    assert rows[1].split()[-4] == "86%" and rows[4].split()[-4] == "-"
    assert summaries[0].as_json()["own_code_share"] == 0.86
    assert summaries[3].as_json()["own_code_share"] is None
    assert own_code_line([summaries[3]]) is None
