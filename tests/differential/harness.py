"""Ask the v2 API (ModelResource) and a v3 API (DjonyResource) the same
question and compare the answers byte for byte.

A :class:`Case` is one request, written relative to the API root
(``book/?title__startswith=Dune``); ``<b7>``-style placeholders name rows of
the data set (:mod:`tests.differential.data`) and are replaced with their
primary keys when the request is made, so test ids do not depend on keys.

Two responses are the same when status, every header and the body are
equal once each API's prefix (``/v2/``, ``/v3/``, ``/v3o/``) is replaced by
the same marker.  Binary plists are compared decoded, since a prefix of
another length moves every offset in the file, and also byte for byte where
the prefixes have the same length (``v2``, ``v3``).

Where ModelResource itself answers 500 for bad input, DjonyResource answers
400 with an error message instead (docs/differences.md); such a case
carries ``modelresource_500`` with the reason, and the test asserts both
halves, so the marker cannot outlive the bug it describes.
"""

from __future__ import annotations

import base64
import difflib
import json
import os
import re
from dataclasses import dataclass, field

import biplist
from django.conf import settings
from django.db import connection, transaction
from django.test import Client

REFERENCE = "v2"
#: The DjonyResource APIs compared with the reference: ``v3`` (drop-in) and ``v3o``
#: (2013 spelling).  ``DJONY_TEST_TARGETS=v3`` keeps one (.ci/run's driver legs).
TARGETS = tuple(os.environ.get("DJONY_TEST_TARGETS", "v3 v3o").split())
MARKER = "/API/"
PLACEHOLDER = re.compile(r"<(\w+)>")


@dataclass(frozen=True)
class Case:
    """One GET request and what is known about ModelResource's answer."""

    url: str
    method: str = "GET"  # anything else only to check a 405, which writes nothing
    headers: tuple[tuple[str, str], ...] = ()
    client: str = "anonymous"  # or "session": logged in as ``sessionuser``
    modelresource_500: str = ""  # why ModelResource answers 500, if it does
    backends: tuple[str, ...] = (
        "sqlite",
        "postgresql",
        "mysql",
    )  # where it does (connection.vendor)
    volatile: str = ""  # a regex for what differs between any two requests, e.g. a default of now()

    def __str__(self) -> str:
        extra = [f"{name}: {_readable(value)}" for name, value in self.headers]
        if self.client != "anonymous":
            extra.append(f"client: {self.client}")
        method = "" if self.method == "GET" else f"{self.method} "
        return method + self.url + (f" [{'; '.join(extra)}]" if extra else "")

    def known_500(self) -> bool:
        """Whether ModelResource answers 500 on the backend under test."""
        return bool(self.modelresource_500) and connection.vendor in self.backends


def _readable(header: str) -> str:
    """A Basic ``Authorization`` header with its credentials decoded."""
    scheme, _, token = header.partition(" ")
    if scheme == "Basic":
        try:
            return f"Basic({base64.b64decode(token, validate=True).decode()})"
        except ValueError:
            pass
    return header


def accept(media_type: str) -> tuple[tuple[str, str], ...]:
    return (("Accept", media_type),)


@dataclass(frozen=True)
class Answer:
    """A response with the API prefix replaced by :data:`MARKER`."""

    status: int
    headers: dict[str, str]
    body: bytes | object = field(repr=False)  # bytes, or a decoded plist
    exact: bytes = field(repr=False)  # the bytes, comparable if prefixes are as long

    @classmethod
    def of(cls, response, api: str, volatile: str = "") -> Answer:
        prefix = f"/{api}/"
        content = response.content
        headers = {k: v.replace(prefix, MARKER) for k, v in response.headers.items()}
        # The prefix's length changes the body's: check Content-Length here.
        assert int(headers.pop("Content-Length", len(content))) == len(content)
        exact = content.replace(prefix.encode(), MARKER.encode())
        if volatile:
            exact = re.sub(volatile.encode(), b"<volatile>", exact)
        body = exact
        if (
            response.get("Content-Type", "").startswith("application/x-plist")
            and response.status_code == 200
        ):
            body = plist_data(content, prefix)
        return cls(response.status_code, headers, body, exact)


def plist_data(content: bytes, prefix: str):
    """A binary plist's data, each string's ``prefix`` replaced by the common marker."""
    return _replace_strings(biplist.readPlistFromString(content), prefix)


def _replace_strings(value, prefix: str):
    if isinstance(value, str):
        return value.replace(prefix, MARKER)
    if isinstance(value, dict):
        return {k: _replace_strings(v, prefix) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_strings(v, prefix) for v in value]
    return value


class Differential:
    """Runs cases against the APIs; remembers the reference's answers."""

    def __init__(self, ids: dict[str, object], clients: dict[str, Client]) -> None:
        self.ids = ids
        self.clients = clients
        self._reference: dict[Case, Answer] = {}

    def url(self, case: Case, api: str) -> str:
        def pk(match: re.Match) -> str:
            return str(self.ids[match.group(1)])

        return f"/{api}/" + PLACEHOLDER.sub(pk, case.url)

    def get(self, case: Case, api: str):
        """Make the request in a savepoint rolled back afterwards: on
        PostgreSQL a failed query aborts the transaction, and the next
        request must not pay for it."""
        client, url, headers = self.clients[case.client], self.url(case, api), dict(case.headers)
        savepoint = connection.savepoint()  # transaction.savepoint() is deprecated in 6.1
        try:
            if case.method == "GET":
                return client.get(url, headers=headers)
            return client.generic(case.method, url, b"{}", "application/json", headers=headers)
        finally:
            transaction.savepoint_rollback(savepoint)

    def forget(self, case: Case) -> None:
        """Drop the reference's kept answer to ``case`` (a test changed the data)."""
        self._reference.pop(case, None)

    def answer(self, case: Case, api: str) -> Answer:
        if api == REFERENCE:
            if case not in self._reference:
                self._reference[case] = Answer.of(self.get(case, api), api, case.volatile)
            return self._reference[case]
        return Answer.of(self.get(case, api), api, case.volatile)

    def check(self, case: Case, api: str) -> None:
        """Assert that ``api`` answers ``case`` as the reference does."""
        expected = self.answer(case, REFERENCE)
        got = self.answer(case, api)
        if case.known_500():
            assert expected.status == 500, (
                f"marked as a ModelResource 500 ({case.modelresource_500}) but v2 answered "
                f"{expected.status}: remove the marker\n{_show(expected.body)}"
            )
            assert got.status == 400, (
                f"v2 answers 500; {api} must answer 400, got {got.status}\n{_show(got.body)}"
            )
            assert json.loads(got.body).get("error"), (
                f"{api} 400 without an error message: {got.body!r}"
            )
            return
        assert expected.status != 500, (
            "ModelResource answers 500: mark the case with modelresource_500 (DjonyResource "
            f"must answer 400 there); {api} answered {got.status}\n{_show(got.body)}"
        )
        assert got.status == expected.status, (
            f"status {got.status}, ModelResource: {expected.status}\n"
            f"{api}: {_show(got.body)}\nv2: {_show(expected.body)}"
        )
        assert got.headers == expected.headers, (
            f"headers {got.headers}, ModelResource: {expected.headers}"
        )
        if got.body != expected.body:
            raise AssertionError(
                f"body differs from ModelResource's:\n{_diff(expected.body, got.body)}"
            )
        if len(api) == len(REFERENCE):
            assert got.exact == expected.exact, "same data as ModelResource's, other bytes"


def _show(body, limit: int = 600) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else repr(body)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _lines(body) -> list[str]:
    if not isinstance(body, bytes):
        return json.dumps(body, indent=1, sort_keys=True, default=str).splitlines()
    text = body.decode("utf-8", "replace")
    try:
        return json.dumps(json.loads(text), indent=1, ensure_ascii=False).splitlines()
    except ValueError:
        return re.sub(r"(>)(<)", r"\1\n\2", text).splitlines()


def _diff(expected, got, limit: int = 60) -> str:
    lines = list(
        difflib.unified_diff(
            _lines(expected), _lines(got), "v2 (ModelResource)", "v3", n=2, lineterm=""
        )
    )
    if not lines:  # same when pretty-printed: key order, spacing or escaping differs
        return f"v2: {_show(expected)}\nv3: {_show(got)}"
    return "\n".join(lines[:limit]) + ("\n..." if len(lines) > limit else "")


def api_client() -> Client:
    """A client whose errors reach the test as responses.

    Tastypie re-raises unexpected exceptions for ``SERVER_NAME='testserver'``
    and Django's test client re-raises what ``got_request_exception``
    reports; a 500 is a response to compare here, not a test error.
    """
    assert not settings.DEBUG
    return Client(raise_request_exception=False, SERVER_NAME="api.example")
