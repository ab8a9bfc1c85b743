"""Tastypie's own test suite as the yardstick of the drop-in promise (issue #10).

Runs the test apps of a Tastypie checkout twice, each app in a process of its
own, as Tastypie's ``tox.ini`` does (``django-admin test <app>.tests
--settings=settings_<app>``, ``-p '*'`` for core):

* ``stock``: Tastypie's settings unchanged;
* ``swapped``: ``"djony"`` and ``"tastypie_djony"`` added to ``INSTALLED_APPS`` and,
  once Django is set up but before any test module or URLconf is imported,
  ``tastypie.resources.ModelResource`` rebound to ``DjonyResource`` (and
  ``NamespacedModelResource`` to a DjonyResource with its namespaced URL
  reversing), so every ``class ...(ModelResource)`` in the test apps becomes
  a DjonyResource with nothing else changed.

The summary gives, per app and variant, how many tests passed and failed, and
the tests that pass stock but fail swapped (with the last line of each
traceback): the list that must be empty or explained.

Get a checkout of Tastypie at the tag of the installed version (0.15.1 is the
one the project supports; ``pip show django-tastypie`` names yours), outside
this repository::

    git clone https://github.com/django-tastypie/django-tastypie /tmp/ys-tastypie
    git -C /tmp/ys-tastypie checkout v0.15.1

(or ``git clone --depth 1 --branch v0.15.1 ...`` for the tag alone).

Tastypie's tests import a few packages of their own (``pip install mock pytz
defusedxml lxml PyYAML biplist python-dateutil Pillow setuptools``; setuptools
provides the ``distutils`` Tastypie's settings import on Python 3.12+).  Run::

    .venv/bin/python scripts/tastypie_yardstick.py /tmp/ys-tastypie
    .venv/bin/python scripts/tastypie_yardstick.py /tmp/ys-tastypie --apps core basic
    .venv/bin/python scripts/tastypie_yardstick.py /tmp/ys-tastypie --apps basic \\
        --only basic.tests.resources.SlugBasedResourceTestCase
    PGDATABASE=djony_ys .venv/bin/python scripts/tastypie_yardstick.py /tmp/ys-tastypie \\
        --database postgresql --json /tmp/ys-pg.json

PostgreSQL takes host, port, user and password from the ``PG*`` variables;
the test database is ``test_<PGDATABASE>_tastypie``.  The exit status is 1
when some test passes stock and fails swapped.  The ``gis`` apps need GDAL
and a spatial database and are not in the default list.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

#: Tastypie's test apps (tests/run_all_tests.sh), without the gis ones.
APPS = (
    "core customuser basic alphanumeric slashless namespaced related validation "
    "content_gfk authorization"
).split()

#: Apps whose test package is not named after the app (run_all_tests.sh).
LABELS = {"related": "related_resource"}

#: Apps whose test modules are not all named test*.py (tox.ini: ``-p '*'``).
PATTERNS = {"core": "*"}

VARIANTS = ("stock", "swapped")
PASSED = ("passed", "skipped", "expected failure")


# -- the child: one app, one variant ------------------------------------------
def configure(app: str, variant: str, database: str) -> None:
    """Load Tastypie's settings module for ``app`` and adjust it before Django reads it."""
    import tastypie  # noqa: F401 (the installed Tastypie, before settings.py puts the checkout's first)

    name = f"settings_{app}"
    os.environ["DJANGO_SETTINGS_MODULE"] = name
    settings = importlib.import_module(name)
    if variant == "swapped":
        settings.INSTALLED_APPS.extend(["djony", "tastypie_djony"])
    if database == "postgresql":
        dbname = os.environ.get("PGDATABASE", "postgres")
        settings.DATABASES = {
            "default": {
                "ENGINE": "django.db.backends.postgresql",
                "NAME": dbname,
                "USER": os.environ.get("PGUSER", "postgres"),
                "PASSWORD": os.environ.get("PGPASSWORD", ""),
                "HOST": os.environ.get("PGHOST", "127.0.0.1"),
                "PORT": os.environ.get("PGPORT", "5432"),
                "TEST": {"NAME": f"test_{dbname}_tastypie"},
            }
        }


def swap_model_resource() -> None:
    """Rebind Tastypie's ``ModelResource`` names to DjonyResource classes."""
    import tastypie.resources as stock

    from tastypie_djony.resources import DjonyResource

    class NamespacedDjonyResource(DjonyResource):
        """DjonyResource reversing URLs in ``Meta.urlconf_namespace``."""

        _build_reverse_url = stock.NamespacedModelResource._build_reverse_url

    stock.ModelResource = DjonyResource
    stock.NamespacedModelResource = NamespacedDjonyResource


class RecordingResult(unittest.TextTestResult):
    """A text result that also keeps each test's outcome and the last line of its traceback."""

    outcomes: dict[str, list[str]] = {}

    def _record(self, test: unittest.TestCase, outcome: str, err=None) -> None:
        reason = ""
        if err is not None:
            reason = self._exc_info_to_string(err, test).strip().splitlines()[-1][:300]
        self.outcomes[test.id()] = [outcome, reason]

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "failed", err)

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skipped")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "unexpected success")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._record(test, "failed" if failed else "error", err)


def run_child(
    checkout: Path, app: str, variant: str, database: str, out: Path, only: list[str]
) -> None:
    """Run one app's tests (or the ``only`` labels) here; write the outcomes to ``out`` as JSON."""
    tests_dir = checkout / "tests"
    os.chdir(tests_dir)
    sys.path.insert(0, str(tests_dir))
    configure(app, variant, database)
    import django
    from django.test.runner import DiscoverRunner

    django.setup()
    if variant == "swapped":
        swap_model_resource()

    class Runner(DiscoverRunner):
        def get_resultclass(self):
            return RecordingResult

    label = LABELS.get(app, app)
    runner = Runner(pattern=PATTERNS.get(app, "test*.py"), interactive=False, verbosity=1)
    try:
        runner.run_tests(only or [f"{label}.tests"])
    finally:
        # Also when tearing down fails (PostgreSQL cannot drop a test database
        # that a test's threads still hold connections to): the outcomes stand.
        out.write_text(json.dumps(RecordingResult.outcomes, indent=1, sort_keys=True))


# -- the parent: every app, both variants, the summary --------------------------
def run_app(
    checkout: Path, app: str, variant: str, database: str, log_dir: Path, only: list[str]
) -> dict:
    """One child process; its outcomes, or ``{}`` when it did not get to write them."""
    out = log_dir / f"{app}-{variant}.json"
    log = log_dir / f"{app}-{variant}.log"
    command = [
        sys.executable,
        __file__,
        str(checkout),
        "--child",
        app,
        variant,
        "--database",
        database,
        "--out",
        str(out),
        *(["--only", *only] if only else []),
    ]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            [str(Path(__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")]
        ),
    )
    with log.open("w") as stream:
        subprocess.run(command, stdout=stream, stderr=subprocess.STDOUT, env=env, check=False)
    return json.loads(out.read_text()) if out.exists() else {}


def count(outcomes: dict) -> tuple[int, int]:
    passed = sum(1 for outcome, _ in outcomes.values() if outcome in PASSED)
    return passed, len(outcomes) - passed


def summarise(results: dict[str, dict[str, dict]], log_dir: Path) -> tuple[str, list]:
    """The text summary and the list of (test, swapped outcome, reason) regressions."""
    lines = [f"{'app':<14}{'stock pass/fail':>18}{'swapped pass/fail':>20}"]
    totals = {variant: [0, 0] for variant in VARIANTS}
    regressions = []
    for app, by_variant in results.items():
        row = f"{app:<14}"
        for variant, width in zip(VARIANTS, (18, 20), strict=True):
            outcomes = by_variant[variant]
            if not outcomes:
                row += f"{'did not run':>{width}}"
                continue
            passed, failed = count(outcomes)
            totals[variant][0] += passed
            totals[variant][1] += failed
            row += f"{f'{passed}/{failed}':>{width}}"
        lines.append(row)
        stock, swapped = by_variant["stock"], by_variant["swapped"]
        for test, (outcome, _) in sorted(stock.items()):
            if outcome in PASSED:
                swapped_outcome, reason = swapped.get(test, ["not run", ""])
                if swapped_outcome not in PASSED:
                    regressions.append((test, swapped_outcome, reason))
    lines.append(
        f"{'total':<14}{'{}/{}'.format(*totals['stock']):>18}"
        f"{'{}/{}'.format(*totals['swapped']):>20}"
    )
    lines.append(f"\n{len(regressions)} tests pass stock and fail swapped:")
    lines += [f"  {test}: {outcome}: {reason}" for test, outcome, reason in regressions]
    lines.append(f"\nLogs of each run: {log_dir}")
    return "\n".join(lines), regressions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a Tastypie checkout (has tests/)")
    parser.add_argument("--apps", nargs="+", default=APPS, help="default: %(default)s")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--json", type=Path, help="also write every outcome here")
    parser.add_argument(
        "--only", nargs="+", help="test labels to run instead of the apps' suites (one app)"
    )
    parser.add_argument("--child", nargs=2, metavar=("APP", "VARIANT"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    if args.child:
        run_child(checkout, *args.child, args.database, args.out, args.only)
        return 0
    log_dir = Path(tempfile.mkdtemp(prefix="tastypie-yardstick-"))
    results = {}
    for app in args.apps:
        results[app] = {
            v: run_app(checkout, app, v, args.database, log_dir, args.only) for v in VARIANTS
        }
        print(app, {v: count(o) for v, o in results[app].items()}, flush=True)
    text, regressions = summarise(results, log_dir)
    print(f"\nTastypie yardstick ({args.database}, {checkout})\n{text}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True))
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
