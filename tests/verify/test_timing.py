"""djony_verify's speed figures: rounds of each base's turn, a median of paired ratios, a
spread.

A figure comes only from enough rounds; a resource is called slower only when
DjonyResource was slower in nine rounds of ten; the summary is the median over resources.
"""

from __future__ import annotations

import gc
import itertools
import time

from tastypie_djony.verify.timing import (
    MIN_ROUNDS,
    Speed,
    frozen_heap,
    median_ceiling,
    median_speedup,
    time_requests,
)


def _sender(seconds: dict):
    """A ``send`` answering each side's time from ``seconds`` (side -> iterator)."""
    calls = []

    def send(side, request):
        calls.append((side, request))
        return next(seconds[(side, request)])

    return send, calls


def _collections():
    """A ``collect`` for :func:`time_requests` that counts its calls (a full collection
    in the suite's large process costs about a second)."""
    made = []
    return made, lambda: made.append(None)


def test_both_sides_of_every_request_each_round_and_the_median_of_paired_ratios() -> None:
    seconds = {
        ("mr", "a"): itertools.cycle([0.004, 0.004, 0.040]),  # one slow round of ModelResource
        ("dj", "a"): itertools.cycle([0.002]),
        ("mr", "b"): itertools.cycle([0.003]),
        ("dj", "b"): itertools.cycle([0.001]),
    }
    send, calls = _sender(seconds)
    requests = {"/r/": [("a", ["mr", "dj"]), ("b", ["mr", "dj"])]}
    collections, collect = _collections()
    (speed,) = time_requests(
        send, requests, rounds=9, deadline=time.monotonic() + 60, collect=collect
    ).values()
    assert len(calls) == 9 * 2 * 2
    assert len(collections) == 9 * 2  # before each base's turn
    assert speed.rounds == 9 and speed.requests == 2
    assert speed.speedup == 2.5  # the median of a's 2.0 and b's 3.0, the slow round ignored
    assert speed.low <= 2.0 and speed.high >= 3.0
    assert not speed.slower


def test_each_round_sends_every_request_on_one_side_then_on_the_other() -> None:
    """Each request follows requests of its own base (as on a server running one base), in
    the same order on both sides; which side goes first changes between rounds."""
    seconds = {
        (side, request): itertools.cycle([0.001])
        for side in ("mr", "dj")
        for request in ("a", "b", "c", "d")
    }
    send, calls = _sender(seconds)
    requests = {
        "/r/": [("a", ["mr", "dj"]), ("b", ["mr", "dj"])],
        "/s/": [("c", ["mr", "dj"]), ("d", ["mr", "dj"])],
    }
    rounds = 12
    collected_at = []  # how many requests were sent at each collection
    time_requests(
        send,
        requests,
        rounds=rounds,
        deadline=time.monotonic() + 60,
        collect=lambda: collected_at.append(len(calls)),
    )
    assert collected_at == list(range(0, rounds * 8, 4))  # before each turn of four
    firsts = set()
    for number in range(rounds):
        turns = calls[number * 8 : number * 8 + 4], calls[number * 8 + 4 : number * 8 + 8]
        for turn in turns:
            assert len({side for side, _ in turn}) == 1, turn  # one base's turn
        assert [r for _, r in turns[0]] == [r for _, r in turns[1]]  # the same order
        assert sorted(r for _, r in turns[0]) == ["a", "b", "c", "d"]
        firsts.add(turns[0][0][0])
    assert firsts == {"mr", "dj"}


def test_too_few_rounds_give_no_figure() -> None:
    send, _ = _sender(
        {("mr", "a"): itertools.cycle([0.001]), ("dj", "a"): itertools.cycle([0.002])}
    )
    requests = {"/r/": [("a", ["mr", "dj"])]}
    _, collect = _collections()
    speeds = time_requests(
        send, requests, rounds=MIN_ROUNDS - 1, deadline=time.monotonic() + 60, collect=collect
    )
    assert speeds == {"/r/": None}
    speeds = time_requests(
        send, requests, rounds=MIN_ROUNDS, deadline=time.monotonic() - 1, collect=collect
    )
    assert speeds == {"/r/": None}  # the deadline passed before the first round


def test_slower_only_when_nine_rounds_of_ten_say_so_and_the_median_over_resources() -> None:
    assert Speed(0.7, 0.5, 0.9, 1, 1.4, requests=2, rounds=10).slower
    assert not Speed(0.7, 0.5, 1.1, 1, 1.4, requests=2, rounds=10).slower
    speeds = [Speed(x, x, x, 1, 1, requests=1, rounds=10) for x in (1.0, 2.0, 3.0, 4.0, 10.0)]
    median, low, high = median_speedup(speeds)
    assert median == 3.0 and low < 2.0 and high > 4.0
    assert median_speedup([]) is None


def test_the_summary_per_kind_of_request_shows_what_a_resource_s_median_hides() -> None:
    """A resource whose list page is 12x faster and whose detail, set and schema are not:
    1.0x as a resource, 12x for list pages in the summary by kind."""
    from tastypie_djony.verify.generation import Request
    from tastypie_djony.verify.report import ResourceSummary, speedup_by_kind_line

    paths = {
        "/api/r/": 12.0,
        "/api/r/?limit=0": 40.0,
        "/api/r/1/": 1.0,
        "/api/r/set/1;2/": 1.0,
        "/api/r/schema/": 0.9,
    }
    seconds, requests = {}, []
    for path, ratio in paths.items():
        request = Request("/api/r/", "GET", path)
        seconds[("mr", request)] = itertools.cycle([0.001 * ratio])
        seconds[("dj", request)] = itertools.cycle([0.001])
        requests.append((request, ["mr", "dj"]))
    send, _ = _sender(seconds)
    _, collect = _collections()
    (speed,) = time_requests(
        send,
        {"/api/r/": requests},
        rounds=MIN_ROUNDS,
        deadline=time.monotonic() + 60,
        collect=collect,
    ).values()
    assert speed.speedup == 1.0
    summary = ResourceSummary("/api/r/", "DjonyResource")
    summary.speed = speed
    line = speedup_by_kind_line([summary])
    assert line.endswith(
        "list pages 12.00x (1), limit=0 40.00x (1), details 1.00x (1), set/ 1.00x (1), "
        "schema/ 0.90x (1)"
    )


def test_the_summary_over_every_timed_request_counts_those_below_0_9x() -> None:
    from tastypie_djony.verify.generation import Request
    from tastypie_djony.verify.report import ResourceSummary, requests_line

    summaries = []
    for uri, ratios in {"/api/a/": (2.0, 3.0, 0.8), "/api/b/": (1.5, 0.85)}.items():
        summary = ResourceSummary(uri, "DjonyResource")
        timed = tuple((Request(uri, "GET", f"{uri}{n}/"), r) for n, r in enumerate(ratios))
        summary.speed = Speed(1, 1, 1, 1, 1, requests=len(ratios), rounds=5, by_request=timed)
        summaries.append(summary)
    line = requests_line(summaries)
    assert line.startswith("Over the 5 timed requests: a median speed-up of 1.50x (")
    assert "), 40.0% of them below 0.9x (" in line
    assert requests_line([]) is None


def test_picked_takes_each_kind_in_turn_up_to_the_number_asked_or_all() -> None:
    from tastypie_djony.verify.timing import PER_RESOURCE, picked

    class Outcome:
        def __init__(self, path, status=200, identical=True):
            self.request = type("R", (), {"writes": False, "path": path})()
            self.identical, self.improved = identical, False
            self.answers = {"m": type("A", (), {"status": status})()}

    outcomes = [Outcome(f"/d/{n}/") for n in range(9)] + [Outcome(f"/l/?x={n}") for n in range(9)]
    outcomes += [Outcome("/l/?bad=1", status=400), Outcome("/l/?odd=1", identical=False)]
    kind = lambda request: request.path[:3]  # noqa: E731
    chosen = picked(outcomes, kind)
    assert len(chosen) == PER_RESOURCE
    assert [r.path[:3] for r in chosen[:4]] == ["/d/", "/l/", "/d/", "/l/"]
    assert len(picked(outcomes, kind, 3)) == 3
    every = picked(outcomes, kind, 0)
    assert len(every) == 18 and {r.path for r in every} == {o.request.path for o in outcomes[:18]}


def test_a_third_side_times_the_requests_outside_the_resource_and_gives_its_ceiling() -> None:
    """The side answering outside the resource's code runs in a turn of its own, in the
    same rounds; each request's ceiling is ModelResource's time over it."""
    seconds = {
        ("mr", "a"): itertools.cycle([0.006]),
        ("dj", "a"): itertools.cycle([0.003]),
        ("out", "a"): itertools.cycle([0.002]),
        ("mr", "b"): itertools.cycle([0.010]),
        ("dj", "b"): itertools.cycle([0.002]),
        ("out", "b"): itertools.cycle([0.001]),
    }
    send, calls = _sender(seconds)
    requests = {"/r/": [("a", ["mr", "dj", "out"]), ("b", ["mr", "dj", "out"])]}
    rounds = 12
    collected_at = []
    (speed,) = time_requests(
        send,
        requests,
        rounds=rounds,
        deadline=time.monotonic() + 60,
        collect=lambda: collected_at.append(len(calls)),
    ).values()
    assert collected_at == list(range(0, rounds * 6, 2))  # before each of three turns of two
    firsts = set()
    for number in range(rounds):
        turns = [calls[number * 6 + start : number * 6 + start + 2] for start in (0, 2, 4)]
        assert sorted(turn[0][0] for turn in turns) == ["dj", "mr", "out"]
        assert all(len({side for side, _ in turn}) == 1 for turn in turns)
        firsts.add(turns[0][0][0])
    assert firsts == {"mr", "dj", "out"}  # any side may go first
    assert speed.speedup == 3.5  # the median of a's 2.0 and b's 5.0
    assert speed.outside_ms == 1.5  # the median of 2 ms and 1 ms
    assert speed.ceiling == 6.5  # the median of a's 3.0 and b's 10.0
    assert dict(speed.ceilings) == {"a": 3.0, "b": 10.0}
    assert speed.as_json()["outside_ms"] == 1.5 and speed.as_json()["ceiling"] == 6.5
    # inside the resource: a (6 - 2) / (3 - 2) = 4, b (10 - 1) / (2 - 1) = 9; the median
    assert speed.inside == 6.5 and speed.as_json()["inside_speedup"] == 6.5


def test_without_a_third_side_there_is_no_ceiling() -> None:
    send, _ = _sender(
        {("mr", "a"): itertools.cycle([0.002]), ("dj", "a"): itertools.cycle([0.001])}
    )
    _, collect = _collections()
    (speed,) = time_requests(
        send, {"/r/": [("a", ["mr", "dj"])]}, rounds=MIN_ROUNDS,
        deadline=time.monotonic() + 60, collect=collect,
    ).values()  # fmt: skip
    assert speed.speedup == 2.0
    assert speed.outside_ms is None and speed.ceiling is None and speed.ceilings == ()
    assert speed.inside is None
    assert median_ceiling([speed]) is None


def test_the_summary_says_what_the_requests_cost_outside_the_resources_and_the_ceiling() -> None:
    from tastypie_djony.verify.generation import Request
    from tastypie_djony.verify.report import ResourceSummary, ceiling_line, speedup_by_kind_line

    summaries = []
    for uri, outside, model in (("/api/r/", 0.001, 0.004), ("/api/s/", 0.002, 0.004)):
        detail, page = Request(uri, "GET", f"{uri}1/"), Request(uri, "GET", uri)
        seconds = {
            ("mr", detail): itertools.cycle([model]),
            ("dj", detail): itertools.cycle([model / 2]),
            ("out", detail): itertools.cycle([outside]),
            ("mr", page): itertools.cycle([model * 10]),
            ("dj", page): itertools.cycle([model]),
            ("out", page): itertools.cycle([outside]),
        }
        send, _ = _sender(seconds)
        _, collect = _collections()
        (speed,) = time_requests(
            send,
            {uri: [(detail, ["mr", "dj", "out"]), (page, ["mr", "dj", "out"])]},
            rounds=MIN_ROUNDS,
            deadline=time.monotonic() + 60,
            collect=collect,
        ).values()
        summary = ResourceSummary(uri, "DjonyResource")
        summary.speed = speed
        summaries.append(summary)
    # ceilings r 22x, s 11x; inside: r's detail (4 - 1) / (2 - 1) = 3, page 39 / 3 = 13,
    # its median 8; s's detail (4 - 2) / (2 - 2): none, page 38 / 2 = 19
    assert median_ceiling([s.speed for s in summaries]) == (1.5, 16.5, 13.5)
    line = ceiling_line(summaries)
    assert line.startswith("Outside the resources' code (")
    assert (
        "): 1.50 ms a request, so no base could answer them more than 16.50x faster than "
        "ModelResource; inside the resources' code DjonyResource answered 13.50x faster ("
    ) in line
    by_kind = speedup_by_kind_line(summaries)
    assert by_kind.endswith(  # details: r at most 4x, s 2x; list pages: r 40x, s 20x
        "list pages 10.00x (2, at most 30.00x), details 2.00x (2, at most 3.00x)"
    )
    assert summaries[0].as_json()["timed"] == [
        {"path": "/api/r/1/", "speedup": 2.0, "ceiling": 4.0},
        {"path": "/api/r/", "speedup": 10.0, "ceiling": 40.0},
    ]
    # Per resource, by kind, from the timed rounds (not the comparison's one answer each).
    assert summaries[0].as_json()["speedup_by_kind"] == {
        "detail": {"speedup": 2.0, "requests": 1},
        "list": {"speedup": 10.0, "requests": 1},
    }


class _Cycle:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_the_heap_is_frozen_for_the_rounds_and_given_back_after() -> None:
    before = _Cycle()
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        assert gc.get_freeze_count() > 0  # what lived before the rounds: not walked
        made = _Cycle()
        assert gc.is_tracked(made) and gc.is_tracked(before)
        del made
        assert gc.collect() >= 1  # what the rounds leave is still collected
    assert gc.get_freeze_count() == 0
    del before
    assert gc.collect() >= 1  # and what lived before is collectable again


def test_a_heap_the_process_froze_itself_is_left_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with frozen_heap():
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen  # not given back: the process froze it
    finally:
        gc.unfreeze()
