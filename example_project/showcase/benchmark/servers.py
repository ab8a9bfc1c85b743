"""Start the example project under a real WSGI server on 127.0.0.1, and stop it.

The server runs in a process group of its own (so Ctrl-C in the terminal
reaches ``compare``, which then stops the server cleanly) and its output goes
to a log file whose tail is shown if it fails to start.  ``gunicorn`` runs
through its own command line; the others through :mod:`.serve`.
"""

from __future__ import annotations

import http.client
import importlib.metadata
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]

# server name -> the Python distribution that provides it (None: standard library)
SERVERS = {
    "gunicorn": "gunicorn",
    "cheroot": "cheroot",
    "waitress": "waitress",
    "wsgiref": None,
}


class ServerError(Exception):
    """The server could not be started (the message says why and how to fix it)."""


@dataclass
class ServerConfig:
    name: str = "gunicorn"
    workers: int = 2  # processes (gunicorn only)
    threads: int = 1  # threads per process
    startup_timeout: float = 60.0
    request_timeout: int = 120  # gunicorn kills a worker stuck longer than this

    def describe(self) -> str:
        if self.name == "gunicorn":
            kind = "sync" if self.threads == 1 else "gthread"
            return (
                f"gunicorn {self.version()}, {self.workers} {kind} worker(s) "
                f"x {self.threads} thread(s)"
            )
        if self.name == "wsgiref":
            return "wsgiref (standard library), a thread per connection"
        return f"{self.name} {self.version()}, {self.threads} thread(s)"

    def version(self) -> str:
        dist = SERVERS.get(self.name)
        if dist is None:
            return sys.version.split()[0]
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"


def check_available(config: ServerConfig) -> None:
    """Raise :class:`ServerError` with the install command if ``config.name`` is missing."""
    if config.name not in SERVERS:
        raise ServerError(f"Unknown server {config.name!r}: choose one of {', '.join(SERVERS)}.")
    dist = SERVERS[config.name]
    if dist is not None:
        try:
            importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            raise ServerError(f"--server {config.name} needs {dist}: pip install {dist}") from None
    if config.name != "gunicorn" and config.workers != 1:
        raise ServerError(
            f"--workers {config.workers}: only gunicorn runs several processes; "
            f"{config.name} runs one (use --threads)."
        )


def _settings_module() -> str:
    from django.conf import settings

    if settings.configured and getattr(settings, "SETTINGS_MODULE", None):
        return settings.SETTINGS_MODULE
    return os.environ.get("DJANGO_SETTINGS_MODULE", "example_project.settings")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def server_command(config: ServerConfig, host: str, port: int) -> list[str]:
    """The command line that serves ``example_project.wsgi`` on ``host:port``."""
    if config.name == "gunicorn":
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "example_project.wsgi:application",
            "--bind",
            f"{host}:{port}",
            "--workers",
            str(config.workers),
            "--threads",
            str(config.threads),
            "--timeout",
            str(config.request_timeout),
            "--backlog",
            "512",
            "--log-level",
            "warning",
        ]
        return command
    return [
        sys.executable,
        "-m",
        "example_project.showcase.benchmark.serve",
        "--server",
        config.name,
        "--host",
        host,
        "--port",
        str(port),
        "--threads",
        str(config.threads),
    ]


class Server:
    """A running server; use as a context manager so it is always stopped."""

    def __init__(self, config: ServerConfig, log_path: Path, host: str = "127.0.0.1") -> None:
        self.config = config
        self.host = host
        self.port = 0
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, attempts: int = 3) -> None:
        check_available(self.config)
        for attempt in range(attempts):
            self.port = free_port(self.host)
            self._spawn()
            try:
                self._wait_ready()
                return
            except ServerError:
                self.stop()
                # Another program may have taken the port between our check
                # and the server's bind: try another one.
                if attempt + 1 == attempts or "in use" not in self.log_tail():
                    raise

    def _spawn(self) -> None:
        env = dict(os.environ)
        # The server runs with the settings this process runs with.
        env["DJANGO_SETTINGS_MODULE"] = _settings_module()
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        log = open(self.log_path, "ab")
        try:
            self.process = subprocess.Popen(
                server_command(self.config, self.host, self.port),
                cwd=REPO_ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: we stop all of it
            )
        finally:
            log.close()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.config.startup_timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise ServerError(
                    f"{self.config.name} exited with code {self.process.returncode} "
                    f"before answering; its log ({self.log_path}) ends with:\n{self.log_tail()}"
                )
            try:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=2)
                conn.request("GET", "/ping/")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.1)
        raise ServerError(
            f"{self.config.name} did not answer /ping/ within {self.config.startup_timeout:.0f} s; "
            f"its log ({self.log_path}) ends with:\n{self.log_tail()}"
        )

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, grace: float = 10.0) -> None:
        """Stop the server's process group: SIGTERM, then SIGKILL after ``grace`` s."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=grace)
        # Workers left behind by a killed master belong to the same group.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
