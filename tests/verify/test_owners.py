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
import signal
import sys
import threading

import django
import tastypie.resources

import tastypie_djony.resources
from djony.serving import INSIDE_DJANGO_CALLS
from tastypie_djony.verify import timing
from tastypie_djony.verify.owners import Owners, project_shares
from tastypie_djony.verify.report import ResourceSummary, own_code_line, table
from tastypie_djony.verify.timing import Speed


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


def _view(work):
    """Plays the resource's view: the project's code counts inside it only."""
    return work()


def _captured(work) -> list:
    frames = []
    work(lambda *args, **kwargs: frames.append(sys._getframe().f_back))
    return frames


def test_a_library_frame_belongs_to_its_caller_and_only_the_view_is_the_resource():
    owners = Owners()
    request, view = _within.__code__, _view.__code__

    def sample(frame):
        return owners.sample(frame, request, view)

    # json's decoder (a library) calling back: its caller inside the view is the
    # project (this test's lambda).
    (in_library,) = _captured(
        lambda hook: _within(lambda: _view(lambda: json.loads('{"a": 1}', object_pairs_hook=hook)))
    )
    assert owners.of(in_library.f_code.co_filename) is None
    assert sample(in_library) == "project"

    # The same library, called by djony's code inside the view (``time_requests``
    # calling its ``collect``): the resource's, not the project's.
    def djony_calls_json(hook):
        collect = functools.partial(json.loads, '{"a": 1}', object_pairs_hook=hook)
        requests = {"/r/": [("a", ["mr", "dj"])]}
        return _within(
            lambda: _view(
                lambda: timing.time_requests(lambda *_: 1.0, requests, 1, 1e18, collect=collect)
            )
        )

    assert sample(_captured(djony_calls_json)[0]) == "resource"

    # The project's code in the request but not in the view (its middleware): outside.
    (middleware,) = _captured(lambda hook: _within(hook))
    assert sample(middleware) == "outside"

    # Outside the request's call: not counted at all.
    (outside,) = _captured(lambda hook: hook())
    assert sample(outside) is None


def _busy_in_the_project(rounds: int = 30_000) -> int:
    total = 0
    for number in range(rounds):
        total += number % 7
    return total


def test_the_share_of_each_resource_is_the_project_code_it_ran():
    """One resource spends its requests in the project's Python loop inside its view,
    another in a C sort its view calls, a third in the project's code outside any view
    (its middleware): nearly all, nearly none, and no figure."""
    data = list(range(60_000, 0, -1))

    def request(work):
        return _within(functools.partial(_view, work))

    work = {
        "project": functools.partial(request, _busy_in_the_project),
        "library": functools.partial(request, functools.partial(sorted, data, key=str)),
        "middleware": functools.partial(_within, _busy_in_the_project),
    }
    threads = threading.active_count()
    shares = project_shares(
        lambda side, request: work[request](),
        {f"/{name}/": [(name, "dj")] for name in work},
        deadline=float("inf"),
        within=_within.__code__,
        view=_view.__code__,
    )
    assert shares["/project/"] > 0.9
    assert shares["/library/"] < 0.1
    assert shares["/middleware/"] is None  # never in the view: no figure, not 0%
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL  # put back
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert threading.active_count() == threads  # no thread looked at another's stack


def test_no_share_where_the_alarm_is_in_use():
    """A SIGALRM handler of the project's (pytest-timeout's signal method): left alone, and
    no share measured."""

    def own(_signum, _frame):
        raise AssertionError("the project's alarm went off")

    previous = signal.signal(signal.SIGALRM, own)
    try:
        shares = project_shares(
            lambda side, request: _within(functools.partial(_view, _busy_in_the_project)),
            {"/project/": [("a", "dj")]},
            deadline=float("inf"),
            within=_within.__code__,
            view=_view.__code__,
        )
        assert shares == {"/project/": None}
        assert signal.getsignal(signal.SIGALRM) is own
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_too_few_samples_give_no_share():
    shares = project_shares(
        lambda side, request: None, {"/quick/": [("a", "dj")]}, 0, within=_within.__code__
    )
    assert shares == {"/quick/": None}


def test_the_report_gives_the_share_per_resource_their_median_and_the_ceiling_with_it():
    summaries = []
    for uri, share in (("/api/a/", 0.86), ("/api/b/", 0.04), ("/api/c/", 0.30), ("/api/d/", None)):
        summary = ResourceSummary(uri, "DjonyResource")
        summary.own_code = share
        summaries.append(summary)
    line = own_code_line(summaries)
    assert "sampled on DjonyResource: 30% of a request's time (median over 3 resources; " in line
    assert line.endswith("the most, 86%, /api/a/). It runs as on ModelResource")  # no timing
    rows = table(summaries).splitlines()
    assert "own code" in rows[0]
    assert rows[1].split()[-4] == "86%" and rows[4].split()[-4] == "-"
    assert summaries[0].as_json()["own_code_share"] == 0.86
    assert summaries[3].as_json()["own_code_share"] is None
    assert own_code_line([summaries[3]]) is None

    # With the timing's figures: ModelResource 4 ms, DjonyResource 2 ms, 1 ms outside;
    # the project's code half of DjonyResource's 2 ms, so 1 ms: at most 4 / (1 + 1) = 2x.
    speed = Speed(
        speedup=2.0, low=1.5, high=2.5, model_ms=4.0, djony_ms=2.0, requests=1, rounds=5,
        outside_ms=1.0, ceilings=(("/api/e/1/", 4.0),),
    )  # fmt: skip
    timed = ResourceSummary("/api/e/", "DjonyResource", speed=speed, own_code=0.5)
    assert timed.own_code_ceiling() == 2.0
    assert timed.as_json()["own_code_ceiling"] == 2.0
    assert summaries[0].own_code_ceiling() is None  # not timed
    assert own_code_line([timed]).endswith(
        "It runs as on ModelResource: with it and the time outside them as they are, no base "
        "could answer them more than 2.00x faster than ModelResource (median over the resources)"
    )
