"""Do v2 and v3 answer the same bytes?  And does DRF serve the same data?

v2 and v3 must be byte-identical once each API's own prefix (``/api/v2/``,
``/api/v3/``) is replaced by a common one: same status, same Content-Type,
same body.  DRF writes JSON differently (key order, whitespace), so it is
only checked to carry the same *data* (equal after ``json.loads``); a
difference there is reported, not fatal.

The check takes a ``fetch(url) -> Fetched`` callable, so it runs in-process
with Django's test client (what ``compare`` does before serving) or against
anything else a test wants to substitute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from example_project.showcase.benchmark.endpoints import DRF, V2, V3, Api, Endpoint
from tastypie_djony.verify.differences import byte_difference, json_difference
from tastypie_djony.verify.differences import decode_json as _decode

COMMON_PREFIX = b"/api/<api>/"


@dataclass
class Fetched:
    status: int
    content_type: str
    body: bytes


Fetch = Callable[[str], Fetched]


@dataclass
class CheckResult:
    endpoint: Endpoint
    identical: bool  # v2 and v3, byte for byte
    problem: str = ""  # why not, for a person
    drf_same_data: bool | None = None  # None: DRF not checked
    drf_problem: str = ""
    statuses: dict[str, int] = field(default_factory=dict)
    lengths: dict[str, int] = field(default_factory=dict)
    bodies: dict[str, bytes] = field(default_factory=dict, repr=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "endpoint": self.endpoint.name,
            "path": self.endpoint.path,
            "v2_v3_identical": self.identical,
            "problem": self.problem or None,
            "drf_same_data": self.drf_same_data,
            "drf_problem": self.drf_problem or None,
            "status": self.statuses,
            "document_length": self.lengths,
        }


def django_client_fetch() -> Fetch:
    """``fetch`` through Django's test client, in this process."""
    from django.test import Client

    client = Client()

    def fetch(url: str) -> Fetched:
        response = client.get(url)
        return Fetched(response.status_code, response.get("Content-Type", ""), response.content)

    return fetch


def normalise(body: bytes, api: Api) -> bytes:
    """``body`` with ``api``'s URL prefix replaced by the common one."""
    return body.replace(api.prefix.encode(), COMMON_PREFIX)


def check_endpoint(endpoint: Endpoint, fetch: Fetch, with_drf: bool = True) -> CheckResult:
    """Fetch ``endpoint`` from v2 and v3 (and DRF) and compare the answers."""
    fetched = {V2.key: fetch(endpoint.url(V2)), V3.key: fetch(endpoint.url(V3))}
    if with_drf:
        fetched[DRF.key] = fetch(endpoint.url(DRF))
    result = CheckResult(endpoint, identical=False)
    result.statuses = {key: answer.status for key, answer in fetched.items()}
    result.lengths = {key: len(answer.body) for key, answer in fetched.items()}
    result.bodies = {key: answer.body for key, answer in fetched.items()}
    v2, v3 = fetched[V2.key], fetched[V3.key]
    a, b = normalise(v2.body, V2), normalise(v3.body, V3)
    if v2.status != 200:
        result.problem = (
            f"v2 answered {v2.status} to {endpoint.url(V2)} (is the database seeded? "
            f"run `manage.py seed`): {v2.body[:300].decode('utf-8', 'replace')}"
        )
    elif (v2.status, v2.content_type, a) != (v3.status, v3.content_type, b):
        lines = [
            f"v2 and v3 differ on {endpoint.path}:",
            f"  status {v2.status} vs {v3.status}, Content-Type {v2.content_type!r} vs "
            f"{v3.content_type!r}, {len(v2.body)} vs {len(v3.body)} bytes",
        ]
        if a != b:
            lines.append("  " + byte_difference(a, b))
            where = json_difference(_decode(a), _decode(b))
            if where:
                lines.append(f"  first JSON difference (v2 vs v3) at {where}")
        result.problem = "\n".join(lines)
    else:
        result.identical = True
    if with_drf:
        drf = fetched[DRF.key]
        if drf.status != v2.status:
            result.drf_same_data = False
            result.drf_problem = f"DRF answered {drf.status}, v2 {v2.status}"
        else:
            where = json_difference(_decode(a), _decode(normalise(drf.body, DRF)))
            result.drf_same_data = where is None
            result.drf_problem = f"first JSON difference (v2 vs DRF) at {where}" if where else ""
    return result


def check_identical(endpoints: Iterable[Endpoint], fetch: Fetch | None = None) -> list[CheckResult]:
    """:func:`check_endpoint` for each endpoint (in-process by default)."""
    fetch = fetch or django_client_fetch()
    return [check_endpoint(endpoint, fetch) for endpoint in endpoints]


def save_bodies(results: Iterable[CheckResult], directory: Path) -> list[Path]:
    """Write each fetched body to ``directory/<endpoint>.<api>.json``; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for result in results:
        for key, body in result.bodies.items():
            path = directory / f"{result.endpoint.name}.{key}.json"
            path.write_bytes(body)
            paths.append(path)
    return paths
