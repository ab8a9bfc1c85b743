"""Whether a transaction Django holds open is still good, before it is committed.

Django commits an ``atomic()`` block that exits without an exception, and says
nothing when the transaction was already lost: PostgreSQL aborts it at the first
failed statement (its COMMIT then rolls back without an error), InnoDB rolls it
back on a deadlock, SQLite on a full disk, and a block Django itself marked for
rollback (an ORM error caught inside it) is rolled back silently.  Project code that
catches a statement's error leaves exactly that.

A :class:`TransactionWatch` records the database errors statements raise on one
connection (caught or not; Pony's statements run through Django's cursor too) while
it is installed, and :meth:`TransactionWatch.lost` asks Django and the database's
backend (:meth:`~djony.bridge.backends.base.Backend.transaction_lost`) whether the
transaction survived them.
"""

from __future__ import annotations

from typing import Any

from django import db as django_db
from django.db import connections

from djony.bridge import backends


class TransactionWatch:
    """The database errors raised on Django's connection ``alias`` while installed.

    Use as a context manager (it is a Django ``execute_wrapper``)::

        with TransactionWatch("default") as watch, transaction.atomic():
            since = watch.mark()
            ...                      # project code, which may catch errors
            if watch.lost(since):    # inside the block: raising undoes it
                raise ...
    """

    def __init__(self, alias: str) -> None:
        self.alias = alias
        self.errors: list[BaseException] = []
        #: ``id()`` of each error in :attr:`errors` -> the statement that raised it.
        self._statements: dict[int, str] = {}

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: dict) -> Any:
        try:
            return execute(sql, params, many, context)
        except django_db.Error as exc:
            self.errors.append(exc)
            self._statements[id(exc)] = sql
            raise

    def statement_of(self, exc: BaseException) -> str | None:
        """The SQL of the statement that raised ``exc`` while watched, if it was one."""
        return self._statements.get(id(exc)) if any(e is exc for e in self.errors) else None

    def __enter__(self) -> TransactionWatch:
        connections[self.alias].execute_wrappers.append(self)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        wrappers = connections[self.alias].execute_wrappers
        if self in wrappers:
            wrappers.remove(self)

    def mark(self) -> int:
        """A position in :attr:`errors`: what :meth:`lost` and :meth:`cause` look at after it."""
        return len(self.errors)

    def lost(self, since: int = 0) -> bool:
        """Whether the open transaction can no longer commit what it holds.

        Django marked the innermost ``atomic()`` for rollback, the connection was
        closed inside it, or the database aborted or ended the transaction.  Outside
        an ``atomic()`` block there is nothing to lose.
        """
        connection = connections[self.alias]
        if not connection.in_atomic_block:
            return False  # autocommit: each statement was its own transaction
        if connection.needs_rollback or connection.closed_in_transaction:
            return True
        return backends.for_connection(connection).transaction_lost(connection, self.errors[since:])

    def cause(self, since: int = 0) -> BaseException | None:
        """The first database error raised after ``since``: what lost the transaction."""
        errors = self.errors[since:]
        return errors[0] if errors else None
