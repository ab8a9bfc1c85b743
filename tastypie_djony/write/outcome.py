"""A write request's answer is the truth: a 2xx only for rows committed, a 5xx leaves nothing.

Every write request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) a ``DjonyResource``
serves runs in one ``transaction.atomic()`` on the model's write database: a
transaction of its own in autocommit, a savepoint inside one the project opened
(``ATOMIC_REQUESTS``, a test case).  Its write steps are savepoints inside it
(:meth:`~tastypie_djony.write.flow.DjangoWritesMixin.write_step`).  Once the view
has answered:

* a 5xx (an exception Tastypie turned into its 500, an ``ImmediateHttpResponse`` of a
  5xx) rolls back everything the request wrote, the project's hooks' rows included:
  a client that retries a 500 creates no duplicate.  ModelResource keeps what was
  written before the failure, in autocommit and under ``ATOMIC_REQUESTS`` alike (whose
  transaction commits Tastypie's 500 *response*);
* anything else commits only if the transaction is still good
  (:class:`~djony.serving.TransactionWatch`): a database error project code caught
  after the last write step (in the answer's ``dehydrate()``), which left the
  transaction aborted, makes a 2xx the failed write it is (:func:`failed_write_response`);
* a 4xx commits what the project's code wrote before the refusal, as ModelResource
  does; a refused write step dooms a transaction the project opened, as Django's
  ``save()`` does (:func:`doom_project_transaction`), and nothing of DjonyResource's own.

A commit the database refuses (a deferred constraint) is the 400 of a refused write;
a commit that fails otherwise (the connection lost) is a 500.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django import db as django_db
from django.conf import settings
from django.db import connections, transaction
from django.http import HttpResponse

from djony.serving import TransactionWatch
from tastypie_djony.stock import bad_request_response
from tastypie_djony.write.errors import WriteLost


@dataclass
class WriteRequest:
    """The write request running now on one database."""

    alias: str
    watch: TransactionWatch
    #: Whether a transaction the project opened encloses the request's own.
    in_project_transaction: bool
    #: A write step was refused: the project's transaction goes as with Django's ``save()``.
    doom_project: bool = False


_current: contextvars.ContextVar[WriteRequest | None] = contextvars.ContextVar(
    "tastypie_djony_write_request", default=None
)


def current_write_request(alias: str) -> WriteRequest | None:
    """The write request running on ``alias``, if any."""
    running = _current.get()
    return running if running is not None and running.alias == alias else None


@contextlib.contextmanager
def watching(alias: str) -> Iterator[TransactionWatch]:
    """The running write request's watch on ``alias``, or one installed for the block
    (a write step called outside a request)."""
    running = current_write_request(alias)
    if running is not None:
        yield running.watch
        return
    with TransactionWatch(alias) as watch:
        yield watch


def doom_project_transaction(alias: str) -> None:
    """Mark the transaction the project opened around the write for rollback.

    What Django's own ``save()`` and ``delete()`` do when the database refuses them
    (under ``ATOMIC_REQUESTS`` ModelResource's request is rolled back whole).  Inside a
    write request it is the project's transaction outside the request's own, marked
    once the request's transaction has ended; outside one, the innermost ``atomic()``.
    """
    running = current_write_request(alias)
    if running is not None:
        running.doom_project = True
    elif connections[alias].in_atomic_block:
        transaction.set_rollback(True, using=alias)


def answer_write(
    resource: Any,
    view: Callable[..., HttpResponse],
    alias: str,
    request: Any,
    *args: Any,
    **kwargs: Any,
) -> HttpResponse:
    """``view``'s answer to a write request, its transaction settled by the answer."""
    running = WriteRequest(alias, TransactionWatch(alias), connections[alias].in_atomic_block)
    token = _current.set(running)
    response = None
    try:
        with running.watch, transaction.atomic(using=alias):
            response = view(request, *args, **kwargs)
            response = _settle(resource, request, response, running)
    except django_db.Error as exc:
        if response is None:
            raise  # raised by the view itself (Tastypie re-raises for a test client)
        response = failed_write_response(resource, request, exc)  # the commit failed
    finally:
        _current.reset(token)
    if running.doom_project and running.in_project_transaction:
        transaction.set_rollback(True, using=alias)
    return response


def _settle(resource: Any, request: Any, response: HttpResponse, running: WriteRequest) -> Any:
    """Roll back a 5xx and a lost transaction; a 2xx of a lost transaction is a failure."""
    if response.status_code >= 500:
        transaction.set_rollback(True, using=running.alias)
        return response
    if not running.watch.lost():
        return response
    transaction.set_rollback(True, using=running.alias)
    if response.status_code >= 400:
        return response  # the client's own error stands; nothing the request wrote is kept
    return failed_write_response(resource, request, WriteLost.found(running.watch.cause()))


def failed_write_response(resource: Any, request: Any, exc: BaseException) -> HttpResponse:
    """The answer to a write that failed outside Tastypie's view: a refusal's 400, or its 500.

    As Tastypie's view wrapper answers: a ``BadRequest`` body, or its canned 500
    (logged, ``got_request_exception`` sent), re-raised for a test client and with
    ``TASTYPIE_FULL_DEBUG``.
    """
    refusal = resource.write_refusal(exc)
    if refusal is not None:
        return bad_request_response(resource, request, refusal)
    if settings.DEBUG and getattr(settings, "TASTYPIE_FULL_DEBUG", False):
        raise exc
    if request.META.get("SERVER_NAME") == "testserver":
        raise exc
    try:
        raise exc
    except type(exc):  # Tastypie's 500 reads the exception being handled
        return resource._handle_500(request, exc)
