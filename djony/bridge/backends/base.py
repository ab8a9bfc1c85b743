"""What a backend module provides; the defaults suit a database with no quirks.

A backend answers five questions for djony:

* which Pony provider runs the SQL (:meth:`Backend.provider`, with
  converters that store values as Django does);
* whether djony can serve a given Django connection at all
  (:meth:`Backend.problem`, reported by the ``djony.E002`` system check);
* what to do once to each raw connection Django opens
  (:meth:`Backend.prepare_connection`);
* which errors of a read mean "the database refused the client's value"
  (:meth:`Backend.read_refusal`, from :meth:`Backend.refused_value_type` and
  :meth:`Backend.refused_pattern`) and which of a write
  (:meth:`Backend.refused_data`), so they become a 400 and not a 500;
* which words of its driver's messages tell the kinds of a refused write
  apart (:attr:`Backend.refusal_words`);
* whether the database ended or aborted the transaction a connection holds
  open (:meth:`Backend.transaction_lost`), which Django cannot tell.

Override in a backend module's subclass where the database or its driver
differs; a new vendor is a new module (see :mod:`djony.bridge.backends`).
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

from django.db import DataError, OperationalError, ProgrammingError


class ReadRefusal(enum.Enum):
    """What a database refusing a read query says about the client's input."""

    #: A filter value the database cannot take (bad data, a NUL byte, out of range).
    VALUE = "value"
    #: A ``regex`` pattern the database cannot compile.
    PATTERN = "pattern"
    #: A value whose type the lookup cannot take (``?name__iexact=true`` made a boolean).
    VALUE_TYPE = "value type"


class Backend:
    """One kind of database, as djony drives it through Pony.

    Subclasses set :attr:`vendor`, implement :meth:`provider` and override the
    hooks where their database or driver differs.
    """

    #: Django's ``connection.vendor``.
    vendor: ClassVar[str]
    #: The largest ``LIMIT``/``OFFSET`` the database accepts.
    max_rows: ClassVar[int] = 2**63 - 1
    #: Kind of refused write -> words of the driver's message that tell it (lower case);
    #: the kinds are ``unique``, ``reference``, ``required``, ``range`` and ``length``.
    refusal_words: ClassVar[dict[str, tuple[str, ...]]] = {}

    def provider(self, django_connection: Any) -> type:
        """The Pony provider class (a subclass of Pony's, with Django's converters).

        djony adds its transaction bridge on top (:mod:`djony.bridge.connection`).
        """
        raise NotImplementedError

    def bind_kwargs(self) -> dict[str, Any]:
        """Extra keyword arguments for ``Database.bind`` (besides the pool)."""
        return {}

    def problem(self, django_connection: Any) -> str | None:
        """Why djony cannot serve ``django_connection``, or ``None`` when it can.

        Override to refuse a driver or a configuration; the text is the
        message of the ``djony.E002`` system check.
        """
        return None

    def prepare_connection(self, django_connection: Any) -> None:
        """Set up a raw connection Django opened; called before every Pony session.

        Override for what the Pony provider does to the connections it
        opens itself (session settings, SQL functions); use
        :func:`once_per_raw_connection` to do it once.
        """

    def driver_error(self, exc: BaseException) -> BaseException:
        """The driver's exception as Pony's provider expects to see it."""
        return exc

    def read_refusal(self, exc: BaseException, django_connection: Any) -> ReadRefusal | None:
        """What ``exc``, raised running a read query, says about the client's input.

        ``None`` when it is no refusal of the client's input (a real error, to be
        raised).  The driver's exceptions are those of the module the connection
        uses, or Django's wrapping of them (a query run on Django's cursor); override
        :meth:`refused_pattern` and :meth:`refused_value_type` for the database's own codes.
        """
        driver = self.provider(django_connection).dbapi_module
        if isinstance(exc, (DataError, ValueError, OverflowError, driver.DataError)):
            return ReadRefusal.VALUE
        if isinstance(exc, (OperationalError, driver.OperationalError)):
            return ReadRefusal.PATTERN if self.refused_pattern(exc) else None
        if isinstance(exc, (ProgrammingError, driver.ProgrammingError)):
            return ReadRefusal.VALUE_TYPE if self.refused_value_type(exc) else None
        return None

    def refused_value_type(self, exc: BaseException) -> bool:
        """Whether a ``ProgrammingError`` is about the type of a client's value."""
        return False

    def refused_pattern(self, exc: BaseException) -> bool:
        """Whether an ``OperationalError`` is the database refusing a ``regex`` value."""
        return False

    def refused_data(self, exc: BaseException) -> bool:
        """Whether a ``ProgrammingError`` during a write is the driver refusing a value."""
        return False

    def transaction_lost(self, django_connection: Any, errors: list[BaseException]) -> bool:
        """Whether the database aborted or ended the transaction ``django_connection`` holds.

        Asked inside an ``atomic()`` block before it commits: Django commits a block
        that exits without an exception even when a statement failed in it and project
        code caught the error.  ``errors`` are the database errors statements raised
        since the block began (:mod:`djony.bridge.watch`).  Override with the
        database's own sign (its driver's transaction status, the errors after which
        it rolls a transaction back).
        """
        return False


def once_per_raw_connection(django_connection: Any, marker: str) -> bool:
    """True the first time it is asked about Django's current raw connection.

    Django opens new raw connections (requests, reconnects, threads, a pool
    handing out another one); setup done to one must be done to each.
    """
    raw = django_connection.connection
    if getattr(django_connection, marker, None) is raw:
        return False
    setattr(django_connection, marker, raw)
    return True
