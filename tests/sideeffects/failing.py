"""Failures a write can meet, injected where real projects meet them.

``ParcelResource`` (:mod:`tests.sideeffects.api`) and ``Parcel.delete()`` call
:func:`trip` at their points:

``hydrate``
    the resource's ``hydrate()``, before the object is saved;
``save_m2m``
    the resource's ``save_m2m()``, after the row and its links were written;
``delete``
    ``Parcel.delete()``, after the row was deleted;
``dehydrate``
    the resource's ``dehydrate()`` building the answer after the write (only once
    something was written in the request: a PATCH dehydrates before it writes).

:data:`PLAN` names the point that fails and how (:data:`KINDS`); every trip first
writes an :class:`~tests.sideeffects.models.AuditRecord`, as a hook that records
something would, so "nothing it wrote" covers the project's own rows too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import DatabaseError, IntegrityError, connection

POINTS = ("hydrate", "save_m2m", "delete", "dehydrate")

#: How a point fails.
KINDS = {
    "raise": "the project's code raises a plain exception",
    "db_error": "a statement the database refuses (a missing table), not caught",
    "db_error_caught": "the same statement, its error caught by the hook (a raw cursor)",
    "orm_error_caught": "a unique clash from the ORM, caught by the hook",
    "orm_error": "a unique clash of a row the hook writes with values of its own, not caught",
    "terminated": "the database server ends the connection",
    "deadlock_caught": "MySQL: a deadlock rolls the transaction back, its error caught by the hook",
}


class HookFailure(RuntimeError):
    """The plain exception the ``raise`` kind raises."""


@dataclass
class Plan:
    point: str = ""
    kind: str = ""
    #: Set once the request wrote its object (``save_m2m``, ``delete``).
    wrote: bool = False
    #: The database errors the hooks caught.
    caught: list[BaseException] = field(default_factory=list)


PLAN = Plan()


def arm(point: str, kind: str) -> None:
    """Make ``point`` fail as ``kind`` says, for the requests that follow."""
    if point not in POINTS or kind not in KINDS:
        raise ValueError(f"unknown failure {point}/{kind}")
    PLAN.point, PLAN.kind, PLAN.wrote = point, kind, False
    PLAN.caught.clear()


def disarm() -> None:
    PLAN.point, PLAN.kind, PLAN.wrote = "", "", False
    PLAN.caught.clear()


def trip(point: str) -> None:
    """Fail here if :data:`PLAN` says so."""
    if point in ("save_m2m", "delete"):
        PLAN.wrote = True
    if point != PLAN.point or (point == "dehydrate" and not PLAN.wrote):
        return
    from tests.sideeffects.models import AuditRecord, Blogger, Keyword

    AuditRecord.objects.create(event="tripped", model="parcel", detail=f"{point}/{PLAN.kind}")
    kind = PLAN.kind
    if kind == "raise":
        raise HookFailure(f"the {point} hook failed")
    if kind == "terminated":
        _terminate_connection()
    elif kind == "deadlock_caught":
        try:
            _deadlock()
        except DatabaseError as exc:
            PLAN.caught.append(exc)
    elif kind == "orm_error":
        Blogger.objects.create(name="ann")  # a seed row's name: unique; no field writes it
    elif kind == "orm_error_caught":
        try:
            Keyword.objects.create(name="red")  # a seed row's name: unique
        except IntegrityError as exc:
            PLAN.caught.append(exc)
    else:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT * FROM sideeffects_no_such_table")
        except DatabaseError as exc:
            if kind == "db_error":
                raise
            PLAN.caught.append(exc)


def _deadlock() -> None:
    """This connection's transaction dies in a deadlock with another, heavier one (MySQL).

    The other connection locks blogger 2 after writing 50 rows; this one locks blogger
    1, the other waits for it, and this one asks for blogger 2: InnoDB rolls back the
    lighter transaction, this one, with error 1213.  Outside a transaction there is no
    lock to hold: nothing happens.
    """
    import threading

    import MySQLdb

    if not connection.in_atomic_block:
        return
    settings = connection.settings_dict

    def connect():
        return MySQLdb.connect(
            host=settings["HOST"],
            port=int(settings["PORT"]),
            user=settings["USER"],
            password=settings["PASSWORD"],
            database=settings["NAME"],
        )

    other = connect()
    update = "UPDATE sideeffects_blogger SET posts_count = posts_count WHERE id = %s"
    try:
        other.autocommit(False)
        theirs = other.cursor()
        theirs.executemany(
            "INSERT INTO sideeffects_auditrecord (event, model, detail) VALUES (%s, %s, %s)",
            [("weight", "other", str(n)) for n in range(50)],
        )
        theirs.execute("SET SESSION innodb_lock_wait_timeout = 10")
        theirs.execute(update, (2,))
        with connection.cursor() as cursor:
            cursor.execute("SET SESSION innodb_lock_wait_timeout = 10")
            cursor.execute(update, (1,))
            other_id = other.thread_id()  # (not while the thread uses the connection)
            waiting = threading.Thread(target=theirs.execute, args=(update, (1,)))
            waiting.start()
            _until_waiting(connect, other_id)  # the other connection now waits for blogger 1
            try:
                cursor.execute(update, (2,))
            finally:
                waiting.join(timeout=20)
    finally:
        other.rollback()
        other.close()


def _until_waiting(connect, thread_id: int, seconds: float = 10.0) -> None:
    """Until the connection ``thread_id`` waits for a row lock (at most ``seconds``), asked
    on a connection of its own (``connect()``): this one's statements stay the hook's.

    InnoDB refreshes what INNODB_TRX shows only when it was not read for 0.1 s: asked
    more often, it shows the same (stale) transactions for ever.
    """
    import time

    watcher = connect()
    try:
        cursor = watcher.cursor()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT COUNT(*) FROM information_schema.INNODB_TRX "
                "WHERE trx_mysql_thread_id = %s AND trx_state = 'LOCK WAIT'",
                [thread_id],
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.12)
    finally:
        watcher.close()


def _terminate_connection() -> None:
    """The server ends this connection (an administrator's kill, a failover)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        elif connection.vendor == "mysql":
            cursor.execute("KILL CONNECTION_ID()")
        else:
            raise ValueError("SQLite has no server to end the connection")
