"""Everything djony knows about one kind of database, one module per backend.

``djony.bridge.backends.<vendor>`` (named like Django's ``connection.vendor``:
``sqlite``, ``postgresql``, ``mysql``) defines a
:class:`~djony.bridge.backends.base.Backend` subclass and exposes an instance as
``backend``.  It owns the Pony provider subclass, the value converters, what
is done once to each connection Django opens, how the database's and the
driver's errors are classified (:func:`read_refusal`) and the words its
driver's messages use for a refused write (:data:`REFUSAL_KINDS`, the union of
every backend's).  Adding a backend means adding one module and its name to
:data:`VENDORS`.
"""

from __future__ import annotations

import importlib
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import connections

from djony.bridge.backends.base import Backend, ReadRefusal

__all__ = [
    "REFUSAL_KINDS",
    "VENDORS",
    "Backend",
    "ReadRefusal",
    "for_alias",
    "for_connection",
    "read_refusal",
]

#: The vendors djony has a backend module for (Django's ``connection.vendor``).
VENDORS = ("sqlite", "postgresql", "mysql")


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


def read_refusal(alias: str, exc: BaseException) -> ReadRefusal | None:
    """What ``exc``, raised by a read on Django's ``alias``, says about the client's input.

    ``None`` when it is not the client's (see :meth:`Backend.read_refusal`).
    """
    django_connection = connections[alias]
    return for_connection(django_connection).read_refusal(exc, django_connection)


def _refusal_kinds() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each kind of refused write with the words of every backend's driver that tell it.

    The kinds in the order they are told apart (a text naming a unique constraint
    and a column that cannot be null is about the unique constraint); a write's
    error text does not say which database it came from, so every backend's
    words count.
    """
    kinds: dict[str, list[str]] = {
        kind: [] for kind in ("unique", "reference", "required", "range", "length")
    }
    for vendor in VENDORS:
        backend = importlib.import_module(f"{__name__}.{vendor}").backend
        for kind, words in backend.refusal_words.items():
            kinds[kind].extend(word for word in words if word not in kinds[kind])
    return tuple((kind, tuple(words)) for kind, words in kinds.items())


#: Kind of refused write -> the words of the drivers' messages that tell it (lower case).
REFUSAL_KINDS = _refusal_kinds()
