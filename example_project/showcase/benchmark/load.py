"""Load clients: ApacheBench when installed, else a small built-in one.

Both do what ``ab -n N -c C`` does: ``C`` connections at a time, one request
per connection (HTTP/1.0, no keep-alive), until ``N`` requests are done or the
time bound is over.  Both report what ab reports: complete and failed
requests (connection errors, short reads, and bodies whose length differs
from the first one's, as ab counts them), non-2xx answers, the time taken,
and each request's latency from connect to last byte.

The built-in client uses plain sockets in ``C`` threads; ``compare`` measures
it against a trivial view (``/ping/``) to show how much faster it can go than
the API endpoints it measures.
"""

from __future__ import annotations

import math
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

ProgressCallback = Callable[[int], None]


@dataclass
class RunResult:
    """One load run against one URL (or several runs merged)."""

    url: str
    planned: int  # requests asked for
    concurrency: int
    complete: int = 0  # requests that ended, failed ones included (as ab counts)
    failed: int = 0
    non_2xx: int = 0
    document_length: int | None = None
    time_taken: float = 0.0  # seconds, first connect to last byte
    latencies: list[float] = field(default_factory=list, repr=False)  # seconds
    stopped_by_duration: bool = False
    failures: dict[str, int] = field(default_factory=dict)  # kind -> count

    @property
    def requests_per_second(self) -> float:
        return self.complete / self.time_taken if self.time_taken > 0 else 0.0

    def percentile(self, percent: float) -> float:
        """Latency (s) under which ``percent`` % of requests finished (nearest rank)."""
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        rank = max(1, math.ceil(percent / 100 * len(ordered)))
        return ordered[rank - 1]

    def latency_ms(self) -> dict[str, float | None]:
        if not self.latencies:
            return {k: None for k in ("mean", "min", "p50", "p95", "p99", "max")}
        return {
            "mean": 1000 * sum(self.latencies) / len(self.latencies),
            "min": 1000 * min(self.latencies),
            "p50": 1000 * self.percentile(50),
            "p95": 1000 * self.percentile(95),
            "p99": 1000 * self.percentile(99),
            "max": 1000 * max(self.latencies),
        }

    def merged(self, other: RunResult) -> RunResult:
        """This run and ``other`` (same URL, another round) as one."""
        return RunResult(
            url=self.url,
            planned=self.planned + other.planned,
            concurrency=self.concurrency,
            complete=self.complete + other.complete,
            failed=self.failed + other.failed,
            non_2xx=self.non_2xx + other.non_2xx,
            document_length=self.document_length
            if self.document_length is not None
            else other.document_length,
            time_taken=self.time_taken + other.time_taken,
            latencies=self.latencies + other.latencies,
            stopped_by_duration=self.stopped_by_duration or other.stopped_by_duration,
            failures={
                k: self.failures.get(k, 0) + other.failures.get(k, 0)
                for k in set(self.failures) | set(other.failures)
            },
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "requests": self.planned,
            "concurrency": self.concurrency,
            "complete": self.complete,
            "failed": self.failed,
            "failures": dict(sorted(self.failures.items())),
            "non_2xx": self.non_2xx,
            "document_length": self.document_length,
            "time_taken_s": round(self.time_taken, 6),
            "requests_per_second": round(self.requests_per_second, 3),
            "latency_ms": {
                k: (None if v is None else round(v, 3)) for k, v in self.latency_ms().items()
            },
            "stopped_by_duration": self.stopped_by_duration,
        }


class LoadClient(Protocol):
    name: str

    def version(self) -> str: ...

    def run(
        self,
        host: str,
        port: int,
        path: str,
        requests: int,
        concurrency: int,
        duration: float | None,
        timeout: float,
        progress: ProgressCallback | None = None,
    ) -> RunResult: ...


class IncompleteResponse(Exception):
    pass


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return None


def fetch_once(host: str, port: int, request: bytes, timeout: float) -> tuple[int, int]:
    """Send ``request`` on a new connection; return (status, body length)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(request)
        buffer = b""
        header_end = -1
        while header_end < 0:
            chunk = sock.recv(65536)
            if not chunk:
                raise IncompleteResponse("connection closed before the headers ended")
            buffer += chunk
            header_end = buffer.find(b"\r\n\r\n")
        head = buffer[:header_end]
        received = len(buffer) - header_end - 4
        status = int(head.split(b" ", 2)[1])
        expected = _content_length(head)
        while expected is None or received < expected:
            chunk = sock.recv(262144)
            if not chunk:
                if expected is not None:
                    raise IncompleteResponse(f"{received} of {expected} body bytes")
                break
            received += len(chunk)
        return status, received


class BuiltinClient:
    """``concurrency`` threads, each sending one HTTP/1.0 request per connection."""

    name = "built-in"

    def version(self) -> str:
        return "built-in (threads + sockets, HTTP/1.0)"

    def run(
        self,
        host: str,
        port: int,
        path: str,
        requests: int,
        concurrency: int,
        duration: float | None,
        timeout: float,
        progress: ProgressCallback | None = None,
    ) -> RunResult:
        request = (
            f"GET {path} HTTP/1.0\r\nHost: {host}:{port}\r\n"
            "User-Agent: djony-compare\r\nAccept: */*\r\n\r\n"
        ).encode("ascii")
        lock = threading.Lock()
        stop = threading.Event()
        claimed = 0
        records: list[tuple[float, float, int, int]] = []  # start, latency, status, length
        failures: dict[str, int] = {}
        started = time.perf_counter()
        deadline = time.monotonic() + duration if duration else math.inf

        def worker() -> None:
            nonlocal claimed
            while not stop.is_set():
                with lock:
                    if claimed >= requests or time.monotonic() >= deadline:
                        return
                    claimed += 1
                begin = time.perf_counter()
                try:
                    status, length = fetch_once(host, port, request, timeout)
                except (OSError, IncompleteResponse, ValueError, IndexError) as error:
                    kind = (
                        "timeout"
                        if isinstance(error, socket.timeout)
                        else ("receive" if isinstance(error, IncompleteResponse) else "connect")
                    )
                    with lock:
                        failures[kind] = failures.get(kind, 0) + 1
                    continue
                end = time.perf_counter()
                with lock:
                    records.append((begin, end - begin, status, length))

        threads = [
            threading.Thread(target=worker, daemon=True) for _ in range(min(concurrency, requests))
        ]
        for thread in threads:
            thread.start()
        try:
            while any(thread.is_alive() for thread in threads):
                time.sleep(0.05)
                if progress:
                    progress(len(records) + sum(failures.values()))
        except BaseException:
            stop.set()
            for thread in threads:
                thread.join(timeout)
            raise
        finished = time.perf_counter()
        records.sort()
        result = RunResult(url=path, planned=requests, concurrency=concurrency)
        result.latencies = [latency for _, latency, _, _ in records]
        result.non_2xx = sum(1 for _, _, status, _ in records if not 200 <= status < 300)
        if records:
            result.document_length = records[0][3]
            wrong_length = sum(1 for *_, length in records if length != result.document_length)
            if wrong_length:
                failures["length"] = wrong_length
        result.failures = failures
        result.failed = sum(failures.values())
        result.complete = len(records) + sum(v for k, v in failures.items() if k != "length")
        result.time_taken = finished - started
        result.stopped_by_duration = claimed < requests
        if progress:
            progress(result.complete)
        return result


class AbClient:
    """Runs ApacheBench (``ab``) and reads its report and its ``-g`` timings."""

    name = "ab"

    def __init__(self, executable: str) -> None:
        self.executable = executable

    def version(self) -> str:
        output = subprocess.run(
            [self.executable, "-V"], capture_output=True, text=True, timeout=10
        ).stdout
        match = re.search(r"Version ([\d.]+)", output)
        return f"ApacheBench {match.group(1) if match else '?'}"

    def command(
        self,
        url: str,
        requests: int,
        concurrency: int,
        duration: float | None,
        timeout: float,
        gnuplot: Path,
    ) -> list[str]:
        command = [self.executable]
        if duration:
            command += ["-t", str(max(1, math.ceil(duration)))]  # before -n: -t resets -n
        command += [
            "-n",
            str(requests),
            "-c",
            str(concurrency),
            "-s",
            str(max(1, math.ceil(timeout))),
            "-r",
            "-g",
            str(gnuplot),
            url,
        ]
        return command

    def run(
        self,
        host: str,
        port: int,
        path: str,
        requests: int,
        concurrency: int,
        duration: float | None,
        timeout: float,
        progress: ProgressCallback | None = None,
    ) -> RunResult:
        concurrency = min(concurrency, requests)  # ab refuses -c above -n
        with tempfile.TemporaryDirectory(prefix="djony-ab-") as tmp:
            gnuplot = Path(tmp) / "timings.tsv"
            command = self.command(
                f"http://{host}:{port}{path}", requests, concurrency, duration, timeout, gnuplot
            )
            limit = (duration or requests * timeout) + timeout + 30
            completed = subprocess.run(command, capture_output=True, text=True, timeout=limit)
            if completed.returncode != 0:
                first_line = (completed.stderr.strip().splitlines() or ["(no output)"])[0]
                raise RuntimeError(f"ab failed (exit code {completed.returncode}): {first_line}")
            result = parse_ab_output(completed.stdout, path, requests, concurrency)
            result.latencies = parse_ab_gnuplot(gnuplot)
        if progress:
            progress(result.complete)
        return result


def _number(pattern: str, text: str, default: float = 0.0) -> float:
    match = re.search(pattern + r"\s*([\d.]+)", text)
    return float(match.group(1)) if match else default


def parse_ab_output(text: str, path: str, requests: int, concurrency: int) -> RunResult:
    """The numbers of an ``ab`` report (latencies come from :func:`parse_ab_gnuplot`)."""
    result = RunResult(url=path, planned=requests, concurrency=concurrency)
    result.complete = int(_number(r"Complete requests:", text))
    result.failed = int(_number(r"Failed requests:", text))
    result.non_2xx = int(_number(r"Non-2xx responses:", text))
    result.time_taken = _number(r"Time taken for tests:", text)
    length = re.search(r"Document Length:\s*(\d+)", text)
    result.document_length = int(length.group(1)) if length else None
    kinds = re.search(r"\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)", text)
    if kinds:
        names = ("connect", "receive", "length", "exceptions")
        result.failures = {n: int(v) for n, v in zip(names, kinds.groups(), strict=True) if int(v)}
    result.stopped_by_duration = result.complete < requests
    return result


def parse_ab_gnuplot(path: Path) -> list[float]:
    """Per-request total times (s) from ``ab -g`` output (``ttime`` column, ms)."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    if not lines:
        return []
    columns = lines[0].split("\t")
    total = columns.index("ttime")
    return [int(line.split("\t")[total]) / 1000 for line in lines[1:] if line.strip()]


def pick_client(name: str) -> LoadClient:
    """``auto``: ab if it is on PATH, else the built-in client."""
    if name in ("auto", "ab"):
        executable = shutil.which("ab")
        if executable:
            return AbClient(executable)
        if name == "ab":
            raise RuntimeError(
                "--client ab: ApacheBench is not installed "
                "(Debian/Ubuntu: apt-get install apache2-utils); or use --client builtin."
            )
    if name not in ("auto", "builtin"):
        raise RuntimeError(f"Unknown client {name!r}: use auto, ab or builtin.")
    return BuiltinClient()
