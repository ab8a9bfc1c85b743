"""Sending each request to a resource and to its twin, and comparing the answers.

Both go through the project's URLconf and middleware with Django's test
client: the original through ``ROOT_URLCONF``, the twin through the copy of
it that :mod:`.urlconf` builds (a first middleware, added for the run,
points the request at it).  Every request runs inside a transaction on the
verified database that is rolled back afterwards, so nothing is changed,
not even by a GET whose hooks write.  A write's effects (the rows of every
table written during the run, the signals fired: :mod:`.effects`) are read
inside that transaction and compared too.  An exception is kept as its type,
message and last frames, also one raised by the project's error handling
(a ``handler500`` that fails), which becomes that request's answer.
"""

from __future__ import annotations

import json
import re
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.test import Client

import tastypie_djony
from tastypie_djony.verify import copies
from tastypie_djony.verify.credentials import Credentials, ensure_api_key
from tastypie_djony.verify.differences import Answer, answer_difference, decode_json
from tastypie_djony.verify.effects import MASKED, Effects, Trace, takes_the_time
from tastypie_djony.verify.generation import Request

#: The ``request.META`` key that sends a request to the twins' URLconf.
URLCONF_KEY = "djony_verify.urlconf"
MIDDLEWARE = "tastypie_djony.verify.running.TwinUrlconfMiddleware"
#: How an answer whose request made the project's error handling raise begins.
ERROR_HANDLING = "the error handling raised"


class TwinUrlconfMiddleware:
    """Serves a request marked with :data:`URLCONF_KEY` from that URLconf (djony_verify only)."""

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        urlconf = request.META.get(URLCONF_KEY)
        if urlconf is not None:
            request.urlconf = urlconf
        return self.get_response(request)


@dataclass
class Side:
    """One way of serving the resources: ``"ModelResource"`` or ``"DjonyResource"``."""

    base: str
    urlconf: Any = None  # None: the project's own


@dataclass
class Outcome:
    """One request, both answers, and what differs."""

    request: Request
    answers: dict[str, Answer]  # base name -> answer
    difference: str | None
    improved: bool = False  # ModelResource answers 5xx, DjonyResource a 4xx with a message
    volatile: bool = False  # the same side answers differently twice (a default of now())
    traces: dict[str, Trace] = field(default_factory=dict)  # base name -> a write's effects

    @property
    def identical(self) -> bool:
        return self.difference is None


class Runner:
    """Sends requests to both sides on database ``using``.

    ``credentials`` maps a resource's list URI to what its requests carry
    for ``--user`` (:mod:`.credentials`); ``user`` is that user.
    """

    def __init__(
        self,
        using: str,
        credentials: dict[str, Credentials] | None = None,
        user: Any = None,
        host: str | None = None,
    ) -> None:
        self.using = using
        defaults = {"SERVER_NAME": host} if host else {}
        self.client = Client(raise_request_exception=False, **defaults)
        self.credentials = dict(credentials or {})
        self.user = user
        self.effects = Effects(using)

    def login(self, user: Any) -> None:
        """Log the client in (session) without a trace: ``last_login`` is rolled back."""
        with transaction.atomic(using=self.using):
            self.client.force_login(user)
            transaction.set_rollback(True, using=self.using)

    def send(self, side: Side, request: Request) -> tuple[Answer, Trace | None]:
        """``side``'s answer to ``request`` and, for a write, its effects."""
        credentials = self.credentials.get(request.resource, Credentials())
        extra = dict(credentials.meta)
        if side.urlconf is not None:
            extra[URLCONF_KEY] = side.urlconf
        trace = Trace() if request.writes else None
        if trace is not None:
            self.effects.start()
            if request.model is not None:
                self.effects.watch_tables(request.model._meta.db_table)
        with transaction.atomic(using=self.using):
            if credentials.api_key and self.user is not None:
                ensure_api_key(self.user, self.using)
            if request.copy_of is not None:
                copies.make(request.model, request.copy_of, request.key, self.using)
            started = time.perf_counter()
            if trace is not None:
                with self.effects.watch(trace):
                    answer = self._request(request, extra)
                answer.seconds = time.perf_counter() - started
                self.effects.read(trace)
            else:
                answer = self._request(request, extra)
                answer.seconds = time.perf_counter() - started
            transaction.set_rollback(True, using=self.using)
        if trace is not None:
            answer = normalised(answer, request, trace)
        return answer, trace

    def _request(self, request: Request, extra: dict[str, str]) -> Answer:
        # Django's client keeps the exception a request's error handling raised out of it
        # and hands it to the next response: each answer gets only its own.
        self.client.exc_info = None
        try:
            response = self.client.generic(
                request.method,
                request.path,
                request.body or "",
                content_type="application/json",
                **extra,
            )
            body = response.content
        except Exception:  # noqa: BLE001 - the project's error handling raised: that is the answer
            text, in_djony = exception_text(sys.exc_info())
            return Answer(500, {}, b"", exception=f"{ERROR_HANDLING}: {text}",
                          in_djony=in_djony)  # fmt: skip
        answer = Answer(response.status_code, dict(response.headers.items()), body)
        exc_info = getattr(response, "exc_info", None)
        if exc_info:
            answer.exception, answer.in_djony = exception_text(exc_info)
        return answer

    def compare(self, request: Request, sides: list[Side], first: int = 0) -> Outcome:
        """Send ``request`` to both sides (``first`` picks who goes first) and compare."""
        results = self._both(request, sides, first)
        model, djony = results["ModelResource"], results["DjonyResource"]
        answers = {"ModelResource": model[0], "DjonyResource": djony[0]}
        traces = {k: v[1] for k, v in results.items() if v[1] is not None}
        difference = self._difference({"ModelResource": model, "DjonyResource": djony})
        improved = _improved(model[0], djony[0])
        if difference is None or improved:
            return Outcome(request, answers, None, improved, traces=traces)
        again = self.send(sides[0], request)
        if self._difference({"first": results[sides[0].base], "again": again}) is not None:
            return Outcome(request, answers, None, volatile=True, traces=traces)
        return Outcome(request, answers, difference, traces=traces)

    def _both(self, request: Request, sides: list[Side], first: int) -> dict[str, tuple]:
        """Both sides' answers; for a write, sent again while one side wrote a table the
        other's rows were not read from (so both are read from the same tables)."""
        for _ in range(3):
            before = set(self.effects.tables)
            results = {}
            for side in sides[first:] + sides[:first]:
                results[side.base] = self.send(side, request)
            if not request.writes:
                return results
            for _, trace in results.values():
                self.effects.watch_tables(*trace.written)
            if self.effects.tables == before:
                return results
        return results

    @staticmethod
    def _difference(results: dict[str, tuple]) -> str | None:
        (label_a, (a, trace_a)), (label_b, (b, trace_b)) = results.items()
        found = answer_difference(a, b, labels=(label_a, label_b))
        if found is None and trace_a is not None and trace_b is not None:
            found = trace_a.difference(trace_b, (label_a, label_b))
        return found


def exception_text(exc_info: Any, frames: int = 4) -> tuple[str, bool]:
    """``Type: message`` and the last ``frames`` frames, one line each; and whether it was
    raised in tastypie_djony (where, for a ModelResource, only djony_verify's twins run)."""
    _, error, tb = exc_info
    stack = traceback.extract_tb(tb)
    package = str(Path(tastypie_djony.__file__).parent)
    raised_at = stack[-1].filename if stack else ""
    in_djony = raised_at.startswith(package) and "/verify/" not in raised_at
    message = str(error).strip().splitlines()
    lines = [f"{type(error).__name__}: {message[0] if message else ''}"]
    lines += [f"  {f.filename}:{f.lineno} in {f.name}" for f in stack[-frames:]]
    return "\n".join(lines), in_djony


def _improved(model: Answer, djony: Answer) -> bool:
    """Where ModelResource answers 500, DjonyResource answers a 4xx with a message."""
    if not (model.status >= 500 and 400 <= djony.status < 500):
        return False
    data = decode_json(djony.body)
    if data is not None:
        return isinstance(data, dict) and bool(data.get("error"))
    # Another format (xml, yaml, plist): Tastypie's {"error": message} serialised in it.
    return b"error" in djony.body and not djony.content_type.startswith("text/html")


def normalised(answer: Answer, request: Request, trace: Trace) -> Answer:
    """``answer`` with the keys the write created written ``<new N>`` (as in the rows) and
    the time of the write masked, so the two sides' answers can be compared."""
    model = request.model
    if model is None:
        return answer
    new_keys = trace.new_keys.get(model._meta.db_table, {})
    masked = {f.attname for f in model._meta.concrete_fields if takes_the_time(f)}
    if not new_keys and not masked:
        return answer
    headers = dict(answer.headers)
    if "Location" in headers:
        headers["Location"] = _renamed_uri(headers["Location"], new_keys)
    body = answer.body
    data = decode_json(body)
    if data is not None:
        data = _mask(data, new_keys, masked, model._meta.pk.attname)
        body = json.dumps(data, sort_keys=True).encode()
        headers.pop("Content-Length", None)
    return Answer(answer.status, headers, body, answer.seconds, answer.exception,
                  answer.in_djony)  # fmt: skip


def _renamed_uri(value: str, new_keys: dict[Any, str]) -> str:
    for key, name in new_keys.items():
        value = re.sub(rf"/{re.escape(str(key))}/$", f"/{name}/", value)
    return value


def _mask(value: Any, new_keys: dict[Any, str], masked: set[str], pk: str) -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in masked:
                out[k] = MASKED
            elif k in (pk, "pk") and v in new_keys:
                out[k] = new_keys[v]
            elif k in (pk, "pk") and isinstance(v, str) and v.isdigit() and int(v) in new_keys:
                out[k] = new_keys[int(v)]
            else:
                out[k] = _mask(v, new_keys, masked, pk)
        return out
    if isinstance(value, list):
        return [_mask(v, new_keys, masked, pk) for v in value]
    if isinstance(value, str):
        return _renamed_uri(value, new_keys)
    return value
