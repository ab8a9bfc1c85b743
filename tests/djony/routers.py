"""A primary/replica router as Django's documentation writes one.

Reads go to the ``replica`` alias, writes to ``default``; the router tests
(:mod:`tests.djony.test_routers`) install it with ``override_settings``.
:class:`InstanceRouter` is the variant that reads an object's relations from
the database the object came from (``instance._state.db``), which is what
Django does when no router has an opinion.
"""

from __future__ import annotations

from typing import Any


class PrimaryReplicaRouter:
    def db_for_read(self, model: type, **hints: Any) -> str:
        return "replica"

    def db_for_write(self, model: type, **hints: Any) -> str:
        return "default"

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == "default"


class InstanceRouter(PrimaryReplicaRouter):
    """Related reads of an object from its own database, other reads from the replica."""

    def db_for_read(self, model: type, **hints: Any) -> str:
        instance = hints.get("instance")
        if instance is not None and instance._state.db:
            return instance._state.db
        return "replica"
