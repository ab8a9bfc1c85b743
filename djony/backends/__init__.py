"""Everything djony knows about one kind of database, one module per backend.

``djony.backends.<vendor>`` (named like Django's ``connection.vendor``:
``sqlite``, ``postgresql``, ``mysql``) defines a
:class:`~djony.backends.base.Backend` subclass and exposes an instance as
``backend``.  It owns the Pony provider subclass, the value converters, what
is done once to each connection Django opens, and how the database's and the
driver's errors are classified.  Adding a backend means adding one module.
"""

from __future__ import annotations

import importlib
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import connections

from djony.backends.base import Backend

__all__ = ["Backend", "for_alias", "for_connection"]


def for_connection(django_connection: Any) -> Backend:
    """The backend serving a Django ``DatabaseWrapper`` (by its ``vendor``)."""
    vendor = django_connection.vendor
    module_name = f"{__name__}.{vendor}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise ImproperlyConfigured(
            f"djony has no backend for the {vendor!r} database vendor (database "
            f"{django_connection.alias!r}); it supports sqlite, postgresql and mysql."
        ) from None
    return module.backend


def for_alias(alias: str) -> Backend:
    """The backend serving Django's database ``alias``."""
    return for_connection(connections[alias])
