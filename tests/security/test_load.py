"""The concurrency script in --quick mode: gunicorn gthread on PostgreSQL.

Runs ``scripts/load_concurrency.py --quick`` (8 s of mixed reads and writes
from 4 clients, 2 workers x 8 threads) against a database of its own,
``<PGDATABASE>_load`` (dropped at the end), and asserts its verdict: no 5xx, every answer
matching its request, no partial write, seeded data unchanged.  PostgreSQL
only (the script needs a server both gunicorn and the test can reach): on
the other backends it is skipped.  The fault-injection script
(``scripts/fault_restart.py``) restarts the database server and is never run
here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from example_project.showcase.benchmark import databases

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("DJONY_TEST_DATABASE", "sqlite") != "postgresql",
    reason="backend-specific: the load script runs gunicorn on PostgreSQL "
    "(DJONY_TEST_DATABASE=postgresql)",
)


def test_load_concurrency_quick(tmp_path):
    pytest.importorskip("gunicorn")
    name = os.environ.get("PGDATABASE", "djony") + "_load"
    url = (
        f"postgres://{os.environ.get('PGUSER', 'postgres')}"
        f"{':' + os.environ['PGPASSWORD'] if os.environ.get('PGPASSWORD') else ''}"
        f"@{os.environ.get('PGHOST', '127.0.0.1')}:{os.environ.get('PGPORT', '5432')}/{name}"
    )
    figures = tmp_path / "load.json"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "scripts/load_concurrency.py", "--quick", "--database", url,
         "--json", str(figures), "--drop-database"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    report = json.loads(figures.read_text())
    assert report["verdict"] == "PASS"
    assert report["server_errors_5xx"] == 0
    assert report["mismatched_answers"] == 0
    assert report["invariant_problems"] == []
    assert report["requests"] > 100
    assert report["connections"]["max"] >= 1
    assert seconds < 60, f"the quick run took {seconds:.0f} s"
    # Nothing left behind: the server's process group is gone, and so is the database.
    with pytest.raises(ProcessLookupError):
        os.killpg(report["server_pid"], 0)
    assert not databases.database_exists(url)
