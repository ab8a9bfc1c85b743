"""Where the time of one tutorial (or real-shapes) request goes (cProfile of N requests).

    python -m benchmarks.profile_tutorial entry-detail           # DjonyResource (v3)
    python -m benchmarks.profile_tutorial entry-page --flavour v2 --requests 500
    python -m benchmarks.profile_tutorial entry-detail --sort tottime --top 40
    python -m benchmarks.profile_tutorial points-page --benchmark realshapes
    python -m benchmarks.profile_tutorial entry-detail --as editor  # a user reading permissions
    python -m benchmarks.profile_tutorial entry-detail --callees apikey.py  # what it calls

The cases are :data:`benchmarks.tutorial.CASES` (``--benchmark realshapes``:
:data:`benchmarks.realshapes.CASES`), on the same data as that benchmark's.  Prints the
functions ranked by cumulative time (``--sort cumulative``, default) or by time spent
in them (``tottime``), per request in microseconds.  cProfile inflates Python-heavy
code relative to C; use it to see *what* runs, and :mod:`benchmarks.tutorial` for
how long.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case")
    parser.add_argument("--flavour", default="v3")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--sort", default="cumulative", choices=("cumulative", "tottime"))
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--database")
    parser.add_argument(
        "--callers", help="also list who calls the functions whose location contains this"
    )
    parser.add_argument(
        "--callees", help="also list what the functions whose location contains this call"
    )
    parser.add_argument("--benchmark", default="tutorial", choices=("tutorial", "realshapes"))
    parser.add_argument("--as", dest="user", default="demo", help="tutorial: whose ApiKey")
    args = parser.parse_args(argv)

    if args.benchmark == "tutorial":
        from benchmarks import tutorial as benchmark

        benchmark.prepare(args.database, 50, 500)
        case = benchmark.CASES_BY_NAME[args.case]
    else:
        from benchmarks import realshapes as benchmark

        benchmark.prepare(args.database)
        (case,) = benchmark.concrete([benchmark.CASES_BY_NAME[args.case]])
    from django.test import Client

    user = (args.user,) if args.benchmark == "tutorial" else ()
    client, extra = Client(), benchmark.headers(*user)
    for _ in range(20):
        benchmark.get(client, args.flavour, case, extra)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(args.requests):
        benchmark.get(client, args.flavour, case, extra)
    profile.disable()
    stats = pstats.Stats(profile)
    width = stats.total_tt / args.requests * 1e6
    print(f"{args.flavour} {case.path}: {width:.0f} us per request under cProfile\n")
    rows = []
    for (filename, line, name), (_cc, calls, tottime, cumtime, _callers) in stats.stats.items():
        where = filename.split("site-packages/")[-1].split("/benchmarks/../")[-1]
        rows.append(
            (tottime if args.sort == "tottime" else cumtime, calls, f"{where}:{line}({name})")
        )
    rows.sort(reverse=True)
    print(f"{'us/request':>10} {'calls/req':>9}  function")
    for seconds, calls, label in rows[: args.top]:
        print(f"{seconds / args.requests * 1e6:10.1f} {calls / args.requests:9.1f}  {label}")
    if args.callers:
        for (filename, line, name), (*_, callers) in stats.stats.items():
            if args.callers not in f"{filename}:{line}({name})":
                continue
            print(f"\ncallers of {filename.split('site-packages/')[-1]}:{line}({name})")
            ranked = sorted(callers.items(), key=lambda item: -item[1][1])
            for (caller_file, caller_line, caller), (_cc, calls, *_rest) in ranked:
                where = caller_file.split("site-packages/")[-1]
                print(f"{calls / args.requests:9.1f}  {where}:{caller_line}({caller})")
    if args.callees:
        _print_callees(stats, args.callees, args.requests)


def _print_callees(stats: pstats.Stats, located: str, requests: int) -> None:
    """What each function whose location contains ``located`` calls, by cumulative time
    spent in those calls from it (per request, microseconds)."""
    stats.calc_callees()
    for (filename, line, name), callees in stats.all_callees.items():
        if located not in f"{filename}:{line}({name})":
            continue
        print(f"\ncallees of {filename.split('site-packages/')[-1]}:{line}({name})")
        ranked = sorted(callees.items(), key=lambda item: -item[1][3])
        for (callee_file, callee_line, callee), (_cc, calls, _tt, cumtime) in ranked:
            where = callee_file.split("site-packages/")[-1]
            print(
                f"{cumtime / requests * 1e6:10.1f} {calls / requests:9.1f}  "
                f"{where}:{callee_line}({callee})"
            )


if __name__ == "__main__":
    main()
