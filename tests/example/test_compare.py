"""``manage.py compare`` end to end: a real server, a real load, a JSON report.

Each test runs the example's own ``manage.py`` in a subprocess with its own
SQLite file (``DATABASE_URL``) in a temporary directory, whatever database
the rest of the suite uses, and few requests, so the whole file takes
seconds.  The server must be gone afterwards, also after Ctrl-C.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from example_project.showcase.benchmark import report

ROOT = Path(__file__).resolve().parents[2]
MANAGE = ROOT / "example_project" / "manage.py"
# gunicorn comes with the "example" extra; without it the standard library's
# server still runs the whole path.
SERVER = "gunicorn" if importlib.util.find_spec("gunicorn") else "wsgiref"


@pytest.fixture(scope="module")
def example_env(tmp_path_factory) -> dict[str, str]:
    """Environment for the example's manage.py, with a seeded SQLite file."""
    directory = tmp_path_factory.mktemp("example")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DJONY_"))}
    env["DJANGO_SETTINGS_MODULE"] = "example_project.settings"
    env["DATABASE_URL"] = f"sqlite:///{directory / 'example.sqlite3'}"
    env.pop("PYTHONPATH", None)
    seeded = subprocess.run(
        [sys.executable, str(MANAGE), "seed", "--users", "100"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert seeded.returncode == 0, seeded.stderr
    assert "Seeded 100 users" in seeded.stdout
    return env


def compare(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(MANAGE), "compare", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def served_port(stderr: str) -> int:
    match = re.search(r"Serving on http://127\.0\.0\.1:(\d+)/", stderr)
    assert match, stderr
    return int(match.group(1))


def assert_nothing_listens(port: int) -> None:
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_compare_end_to_end_with_the_builtin_client(example_env, tmp_path):
    target = tmp_path / "report.json"
    started = time.monotonic()
    options = "-n 20 -c 2 --warmup 2 --client builtin --duration 20 --server".split()
    done = compare(example_env, *options, SERVER, "--json", str(target))
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    assert elapsed < 60

    built = json.loads(target.read_text())
    assert report.validate(built) == []
    assert built["data"] == {
        "users": 100,
        "permissions": built["data"]["permissions"],
        "user_3_permissions": 159,
    }
    assert built["settings"]["client"] == "built-in" and built["settings"]["server"] == SERVER
    assert [check["v2_v3_identical"] for check in built["identical"]] == [True, True, True]
    assert [e["name"] for e in built["endpoints"]] == [
        "user-detail",
        "user-list",
        "permission-list",
    ]
    for endpoint in built["endpoints"]:
        runs = endpoint["results"]
        assert set(runs) == {"v2", "v3", "drf"}
        for run in runs.values():
            assert (run["complete"], run["failed"], run["non_2xx"]) == (20, 0, 0), run
            assert run["requests_per_second"] > 0 and run["latency_ms"]["p99"] > 0
        assert runs["v2"]["document_length"] == runs["v3"]["document_length"]
        assert endpoint["speedup"]["v3_over_v2"] > 0
    assert built["client_headroom"]["complete"] >= 100

    assert "Requests per second [#/sec]" in done.stdout
    assert "Speed-up (requests per second): v3/v2 x" in done.stdout
    assert "Client headroom:" in done.stdout
    assert_nothing_listens(served_port(done.stderr))


@pytest.mark.skipif(not shutil.which("ab"), reason="ApacheBench (apache2-utils) not installed")
def test_compare_with_ab(example_env):
    options = "-n 10 -c 2 --warmup 1 --client ab --endpoint user-detail --duration 20".split()
    done = compare(example_env, *options, "--server", SERVER)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "client ApacheBench" in done.stdout
    assert re.search(r"Complete requests\s+10\s+10\s+10", done.stdout), done.stdout


def test_compare_refuses_bad_options_before_doing_anything(example_env):
    done = compare(example_env, "--server", "wsgiref", "--workers", "3")
    assert done.returncode == 1
    assert "only gunicorn runs several processes" in done.stderr
    assert "Checking" not in done.stderr


def stop_compare(process: subprocess.Popen) -> None:
    """Stop a ``compare`` still running: SIGTERM first, which it answers by stopping its
    server (started in a session of its own, which a SIGKILL of compare would leave
    running), then SIGKILL."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()


def test_ctrl_c_stops_the_server(example_env):
    options = "-n 100000 -c 2 --warmup 0 --client builtin --endpoint user-list --duration 60"
    options = options.split()
    process = subprocess.Popen(
        [sys.executable, str(MANAGE), "compare", *options, "--server", SERVER],
        env=example_env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        deadline = time.monotonic() + 60
        assert process.stderr is not None
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            lines.append(line)
            if "Serving on" in line or not line:
                break
        port = served_port("".join(lines))
        time.sleep(1.5)  # into the headroom or the first run
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=60)
    finally:
        stop_compare(process)
    assert process.returncode == 130, rest[-2000:]
    assert "Interrupted; the server was stopped." in rest
    assert_nothing_listens(port)


def test_server_starts_answers_and_stops(monkeypatch, tmp_path):
    from example_project.showcase.benchmark import load, servers

    monkeypatch.setattr(servers, "_settings_module", lambda: "example_project.settings")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'unused.sqlite3'}")
    config = servers.ServerConfig(name="wsgiref", workers=1, threads=2)
    with servers.Server(config, tmp_path / "server.log") as server:
        assert server.running()
        request = b"GET /ping/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        assert load.fetch_once(server.host, server.port, request, 10) == (200, 4)
        port = server.port
    assert not server.running()
    assert_nothing_listens(port)


def test_server_that_dies_at_start_shows_its_log(monkeypatch, tmp_path):
    from example_project.showcase.benchmark import servers

    monkeypatch.setattr(
        servers,
        "server_command",
        lambda config, host, port: [sys.executable, "-c", "print('no such app'); exit(3)"],
    )
    server = servers.Server(servers.ServerConfig(name="wsgiref", workers=1), tmp_path / "log")
    with pytest.raises(servers.ServerError, match="exited with code 3") as raised:
        server.start()
    assert "no such app" in str(raised.value)
    assert not server.running()
