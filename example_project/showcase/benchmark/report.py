"""The results of ``compare``: ApacheBench-style tables, JSON, a bar chart.

JSON report (``--json FILE``), schema ``djony-example-compare/1``::

    {
      "schema": "djony-example-compare/1",
      "date": "2026-11-30T12:00:00+00:00",          # when the run ended, UTC
      "command": "manage.py compare -n 100 -c 4",
      "machine": {"platform": str, "python": str, "cpus": int, "cpu_model": str|null,
                  "load_average": [float, float, float]|null},   # when the run started
      "versions": {"django": str, "django-tastypie": str, "djangorestframework": str,
                   "pony": str, "djony": str, "server": str, "client": str},
      "database": {"vendor": "sqlite"|"postgresql"|"mysql", "version": str, "name": str},
      "data": {"users": int, "permissions": int, "user_3_permissions": int},
      "settings": {"server": str, "workers": int, "threads": int, "client": "ab"|"built-in",
                   "requests": int|null, "concurrency": int, "duration_s": float|null,
                   "timeout_s": float, "warmup": int, "rounds": int},
      "identical": [ {"endpoint": str, "path": str, "v2_v3_identical": bool,
                      "problem": str|null, "drf_same_data": bool|null,
                      "drf_problem": str|null, "status": {api: int},
                      "document_length": {api: int}} ],
      "client_headroom": Run|null,      # the same client against /ping/
      "endpoints": [ {"name": str, "path": str,
                      "results": {"v2": Run, "v3": Run, "drf": Run},
                      "speedup": {"v3_over_v2": float|null, "v3_over_drf": float|null}} ]
    }

    Run = {"url": str, "requests": int, "concurrency": int, "complete": int,
           "failed": int, "failures": {kind: int}, "non_2xx": int,
           "document_length": int|null, "time_taken_s": float,
           "requests_per_second": float,
           "latency_ms": {"mean", "min", "p50", "p95", "p99", "max": float|null},
           "stopped_by_duration": bool}

``settings.requests`` is ``-n``; null means each endpoint's default (as in the
article: 100, and 20 for the full user list); each run says how many it asked
for in ``requests``.  A speed-up is the ratio of requests per second (``v3_over_v2`` = 2.0: v3
served twice as many requests per second as v2).  :func:`validate` checks a
report against this schema.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from example_project.showcase.benchmark.endpoints import APIS, APIS_BY_KEY
from example_project.showcase.benchmark.load import RunResult

SCHEMA = "djony-example-compare/1"


class PlotError(Exception):
    """The chart cannot be drawn (matplotlib missing)."""


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count() or 1,
        "cpu_model": _cpu_model(),
        # Other programs busy on the machine make the numbers noisy: this tells.
        "load_average": [round(x, 2) for x in os.getloadavg()]
        if hasattr(os, "getloadavg")
        else None,
    }


def versions(server: str, client: str) -> dict[str, str]:
    import djony

    return {
        "django": _version("Django"),
        "django-tastypie": _version("django-tastypie"),
        "djangorestframework": _version("djangorestframework"),
        "pony": _version("pony"),
        "djony": getattr(djony, "__version__", "?"),
        "server": server,
        "client": client,
    }


def database(alias: str = "default") -> dict[str, Any]:
    """Vendor, server version and name of the database ``alias``."""
    from django.db import connections

    connection = connections[alias]
    vendor = connection.vendor
    if vendor == "sqlite":
        import sqlite3

        version = sqlite3.sqlite_version
    else:
        query = "SHOW server_version" if vendor == "postgresql" else "SELECT VERSION()"
        with connection.cursor() as cursor:
            cursor.execute(query)
            version = str(cursor.fetchone()[0])
    return {"vendor": vendor, "version": version, "name": str(connection.settings_dict["NAME"])}


def speedups(results: dict[str, RunResult]) -> dict[str, float | None]:
    def ratio(a: str, b: str) -> float | None:
        if a not in results or b not in results:
            return None
        top, bottom = results[a].requests_per_second, results[b].requests_per_second
        return round(top / bottom, 3) if bottom else None

    return {"v3_over_v2": ratio("v3", "v2"), "v3_over_drf": ratio("v3", "drf")}


def build_report(
    *,
    command: str,
    environment: dict[str, Any],
    data: dict[str, int],
    settings: dict[str, Any],
    identical: list[dict[str, Any]],
    headroom: RunResult | None,
    endpoints: list[tuple[str, str, dict[str, RunResult]]],
) -> dict[str, Any]:
    """The JSON report (see the module docstring for its schema)."""
    return {
        "schema": SCHEMA,
        "date": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "command": command,
        **environment,
        "data": data,
        "settings": settings,
        "identical": identical,
        "client_headroom": headroom.as_json() if headroom else None,
        "endpoints": [
            {
                "name": name,
                "path": path,
                "results": {key: run.as_json() for key, run in results.items()},
                "speedup": speedups(results),
            }
            for name, path, results in endpoints
        ],
    }


# -- validation ---------------------------------------------------------------

_RUN_KEYS = {
    "url": str,
    "requests": int,
    "concurrency": int,
    "complete": int,
    "failed": int,
    "failures": dict,
    "non_2xx": int,
    "document_length": (int, type(None)),
    "time_taken_s": (int, float),
    "requests_per_second": (int, float),
    "latency_ms": dict,
    "stopped_by_duration": bool,
}
_TOP_KEYS = {
    "schema": str,
    "date": str,
    "command": str,
    "machine": dict,
    "versions": dict,
    "database": dict,
    "data": dict,
    "settings": dict,
    "identical": list,
    "client_headroom": (dict, type(None)),
    "endpoints": list,
}


def _check_keys(obj: Any, keys: dict[str, Any], where: str, errors: list[str]) -> None:
    if not isinstance(obj, dict):
        errors.append(f"{where}: expected an object")
        return
    for key, kind in keys.items():
        if key not in obj:
            errors.append(f"{where}.{key}: missing")
        elif not isinstance(obj[key], kind) or (kind is int and isinstance(obj[key], bool)):
            errors.append(f"{where}.{key}: {type(obj[key]).__name__} is not {kind}")


def _check_run(run: Any, where: str, errors: list[str]) -> None:
    _check_keys(run, _RUN_KEYS, where, errors)
    latency = run.get("latency_ms") if isinstance(run, dict) else None
    if isinstance(latency, dict):
        for key in ("mean", "min", "p50", "p95", "p99", "max"):
            if not isinstance(latency.get(key, "missing"), (int, float, type(None))):
                errors.append(f"{where}.latency_ms.{key}: missing or not a number")


def validate(report: Any) -> list[str]:
    """What is wrong with ``report`` against the schema (empty: nothing)."""
    errors: list[str] = []
    _check_keys(report, _TOP_KEYS, "$", errors)
    if errors:
        return errors
    if report["schema"] != SCHEMA:
        errors.append(f"$.schema: {report['schema']!r} is not {SCHEMA!r}")
    for key in (
        "django",
        "django-tastypie",
        "djangorestframework",
        "pony",
        "djony",
        "server",
        "client",
    ):
        if not isinstance(report["versions"].get(key), str):
            errors.append(f"$.versions.{key}: missing")
    for key in ("vendor", "version", "name"):
        if not isinstance(report["database"].get(key), str):
            errors.append(f"$.database.{key}: missing")
    for key in ("requests", "concurrency", "workers", "threads", "warmup", "rounds"):
        value = report["settings"].get(key, "missing")
        if key == "requests" and value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(f"$.settings.{key}: missing or not an integer")
    for index, check in enumerate(report["identical"]):
        _check_keys(
            check,
            {"endpoint": str, "path": str, "v2_v3_identical": bool},
            f"$.identical[{index}]",
            errors,
        )
    if report["client_headroom"] is not None:
        _check_run(report["client_headroom"], "$.client_headroom", errors)
    for index, endpoint in enumerate(report["endpoints"]):
        where = f"$.endpoints[{index}]"
        _check_keys(
            endpoint, {"name": str, "path": str, "results": dict, "speedup": dict}, where, errors
        )
        if not isinstance(endpoint, dict) or not isinstance(endpoint.get("results"), dict):
            continue
        for key, run in endpoint["results"].items():
            if key not in APIS_BY_KEY:
                errors.append(f"{where}.results.{key}: unknown API")
            _check_run(run, f"{where}.results.{key}", errors)
        for key in ("v3_over_v2", "v3_over_drf"):
            if not isinstance(
                endpoint.get("speedup", {}).get(key, "missing"), (int, float, type(None))
            ):
                errors.append(f"{where}.speedup.{key}: missing or not a number")
    return errors


# -- tables -------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def times(value: float | None) -> str:
    return "-" if value is None else f"x{value:.2f}"


def endpoint_table(path: str, results: dict[str, dict[str, Any]]) -> str:
    """ApacheBench's numbers for one endpoint, one column per API (JSON runs)."""
    keys = [api.key for api in APIS if api.key in results]
    rows: list[tuple[str, list[str]]] = [
        ("Document Length [bytes]", [str(results[k]["document_length"]) for k in keys]),
        ("Complete requests", [str(results[k]["complete"]) for k in keys]),
        ("Failed requests", [str(results[k]["failed"]) for k in keys]),
        ("Non-2xx responses", [str(results[k]["non_2xx"]) for k in keys]),
        ("Time taken for tests [s]", [f"{results[k]['time_taken_s']:.3f}" for k in keys]),
        ("Requests per second [#/sec]", [f"{results[k]['requests_per_second']:.2f}" for k in keys]),
        ("Time per request, mean [ms]", [_ms(results[k]["latency_ms"]["mean"]) for k in keys]),
        ("  50% served within [ms]", [_ms(results[k]["latency_ms"]["p50"]) for k in keys]),
        ("  95% served within [ms]", [_ms(results[k]["latency_ms"]["p95"]) for k in keys]),
        ("  99% served within [ms]", [_ms(results[k]["latency_ms"]["p99"]) for k in keys]),
    ]
    width = max(len(label) for label, _ in rows)
    column = max(12, *(len(v) for _, values in rows for v in values))
    header = " " * width + "".join(f"  {k:>{column}}" for k in keys)
    lines = [f"Endpoint: /api/{{{','.join(keys)}}}/{path}", header]
    lines += [
        f"{label:<{width}}" + "".join(f"  {v:>{column}}" for v in values) for label, values in rows
    ]
    short = [k for k in keys if results[k]["stopped_by_duration"]]
    if short:
        lines.append(f"(stopped by --duration before all requests were sent: {', '.join(short)})")
    return "\n".join(lines)


def legend() -> str:
    return ", ".join(f"{api.key} = {api.label}" for api in APIS)


def summary_table(report: dict[str, Any], markdown: bool = False) -> str:
    """One line per endpoint: requests per second, p50 and the speed-ups."""
    header = [
        "endpoint",
        "v2 req/s",
        "v3 req/s",
        "drf req/s",
        "v2 p50 ms",
        "v3 p50 ms",
        "drf p50 ms",
        "v3/v2",
        "v3/drf",
    ]
    body = []
    for endpoint in report["endpoints"]:
        results = endpoint["results"]

        def rps(key: str, results: dict = results) -> str:
            return f"{results[key]['requests_per_second']:.1f}" if key in results else "-"

        def p50(key: str, results: dict = results) -> str:
            return _ms(results[key]["latency_ms"]["p50"]) if key in results else "-"

        body.append(
            [
                endpoint["path"],
                rps("v2"),
                rps("v3"),
                rps("drf"),
                p50("v2"),
                p50("v3"),
                p50("drf"),
                times(endpoint["speedup"]["v3_over_v2"]),
                times(endpoint["speedup"]["v3_over_drf"]),
            ]
        )
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * 8) + "|"]
        lines += [
            "| " + " | ".join(f"`{row[0]}`" if i == 0 else row[i] for i in range(9)) + " |"
            for row in body
        ]
        return "\n".join(lines)
    widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(9)]
    lines = [
        "  ".join(f"{h:<{widths[0]}}" if i == 0 else f"{h:>{widths[i]}}" for i, h in enumerate(row))
        for row in [header, *body]
    ]
    return "\n".join(lines)


def headroom_line(report: dict[str, Any]) -> str | None:
    """How much faster the client went against /ping/ than against the APIs."""
    ping = report.get("client_headroom")
    if not ping:
        return None
    fastest = max(
        (run["requests_per_second"] for e in report["endpoints"] for run in e["results"].values()),
        default=0.0,
    )
    ratio = ping["requests_per_second"] / fastest if fastest else None
    line = (
        f"Client headroom: {ping['requests_per_second']:.0f} req/s on /ping/ "
        f"(a view doing nothing), p50 {_ms(ping['latency_ms']['p50'])} ms"
    )
    if ratio:
        line += f"; {ratio:.1f}x the fastest API run above"
        if ratio < 3:
            line += " -- WARNING: the client or server may be what limits the fastest runs"
    return line


# -- chart --------------------------------------------------------------------


def plot(report: dict[str, Any], path: Path) -> None:
    """A bar chart of requests per second, one panel per endpoint, to ``path`` (PNG)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("--plot needs matplotlib: pip install matplotlib") from None

    endpoints = report["endpoints"]
    colors = {"v2": "#9e9e9e", "v3": "#2e7d32", "drf": "#1565c0"}
    fig, axes = plt.subplots(
        1, len(endpoints), figsize=(4.2 * len(endpoints), 4.0), squeeze=False, layout="constrained"
    )
    for ax, endpoint in zip(axes[0], endpoints, strict=True):
        keys = [api.key for api in APIS if api.key in endpoint["results"]]
        values = [endpoint["results"][k]["requests_per_second"] for k in keys]
        bars = ax.bar(keys, values, color=[colors[k] for k in keys])
        for bar, value in zip(bars, values, strict=True):
            ax.annotate(
                f"{value:.1f}",
                (bar.get_x() + bar.get_width() / 2, value),
                ha="center",
                va="bottom",
                fontsize=9,
            )
        speed = endpoint["speedup"]
        ax.set_title(
            f"{endpoint['path']}\nv3/v2 {times(speed['v3_over_v2'])}, "
            f"v3/drf {times(speed['v3_over_drf'])}",
            fontsize=9,
        )
        ax.set_ylabel("requests per second (higher is better)", fontsize=8)
        ax.set_ylim(0, max(values or [1]) * 1.18)
        ax.tick_params(labelsize=8)
    settings, db, ver = report["settings"], report["database"], report["versions"]
    requests = settings["requests"] or "100 (user list 20)"
    load_average = report["machine"].get("load_average")
    busy = f", load average {load_average[0]:.1f}" if load_average else ""
    fig.suptitle(
        f"{legend()}\n{db['vendor']} {db['version']}, {ver['server']}, "
        f"client {settings['client']}, -n {requests} -c {settings['concurrency']}, "
        f"{report['date'][:10]}{busy}, "
        f"Django {ver['django']}, tastypie {ver['django-tastypie']}, "
        f"DRF {ver['djangorestframework']}",
        fontsize=8,
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)
