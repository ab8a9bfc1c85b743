"""The current tenant of this thread, as multi-tenant middleware keeps it."""

from __future__ import annotations

import threading

from django.db.models import Expression, IntegerField

_local = threading.local()


def set_tenant(tenant_id: int | None) -> None:
    _local.tenant_id = tenant_id


def current_tenant() -> int | None:
    return getattr(_local, "tenant_id", None)


class CurrentTenant(Expression):
    """The current tenant's key, read when the query is compiled (not when it is built)."""

    output_field = IntegerField()

    def as_sql(self, compiler, connection):
        return "%s", [current_tenant()]
