"""The example's results: statistics, ab parsing, the JSON report schema,
the tables and the chart; and the settings' DATABASE_URL parsing."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from example_project.showcase.benchmark import databases, load, report

AB_OUTPUT = """\
This is ApacheBench, Version 2.3 <$Revision: 1903618 $>
Benchmarking 127.0.0.1 (be patient).....done

Server Software:        gunicorn
Server Hostname:        127.0.0.1
Server Port:            8080

Document Path:          /api/v2/auth/user/3/?format=json
Document Length:        5467 bytes

Concurrency Level:      4
Time taken for tests:   17.331 seconds
Complete requests:      100
Failed requests:        3
   (Connect: 0, Receive: 0, Length: 3, Exceptions: 0)
Non-2xx responses:      2
Total transferred:      582900 bytes
HTML transferred:       546700 bytes
Requests per second:    5.77 [#/sec] (mean)
Time per request:       693.256 [ms] (mean)
"""


def run(url: str, rps_latencies: list[float], time_taken: float, **kw) -> load.RunResult:
    result = load.RunResult(url=url, planned=len(rps_latencies), concurrency=4, **kw)
    result.latencies = rps_latencies
    result.complete = len(rps_latencies)
    result.time_taken = time_taken
    result.document_length = 5364
    return result


def sample_report() -> dict:
    endpoints = [
        (
            "user-detail",
            "auth/user/3/?format=json",
            {
                "v2": run("/api/v2/auth/user/3/?format=json", [0.02] * 10, 1.0),
                "v3": run("/api/v3/auth/user/3/?format=json", [0.01] * 10, 0.5),
                "drf": run("/api/drf/auth/user/3/?format=json", [0.015] * 10, 0.8),
            },
        ),
    ]
    return report.build_report(
        command="manage.py compare",
        environment={
            "machine": report.machine(),
            "versions": report.versions("gunicorn 23.0.0", "built-in"),
            "database": {"vendor": "sqlite", "version": "3.40.1", "name": "x.sqlite3"},
        },
        data={"users": 1000, "permissions": 184, "user_3_permissions": 159},
        settings={
            "server": "gunicorn",
            "workers": 2,
            "threads": 1,
            "client": "built-in",
            "requests": 10,
            "concurrency": 4,
            "duration_s": None,
            "timeout_s": 60.0,
            "warmup": 8,
            "rounds": 1,
        },
        identical=[
            {"endpoint": "user-detail", "path": "auth/user/3/?format=json", "v2_v3_identical": True}
        ],
        headroom=run("/ping/", [0.001] * 10, 0.01),
        endpoints=endpoints,
    )


def test_run_statistics():
    result = run("/x", [0.004, 0.001, 0.003, 0.002, 0.010], 0.5)
    assert result.requests_per_second == 10
    assert result.percentile(50) == 0.003 and result.percentile(99) == 0.010
    assert result.percentile(20) == 0.001
    ms = result.latency_ms()
    assert ms["mean"] == pytest.approx(4.0) and ms["p95"] == pytest.approx(10.0)
    assert math.isnan(load.RunResult(url="/x", planned=1, concurrency=1).percentile(50))

    merged = result.merged(run("/x", [0.020], 0.5, failed=1, failures={"connect": 1}))
    assert merged.complete == 6 and merged.failed == 1 and merged.time_taken == 1.0
    assert merged.failures == {"connect": 1} and merged.requests_per_second == 6


def test_ab_output_and_timings_are_read(tmp_path: Path):
    result = load.parse_ab_output(AB_OUTPUT, "/api/v2/auth/user/3/?format=json", 100, 4)
    assert (result.complete, result.failed, result.non_2xx) == (100, 3, 2)
    assert result.failures == {"length": 3} and result.document_length == 5467
    assert result.time_taken == pytest.approx(17.331)
    assert result.requests_per_second == pytest.approx(5.77, abs=0.01)

    tsv = tmp_path / "g.tsv"
    tsv.write_text(
        "starttime\tseconds\tctime\tdtime\tttime\twait\n"
        "Mon Nov 30 01:00:00 2026\t1764464400\t0\t575\t575\t574\n"
        "Mon Nov 30 01:00:00 2026\t1764464400\t1\t312\t313\t312\n"
    )
    assert load.parse_ab_gnuplot(tsv) == [0.575, 0.313]
    assert load.parse_ab_gnuplot(tmp_path / "missing.tsv") == []


def test_ab_command_keeps_n_after_t():
    command = load.AbClient("/usr/bin/ab").command(
        "http://127.0.0.1:1/x", 100, 4, 30, 60, Path("g")
    )
    assert command.index("-t") < command.index("-n")
    assert command[-1] == "http://127.0.0.1:1/x" and "-g" in command


def test_pick_client(monkeypatch):
    monkeypatch.setattr(load.shutil, "which", lambda name: None)
    assert isinstance(load.pick_client("auto"), load.BuiltinClient)
    with pytest.raises(RuntimeError, match="apache2-utils"):
        load.pick_client("ab")
    monkeypatch.setattr(load.shutil, "which", lambda name: "/usr/bin/ab")
    assert isinstance(load.pick_client("auto"), load.AbClient)
    assert isinstance(load.pick_client("builtin"), load.BuiltinClient)


def test_report_matches_its_schema_and_survives_json():
    built = json.loads(json.dumps(sample_report()))
    assert report.validate(built) == []
    assert built["schema"] == "djony-example-compare/1"
    endpoint = built["endpoints"][0]
    assert endpoint["speedup"] == {"v3_over_v2": 2.0, "v3_over_drf": 1.6}
    v3 = endpoint["results"]["v3"]
    assert v3["requests_per_second"] == 20.0 and v3["latency_ms"]["p50"] == 10.0
    assert set(v3) == {
        "url",
        "requests",
        "concurrency",
        "complete",
        "failed",
        "failures",
        "non_2xx",
        "document_length",
        "time_taken_s",
        "requests_per_second",
        "latency_ms",
        "stopped_by_duration",
    }
    assert set(built["versions"]) >= {
        "django",
        "django-tastypie",
        "djangorestframework",
        "pony",
        "djony",
    }
    built["settings"]["requests"] = None  # each endpoint's default -n
    assert report.validate(built) == []


def test_schema_violations_are_named():
    built = sample_report()
    del built["database"]["version"]
    built["endpoints"][0]["results"]["v2"]["complete"] = "100"
    built["endpoints"][0]["results"]["v4"] = built["endpoints"][0]["results"]["v3"]
    built["settings"]["requests"] = True
    errors = report.validate(built)
    assert "$.database.version: missing" in errors
    assert any(e.startswith("$.endpoints[0].results.v2.complete") for e in errors)
    assert "$.endpoints[0].results.v4: unknown API" in errors
    assert any(e.startswith("$.settings.requests") for e in errors)
    assert report.validate({"schema": "x"})  # missing everything


def test_tables():
    built = sample_report()
    table = report.endpoint_table("auth/user/3/?format=json", built["endpoints"][0]["results"])
    assert "Requests per second [#/sec]" in table and "99% served within [ms]" in table
    assert "10.00" in table and "20.00" in table and "12.50" in table
    summary = report.summary_table(built)
    assert "x2.00" in summary and "x1.60" in summary
    markdown = report.summary_table(built, markdown=True).splitlines()
    assert markdown[0].startswith("| endpoint | v2 req/s") and markdown[1].startswith("|---|")
    assert "`auth/user/3/?format=json`" in markdown[2]
    assert "50.0x the fastest" in report.headroom_line(built)  # 1000 req/s against 20


def test_plot_writes_a_png(tmp_path: Path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "chart.png"
    report.plot(sample_report(), target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_what_to_install(monkeypatch, tmp_path: Path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    with pytest.raises(report.PlotError, match="pip install matplotlib"):
        report.plot(sample_report(), tmp_path / "chart.png")


@pytest.mark.parametrize(
    "url, expected",
    [
        (
            "sqlite:///demo.sqlite3",
            {"ENGINE": "django.db.backends.sqlite3", "NAME": "demo.sqlite3"},
        ),
        ("sqlite:////tmp/demo.sqlite3", {"NAME": "/tmp/demo.sqlite3"}),
        (
            "postgres://postgres:p%40ss@127.0.0.1:5432/djony_demo?sslmode=disable",
            {
                "ENGINE": "django.db.backends.postgresql",
                "NAME": "djony_demo",
                "USER": "postgres",
                "PASSWORD": "p@ss",
                "HOST": "127.0.0.1",
                "PORT": "5432",
                "OPTIONS": {"sslmode": "disable"},
            },
        ),
        ("postgresql://u@db/name?conn_max_age=0", {"HOST": "db", "PORT": "", "CONN_MAX_AGE": 0}),
        (
            "postgres://postgres@127.0.0.1:6432/demo?disable_server_side_cursors=true",
            {"PORT": "6432", "DISABLE_SERVER_SIDE_CURSORS": True, "OPTIONS": None},
        ),
        (
            "mysql://root@127.0.0.1:3306/djony_demo",
            {
                "ENGINE": "django.db.backends.mysql",
                "USER": "root",
                "PASSWORD": "",
                "OPTIONS": {"charset": "utf8mb4"},
            },
        ),
        ("mariadb://root@localhost/x", {"ENGINE": "django.db.backends.mysql", "NAME": "x"}),
    ],
)
def test_database_url(url: str, expected: dict):
    parsed = databases.parse(url, conn_max_age=60)
    assert {key: parsed.get(key) for key in expected} == expected
    if "conn_max_age" not in url:
        assert parsed["CONN_MAX_AGE"] == 60


@pytest.mark.parametrize(
    "url", ["oracle://x/y", "demo.sqlite3", "postgres://host:5432/", "sqlite://rel.db"]
)
def test_database_url_refuses_what_it_cannot_read(url: str):
    with pytest.raises(ValueError, match="URL"):
        databases.parse(url)


def test_manage_py_reads_database_only_for_its_own_commands():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "example_project"))
    try:
        import manage  # example_project/manage.py
    finally:
        sys.path.pop(0)
    url = "postgres://postgres@127.0.0.1:5432/demo"
    assert manage.database_url_from_argv(["manage.py", "compare", "--database", url]) == url
    assert manage.database_url_from_argv(["manage.py", "seed", f"--database={url}"]) == url
    assert manage.database_url_from_argv(["manage.py", "migrate", "--database", "default"]) is None
    assert manage.database_url_from_argv(["manage.py", "compare"]) is None
