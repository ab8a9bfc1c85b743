"""A/B: the main endpoints' speed under two commits, measured side by side in one run.

    python -m benchmarks.ab main .                      # main against this checkout as it is
    python -m benchmarks.ab 2a5a2de HEAD                # two commits
    python -m benchmarks.ab main . --database postgres://postgres@127.0.0.1/djony_ab
    python -m benchmarks.ab main . --cases detail,entry-detail --rounds 100

``A`` and ``B`` are git revisions (each checked out in a temporary worktree, removed at
the end) or ``.``, this checkout's files as they are, uncommitted changes included.  Each
side runs in a process of its own whose ``djony`` and ``tastypie_djony`` are that side's
and whose ``benchmarks`` and ``example_project`` are this checkout's: the same resources,
raw-SQL floors and data on both sides (one database, seeded once), only the library
differs.  Each process reports where it imported the library from before anything runs.

Every case (:data:`CASES`: the users API's detail, default page and list, with and without
a no-op ``dehydrate()``; the tutorial's ``EntryResource``) is served by ModelResource
(``v2``), DjonyResource (``v3``) and the raw-SQL floor (``raw``).  Before timing, on each
side, DjonyResource and the floor must answer ModelResource's bytes, and ModelResource
must answer the same bytes on both sides.  Then rounds: in each, every case in a
shuffled order, and for each case both sides one after the other (in a random order),
each timing the three flavours once (shuffled, ``gc.collect()`` first), so load on a
shared machine hits A and B alike.  ModelResource's lists (about 0.5 s each) are timed in
every ``--v2-every``-th round only.

The report gives, per case and side, the medians and the queries of one request, then
medians of per-round ratios (each of two requests made moments apart, so load that comes
and goes cancels out) with their interquartile range: DjonyResource against ModelResource
(``v2 / v3``, higher is better) and against the floor (``v3 / raw``, lower is better), and
the change from A to B, B's DjonyResource time over A's, with the 95% confidence interval
of that median; ``slower`` or ``faster`` when the interval excludes no change.  The same
ratio for the floor, whose code is the same on both sides, is the control: near 1 unless
the two processes themselves differ (then run again, or with A and B swapped).  It is a
tool to run on a change of the serving path (see ``docs/contributing.md``), not a
pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ("djony", "tastypie_djony")
SHARED = ("benchmarks", "example_project")
FLAVOURS = ("v2", "v3", "raw")
CHECKOUT = "."


@dataclass(frozen=True)
class Case:
    """One endpoint, served by ModelResource, DjonyResource and the floor."""

    name: str
    what: str
    #: a users-API endpoint of :data:`benchmarks.targets.ENDPOINTS`, or a tutorial case
    source: str
    variant: str = "plain"  # of :data:`benchmarks.targets.ALL_VARIANTS`
    tutorial: bool = False
    slow: bool = False  # ModelResource's time is long: timed every --v2-every rounds


CASES = (
    Case("detail", "users API: detail of user 3 (159 permissions)", "detail"),
    Case("hooked-detail", "users API, no-op dehydrate(): detail", "detail", variant="hooked"),
    Case("page", "users API: default page (20)", "page"),
    Case("list", "users API: list of 1000 (limit=0)", "list", slow=True),
    Case("hooked-list", "users API, no-op dehydrate(): list of 1000", "list", "hooked", slow=True),
    Case("entry-detail", "tutorial EntryResource: detail", "entry-detail", tutorial=True),
    Case("entry-page", "tutorial EntryResource: default page (20)", "entry-page", tutorial=True),
)
CASES_BY_NAME = {case.name: case for case in CASES}


class Refused(Exception):
    """Nothing is timed: a side failed, answered otherwise, or loaded the wrong code."""


@dataclass
class Side:
    """One revision and the worker process serving it."""

    label: str
    rev: str
    commit: str
    subject: str
    library: Path  # the tree whose djony/ and tastypie_djony/ this side serves
    worktree: Path | None = None  # made for this run, removed at its end
    process: subprocess.Popen | None = None
    log: IO[str] | None = None
    origin: dict[str, str] = field(default_factory=dict)  # the worker's hello
    checked: dict[str, Any] = field(default_factory=dict)  # per case: digest, queries
    samples: dict[str, dict[str, dict[int, float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(dict))
    )

    def ask(self, command: dict[str, Any]) -> Any:
        assert self.process is not None and self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise Refused(f"{self.label} ({self.rev}): the worker ended\n{self.log_tail()}")
        answer = json.loads(line)
        if isinstance(answer, dict) and "error" in answer:
            raise Refused(f"{self.label} ({self.rev}): {answer['error']}")
        return answer

    def log_tail(self, lines: int = 30) -> str:
        if self.log is None:
            return ""
        self.log.flush()
        return "\n".join(Path(self.log.name).read_text().splitlines()[-lines:])

    def describe(self) -> str:
        return f"{self.label} = {self.rev} ({self.commit} {self.subject})"


def git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def make_side(label: str, rev: str, scratch: Path) -> Side:
    """The side of ``rev``: a detached worktree of it in ``scratch``, or this checkout."""
    if rev == CHECKOUT:
        dirty = " with uncommitted changes" if git("status", "--porcelain") else ""
        commit = git("rev-parse", "--short", "HEAD")
        return Side(label, rev, commit, f"(this checkout{dirty})", ROOT)
    try:
        commit = git("rev-parse", "--short", "--verify", f"{rev}^{{commit}}")
    except subprocess.CalledProcessError:
        raise Refused(f"{label}: {rev!r} is no commit of this repository") from None
    subject = git("log", "-1", "--format=%s", commit)
    worktree = scratch / f"{label}-{commit}"
    git("worktree", "add", "--detach", str(worktree), commit)
    return Side(label, rev, commit, subject[:70], worktree, worktree=worktree)


def start(side: Side, scratch: Path, args: argparse.Namespace) -> None:
    """The worker of ``side``, in a directory linking its library and the shared code."""
    run_dir = scratch / f"{side.label}-run"
    run_dir.mkdir()
    for name in LIBRARY:
        (run_dir / name).symlink_to(side.library / name, target_is_directory=True)
    for name in SHARED:
        (run_dir / name).symlink_to(ROOT / name, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DATABASE_URL")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    side.log = open(scratch / f"{side.label}.log", "w+")  # noqa: SIM115 (closed in main)
    command = [sys.executable, "-m", "benchmarks.ab_worker", args.database]
    command += [str(args.users), str(args.entries), str(args.authors), args.user]
    side.process = subprocess.Popen(
        command,
        cwd=run_dir,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=side.log,
        text=True,
    )
    hello = side.ask({"op": "hello"})
    for name in LIBRARY:
        expected = os.path.realpath(side.library / name)
        if hello[name] != expected:
            raise Refused(f"{side.label}: {name} imported from {hello[name]}, not {expected}")
    side.origin = hello


def median_ci(values: list[float]) -> tuple[float, float, float]:
    """The median and its distribution-free 95% confidence interval: the order statistics
    of ranks n/2 -/+ 1.96 sqrt(n)/2 (the normal approximation of the binomial), widened to
    whole ranks."""
    ordered = sorted(values)
    n = len(ordered)
    half = 1.96 * math.sqrt(n) / 2
    low = max(math.floor(n / 2 - half) - 1, 0)  # rank j (from 1) at index j - 1
    high = min(math.ceil(n / 2 + half), n - 1)  # rank k + 1, the upper bound, at index k
    return statistics.median(ordered), ordered[low], ordered[high]


def paired(a: dict[int, float], b: dict[int, float]) -> list[float]:
    return [a[r] / b[r] for r in a if r in b]


def iqr(values: list[float]) -> str:
    if len(values) < 4:
        return f"{min(values):.2f}-{max(values):.2f}" if values else ""
    q = statistics.quantiles(values, n=4)
    return f"{q[0]:.2f}-{q[2]:.2f}"


def ms(times: dict[int, float]) -> float:
    return statistics.median(times.values()) * 1000


def report(cases: list[Case], a: Side, b: Side) -> None:
    print("\n### Medians, ms\n")
    print("| case | A v2 | A v3 | A raw | B v2 | B v3 | B raw | queries v2, v3, raw: A; B |")
    print("|---|" + "---:|" * 7)
    for case in cases:
        cells = [f"{ms(side.samples[case.name][f]):.2f}" for side in (a, b) for f in FLAVOURS]
        queries = [
            ", ".join(str(side.checked[case.name]["queries"][f]) for f in FLAVOURS)
            for side in (a, b)
        ]
        cells.append("; ".join(queries))
        print(f"| {case.name} | " + " | ".join(cells) + " |")
    print(
        "\n### Medians of the per-round ratios [their IQR]: DjonyResource against ModelResource"
        " (v2 / v3, higher is better) and the floor (v3 / raw, lower is better); B's"
        " DjonyResource time against A's, and the floor's (the same code on both sides: a"
        " control) [95% CI]\n"
    )
    print(
        "| case | A v2 / v3 | B v2 / v3 | A v3 / raw | B v3 / raw | B v3 / A v3 | |"
        " control: B raw / A raw |"
    )
    print("|---|" + "---:|" * 5 + "---|---:|")
    for case in cases:
        cells = []
        for over, under in (("v2", "v3"), ("v3", "raw")):
            for side in (a, b):
                s = side.samples[case.name]
                ratios = paired(s[over], s[under])
                cells.append(f"{statistics.median(ratios):.2f}x [{iqr(ratios)}]")
        change = median_ci(paired(b.samples[case.name]["v3"], a.samples[case.name]["v3"]))
        middle, low, high = change
        verdict = "slower" if low > 1 else "faster" if high < 1 else "same within noise"
        control = median_ci(paired(b.samples[case.name]["raw"], a.samples[case.name]["raw"]))
        cells += [interval(change), verdict, interval(control)]
        print(f"| {case.name} | " + " | ".join(cells) + " |")
    print(
        "\nA change is only the code's when the control stays near 1: a control off 1 says"
        " the two processes differ (run again, or with A and B swapped)."
    )


def interval(value: tuple[float, float, float]) -> str:
    middle, low, high = value
    return f"{middle:.3f} [{low:.3f}-{high:.3f}]"


def measure(cases: list[Case], a: Side, b: Side, args: argparse.Namespace) -> None:
    for case in cases:  # warm-up, not recorded
        for side in (a, b):
            for _ in range(3):
                side.ask({"op": "time", "case": case.name, "flavours": list(FLAVOURS)})
    for round_number in range(args.rounds):
        order = list(cases)
        random.shuffle(order)
        for case in order:
            flavours = [
                f
                for f in FLAVOURS
                if f != "v2" or not case.slow or round_number % max(args.v2_every, 1) == 0
            ]
            sides = [a, b]
            random.shuffle(sides)
            for side in sides:
                answer = side.ask({"op": "time", "case": case.name, "flavours": flavours})
                for flavour, seconds in answer.items():
                    side.samples[case.name][flavour][round_number] = seconds
        if (round_number + 1) % 10 == 0:
            print(f"  {round_number + 1} of {args.rounds} rounds", file=sys.stderr)


def run(args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    cases = [CASES_BY_NAME[n] for n in args.cases.split(",")] if args.cases else list(CASES)
    sides: list[Side] = []
    try:
        sides.extend(
            make_side(label, rev, scratch) for label, rev in (("A", args.a), ("B", args.b))
        )
        a, b = sides
        for side in sides:  # one after the other: A migrates and seeds, B finds it done
            start(side, scratch, args)
        for side in sides:
            side.checked = side.ask(
                {"op": "check", "cases": [c.name for c in cases], "flavours": FLAVOURS}
            )
        for case in cases:
            if a.checked[case.name]["digest"] != b.checked[case.name]["digest"]:
                raise Refused(f"{case.name}: ModelResource answers differently on A and B")
        load = os.getloadavg()[0]
        origin = a.origin
        print(f"{a.describe()}\n{b.describe()}")
        print(
            f"{origin['vendor']}, Django {origin['django']}, tastypie {origin['tastypie']}, "
            f"Python {origin['python']}; {args.users} users, {args.entries} entries; "
            f"{args.rounds} rounds (ModelResource's lists every {args.v2_every}); bodies "
            "identical to ModelResource's on both sides"
        )
        measure(cases, a, b, args)
        print(f"load average (1 min): {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
        report(cases, a, b)
        return {
            side.label: {
                "rev": side.rev,
                "commit": side.commit,
                "samples": {
                    c: {f: sorted(t.values()) for f, t in s.items()}
                    for c, s in side.samples.items()
                },
            }
            for side in sides
        }
    finally:
        for side in sides:
            stop(side)


def stop(side: Side) -> None:
    """The worker ended (asked to quit, killed if it does not) and the worktree removed."""
    if side.process is not None:
        if side.process.poll() is None:
            assert side.process.stdin is not None
            try:
                side.process.stdin.write(json.dumps({"op": "quit"}) + "\n")
                side.process.stdin.close()
            except BrokenPipeError:
                print(f"{side.label}: the worker had stopped reading", file=sys.stderr)
        try:
            side.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            side.process.kill()
            side.process.wait()
    if side.log is not None:
        side.log.close()
    if side.worktree is not None:
        git("worktree", "remove", "--force", str(side.worktree))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="git revision, or '.' for this checkout as it is")
    parser.add_argument("b", help="git revision, or '.' for this checkout as it is")
    parser.add_argument(
        "--database",
        default=f"sqlite:///{ROOT / 'benchmarks' / 'ab.sqlite3'}",
        help="database URL, shared by both sides (default: a SQLite file in benchmarks/); "
        "a PostgreSQL database must exist",
    )
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--cases", help="comma-separated, of: " + ", ".join(CASES_BY_NAME))
    parser.add_argument("--v2-every", type=int, default=3, help="ModelResource's lists' rounds")
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--authors", type=int, default=50)
    parser.add_argument("--json", help="write every sample (seconds) to this file")
    parser.add_argument(
        "--as", dest="user", choices=("demo", "editor"), default="demo",
        help="whose ApiKey the tutorial's requests carry (benchmarks.tutorial.USERS)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    unknown = set(args.cases.split(",")) - set(CASES_BY_NAME) if args.cases else set()
    if unknown:
        sys.exit(f"unknown cases {sorted(unknown)}; choose from {', '.join(CASES_BY_NAME)}")
    scratch = Path(tempfile.mkdtemp(prefix="djony-ab-"))
    try:
        result = run(args, scratch)
    except Refused as error:
        sys.exit(f"not timing: {error}")
    finally:
        shutil.rmtree(scratch)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
