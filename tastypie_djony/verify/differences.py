"""How two HTTP answers differ: status, headers, body (JSON compared as data).

Used by ``manage.py djony_verify`` and by the example's identical-bodies
check, so "the same answer" means one thing everywhere:
:func:`json_difference` names the first JSON path where two documents
differ, :func:`byte_difference` shows the first differing byte with some
context, and :func:`answer_difference` puts them together for one request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: Headers that differ between any two answers whatever serves them.
VOLATILE_HEADERS = frozenset({"date", "set-cookie", "x-request-id"})


@dataclass
class Answer:
    """What a client sees of one response."""

    status: int
    headers: dict[str, str]
    body: bytes = field(repr=False)
    seconds: float = 0.0
    #: The exception the request raised (its type, message and last frames), if any.
    exception: str = ""
    #: Whether that exception passed through tastypie_djony's own code.
    in_djony: bool = False

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def text(self, limit: int = 600) -> str:
        """The body as text; for an exception, the exception instead of an HTML error page."""
        if self.exception and (not self.body or "html" in self.content_type):
            return self.exception
        text = self.body.decode("utf-8", "replace")
        if self.exception:
            text = f"{self.exception}\n{text}"
        return text if len(text) <= limit else text[:limit] + f"... ({len(self.body)} bytes)"


def decode_json(body: bytes) -> Any:
    """``body`` as JSON data, or ``None`` when it is not JSON."""
    try:
        return json.loads(body)
    except ValueError:
        return None


def json_difference(a: Any, b: Any, path: str = "$") -> str | None:
    """The first place two decoded JSON documents differ, or ``None``."""
    if type(a) is not type(b):
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                side = "second" if key not in a else "first"
                return f"{path}.{key}: only in the {side}"
            found = json_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            found = json_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)} items"
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def first_differing_byte(a: bytes, b: bytes) -> int:
    """The offset of the first byte where ``a`` and ``b`` differ (``len`` of the shorter one
    when one is a prefix of the other)."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def byte_difference(
    a: bytes, b: bytes, context: int = 60, labels: tuple[str, str] = ("v2", "v3")
) -> str:
    """Where two different byte strings first differ, with some context."""
    offset = first_differing_byte(a, b)
    start = max(0, offset - context)

    def around(body: bytes) -> str:
        return body[start : offset + context].decode("utf-8", "replace")

    first, second = labels
    return (
        f"first difference at byte {offset}:\n"
        f"    {first}: …{around(a)}…\n    {second}: …{around(b)}…"
    )


def answer_difference(
    a: Answer, b: Answer, labels: tuple[str, str] = ("first", "second")
) -> str | None:
    """What differs between two answers to the same request, or ``None``.

    Status first, then headers (except :data:`VOLATILE_HEADERS`, and
    ``Content-Length`` when both bodies are JSON), then the body: as data when
    both are JSON (equal data in other bytes is the same answer), else byte
    for byte.
    """
    if a.status != b.status:
        return f"status {a.status} != {b.status}"
    data_a, data_b = decode_json(a.body), decode_json(b.body)
    both_json = data_a is not None and data_b is not None
    headers_a, headers_b = _comparable(a.headers), _comparable(b.headers)
    if both_json:
        headers_a.pop("content-length", None)
        headers_b.pop("content-length", None)
    for name in sorted(set(headers_a) | set(headers_b)):
        if headers_a.get(name) != headers_b.get(name):
            return f"header {name}: {headers_a.get(name)!r} != {headers_b.get(name)!r}"
    if a.body == b.body:
        return None
    if both_json:
        where = json_difference(data_a, data_b)
        return f"body at {where}" if where else None
    return "body: " + byte_difference(a.body, b.body, labels=labels)


def _comparable(headers: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() not in VOLATILE_HEADERS}
