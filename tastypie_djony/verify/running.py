"""Sending each request to a resource and to its twin, and comparing the answers.

Both go through the project's URLconf and middleware with Django's test
client: the original through ``ROOT_URLCONF``, the twin through the copy of
it that :mod:`.urlconf` builds (a first middleware, added for the run,
points the request at it).  Every request runs inside a transaction on the
verified database that is rolled back afterwards, so nothing is changed,
not even by a GET whose hooks write; after a write the rows it may have
touched (the row it names and any new one, with their many-to-many links)
are read inside that transaction and compared too.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, models, transaction
from django.db.models import Max
from django.test import Client

from tastypie_djony.verify.differences import Answer, answer_difference, decode_json
from tastypie_djony.verify.generation import Request

#: The ``request.META`` key that sends a request to the twins' URLconf.
URLCONF_KEY = "djony_verify.urlconf"
MIDDLEWARE = "tastypie_djony.verify.running.TwinUrlconfMiddleware"
NEW_KEY = "<new key>"


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

    @property
    def identical(self) -> bool:
        return self.difference is None


class Runner:
    """Sends requests to both sides on database ``using``, as ``headers`` say."""

    def __init__(self, using: str, headers: dict[str, str] | None = None) -> None:
        self.using = using
        self.client = Client(raise_request_exception=False)
        self.headers = dict(headers or {})

    def login(self, user: Any) -> None:
        """Log the client in (session) without a trace: ``last_login`` is rolled back."""
        with transaction.atomic(using=self.using):
            self.client.force_login(user)
            transaction.set_rollback(True, using=self.using)

    def send(self, side: Side, request: Request) -> tuple[Answer, Any]:
        """``side``'s answer to ``request`` and, for a write, the rows afterwards."""
        extra = dict(self.headers)
        if side.urlconf is not None:
            extra[URLCONF_KEY] = side.urlconf
        with transaction.atomic(using=self.using):
            watched = _Watched(request, self.using)
            started = time.perf_counter()
            response = self.client.generic(
                request.method,
                request.path,
                request.body or "",
                content_type="application/json",
                **extra,
            )
            body = response.content
            seconds = time.perf_counter() - started
            rows = watched.rows() if request.writes else None
            transaction.set_rollback(True, using=self.using)
        answer = Answer(response.status_code, dict(response.headers.items()), body, seconds)
        if request.writes:
            answer = watched.normalised(answer)
        return answer, rows

    def compare(self, request: Request, sides: list[Side], first: int = 0) -> Outcome:
        """Send ``request`` to both sides (``first`` picks who goes first) and compare."""
        results = {}
        for side in sides[first:] + sides[:first]:
            results[side.base] = self.send(side, request)
        model, djony = results["ModelResource"], results["DjonyResource"]
        answers = {"ModelResource": model[0], "DjonyResource": djony[0]}
        difference = answer_difference(*answers.values(), labels=tuple(answers))
        if difference is None and model[1] != djony[1]:
            difference = f"rows after the write: {_rows_difference(model[1], djony[1])}"
        improved = _improved(model[0], djony[0])
        if difference is None or improved:
            return Outcome(request, answers, None, improved)
        again, _ = self.send(sides[0], request)
        if answer_difference(again, answers[sides[0].base]) is not None:
            return Outcome(request, answers, None, volatile=True)
        return Outcome(request, answers, difference)


def _improved(model: Answer, djony: Answer) -> bool:
    """DESIGN.md: where ModelResource answers 500, DjonyResource answers a 4xx with a message."""
    if not (model.status >= 500 and 400 <= djony.status < 500):
        return False
    data = decode_json(djony.body)
    return isinstance(data, dict) and bool(data.get("error"))


def _rows_difference(a: Any, b: Any) -> str:
    for table in sorted(set(a) | set(b)):
        if a.get(table) != b.get(table):
            return f"{table}: {a.get(table)!r} != {b.get(table)!r}"
    return "?"


class _Watched:
    """The rows a write may touch: the one it names and any created, with their m2m links."""

    def __init__(self, request: Request, using: str) -> None:
        self.request = request
        self.using = using
        self.model = request.model
        self.max_key = None
        self.new_keys: list[Any] = []
        if request.writes and self.model is not None:
            self.max_key = self.manager().aggregate(top=Max("pk"))["top"]

    def manager(self) -> Any:
        return self.model._base_manager.using(self.using)

    def masked(self) -> set[str]:
        """Fields whose value is the time of the write (``auto_now``): not compared."""
        return {
            f.attname
            for f in self.model._meta.concrete_fields
            if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
        }

    def rows(self) -> dict[str, Any]:
        if self.model is None:
            return {}
        try:
            return self._rows()
        except DatabaseError as error:  # the write left the transaction aborted
            return {"unreadable": type(error).__name__}

    def _rows(self) -> dict[str, Any]:
        condition = models.Q(pk=self.request.key) if self.request.key is not None else models.Q()
        if isinstance(self.max_key, int):
            condition |= models.Q(pk__gt=self.max_key)
            self.new_keys = list(
                self.manager()
                .filter(pk__gt=self.max_key)
                .order_by("pk")
                .values_list("pk", flat=True)
            )
        elif self.request.key is None:
            return {}
        masked = self.masked()
        rows = [
            {k: self._key(v) if k == self.model._meta.pk.attname else v for k, v in row.items()
             if k not in masked}
            for row in self.manager().filter(condition).order_by("pk").values()
        ]  # fmt: skip
        found: dict[str, Any] = {self.model._meta.db_table: rows}
        keys = [self.request.key, *self.new_keys]
        for field in self.model._meta.many_to_many:
            if not hasattr(field, "m2m_field_name"):
                continue  # a to-many of its own class (taggit's TaggableManager): no link table
            through = field.remote_field.through
            source = field.m2m_field_name()
            target = field.m2m_reverse_field_name()
            links = through._base_manager.using(self.using).filter(**{f"{source}__in": keys})
            found[through._meta.db_table] = sorted(
                ((str(self._key(s)), t) for s, t in links.values_list(source, target)), key=repr
            )
        return found

    def _key(self, value: Any) -> Any:
        return NEW_KEY if value in self.new_keys else value

    def normalised(self, answer: Answer) -> Answer:
        """``answer`` with new keys (sequences are not rolled back) and auto_now values masked."""
        if not self.new_keys and not self.masked():
            return answer
        headers = dict(answer.headers)
        body = answer.body
        for key in self.new_keys:
            pattern = re.compile(rf"(/){re.escape(str(key))}(/)")
            if "Location" in headers:
                headers["Location"] = pattern.sub(rf"\g<1>{NEW_KEY}\g<2>", headers["Location"])
        data = decode_json(body)
        if data is not None:
            data = self._mask(data)
            body = json.dumps(data, sort_keys=True).encode()
            headers.pop("Content-Length", None)
        return Answer(answer.status, headers, body, answer.seconds)

    def _mask(self, value: Any) -> Any:
        if isinstance(value, dict):
            masked = self.masked()
            pk = self.model._meta.pk.attname
            out = {}
            for k, v in value.items():
                if k in masked:
                    out[k] = "<time of the write>"
                elif k == pk and v in self.new_keys:
                    out[k] = NEW_KEY
                else:
                    out[k] = self._mask(v)
            return out
        if isinstance(value, list):
            return [self._mask(v) for v in value]
        if isinstance(value, str):
            for key in self.new_keys:
                value = re.sub(rf"/{re.escape(str(key))}/$", f"/{NEW_KEY}/", value)
        return value
