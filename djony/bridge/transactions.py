"""Where the writes of a Pony ``db_session`` run: always inside Django's transactions.

When Pony first writes in a session (or, after a ``commit()``, first touches
the database again) djony opens a *scope* on Django's connection:

* :class:`OwnTransaction` when Django is in autocommit: a
  ``transaction.atomic()`` of Pony's own.  Django code running later in the
  same session joins it (Django's own ``atomic()`` blocks nest inside it as
  savepoints), and it commits when Pony commits, normally at the end of the
  session.
* :class:`Savepoint` when Django is inside an ``atomic()`` block: a savepoint
  in Django's transaction.  Pony's commit releases it (the writes become part
  of Django's transaction, committed or rolled back with it); Pony's rollback
  rolls back to it, undoing exactly what Pony wrote.

Django's atomic blocks and Pony's sessions need not nest: a ``db_session`` may
open ``transaction.atomic()`` blocks and flush inside them.  A savepoint is
therefore a plain savepoint, not an ``Atomic`` block Django would pop as its
own; when the atomic block it was made in has ended, the writes have shared
that block's fate and the scope is simply gone.  Before every statement Pony
runs, :func:`ensure_scope` checks that the scope is still open and opens a
new one if Pony is writing, so no Pony write ever runs in autocommit.
"""

from __future__ import annotations

from typing import Any, Protocol

from django.db import connections, transaction
from django.db.transaction import TransactionManagementError


class Scope(Protocol):
    alias: str

    def is_open(self) -> bool: ...

    def close(self, failed: bool) -> None: ...


class OwnTransaction:
    """A ``transaction.atomic()`` Pony entered while Django was in autocommit."""

    def __init__(self, alias: str) -> None:
        self.alias = alias
        self.atomic = transaction.atomic(using=alias)
        self.atomic.__enter__()

    def is_open(self) -> bool:
        return any(block is self.atomic for block in connections[self.alias].atomic_blocks)

    def close(self, failed: bool) -> None:
        connection = connections[self.alias]
        if not self.is_open():
            return
        if connection.atomic_blocks[-1] is not self.atomic:
            raise TransactionManagementError(
                f"Pony's {'rollback' if failed else 'commit'}() was called inside a "
                "transaction.atomic() block that began after this db_session's first write; "
                "Django's transaction cannot end before that block. Leave the atomic block "
                "first, or let the db_session end."
            )
        if failed:
            error = RuntimeError("Pony db_session rolled back")
            self.atomic.__exit__(RuntimeError, error, None)
        else:
            self.atomic.__exit__(None, None, None)


class Savepoint:
    """A savepoint Pony made inside an atomic block of Django's."""

    def __init__(self, alias: str) -> None:
        connection = connections[alias]
        self.alias = alias
        self.blocks = list(connection.atomic_blocks)
        self.savepoint_ids = list(connection.savepoint_ids)
        self.sid = connection.savepoint()

    def _state(self) -> str:
        """``open``, ``covered`` (a newer atomic block is active above it) or ``gone``."""
        connection = connections[self.alias]
        blocks, depth = connection.atomic_blocks, len(self.blocks)
        if (
            not connection.in_atomic_block
            or len(blocks) < depth
            or any(a is not b for a, b in zip(blocks, self.blocks, strict=False))
            or connection.savepoint_ids[: len(self.savepoint_ids)] != self.savepoint_ids
        ):
            return "gone"
        return "open" if len(blocks) == depth else "covered"

    def is_open(self) -> bool:
        return self._state() != "gone"

    def close(self, failed: bool) -> None:
        state = self._state()
        if state == "gone":
            return  # ended with the atomic block it was made in
        connection = connections[self.alias]
        if state == "covered":
            if failed:
                raise TransactionManagementError(
                    "Pony's rollback() was called inside a transaction.atomic() block that "
                    "began after this db_session's first write, so Pony cannot undo its "
                    "writes alone. Roll back the atomic block instead (raise an exception "
                    "out of it, or call transaction.set_rollback(True))."
                )
            return  # the writes stay in Django's transaction; the savepoint ends with it
        if failed:
            connection.savepoint_rollback(self.sid)
        else:
            connection.savepoint_commit(self.sid)


def open_scope(alias: str) -> Scope:
    """The scope for Pony's next writes, given Django's state on ``alias``."""
    if connections[alias].in_atomic_block:
        return Savepoint(alias)
    return OwnTransaction(alias)


def ensure_scope(cache: Any, alias: str) -> None:
    """Before a statement: make sure a writing session runs inside a scope."""
    scope = getattr(cache, "djony_scope", None)
    if scope is not None and scope.is_open():
        return
    cache.djony_scope = None
    cache.in_transaction = False
    if cache.immediate:
        cache.djony_scope = open_scope(alias)
        cache.in_transaction = True


def close_scope(cache: Any, failed: bool) -> None:
    """Pony commits (``failed=False``) or rolls back: end the session's scope.

    A scope that cannot end yet (Pony's ``commit()``/``rollback()`` called
    inside an atomic block opened after its first write) raises
    ``TransactionManagementError``; Pony then gives up the session, so the
    scope is kept on Django's connection and rolled back by
    :func:`settle_orphans` as soon as that block has ended.
    """
    scope = getattr(cache, "djony_scope", None)
    cache.djony_scope = None
    cache.in_transaction = False
    if scope is None:
        return
    try:
        scope.close(failed)
    except TransactionManagementError:
        orphans = _orphans(scope.alias)
        if scope not in orphans:
            orphans.append(scope)
        raise


def _orphans(alias: str) -> list[Scope]:
    connection = connections[alias]
    orphans = getattr(connection, "djony_orphans", None)
    if orphans is None:
        orphans = connection.djony_orphans = []
    return orphans


def settle_orphans(alias: str) -> None:
    """Roll back the scopes of abandoned Pony sessions once they can end."""
    orphans = getattr(connections[alias], "djony_orphans", None)
    while orphans:
        scope = orphans[-1]
        try:
            scope.close(failed=True)
        except TransactionManagementError:
            return  # the newer atomic block is still active
        orphans.pop()
