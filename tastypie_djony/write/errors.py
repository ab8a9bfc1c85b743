"""Which errors of a write are the client's: a 400 where ModelResource answers 500.

A refusal by the database (unique, not null, a reference, ``PROTECT``) and a
value a field cannot convert are the client's; a project's own hook or
``save()`` raising is not, and stays the 500 it is with ModelResource.  How
they are worded: :mod:`tastypie_djony.write.refusals`.
"""

from __future__ import annotations

import sysconfig

from django import db as django_db
from django.db import models

from djony.serving import backends

#: What the database refuses on a save or delete: a 400 naming the model.
DJANGO_REFUSED = (
    django_db.IntegrityError,
    django_db.DataError,
    models.ProtectedError,
    models.RestrictedError,
)

#: What Django's fields raise for a value they cannot convert (ModelResource: a 500).
UNSTORABLE = (ValueError, TypeError, AttributeError, OverflowError)

#: Where a client's value is converted: an UNSTORABLE error raised there is a bad value.
VALUE_CONVERSION = (
    "tastypie/fields.py",
    "dateutil/",
    "django/utils/dateparse.py",
    "django/utils/duration.py",
    "django/db/models/fields/",
    "django/db/backends/",
)
STDLIB = sysconfig.get_paths()["stdlib"].replace("\\", "/")

#: Database drivers: their frames are passed over like the standard library's (a lone
#: surrogate refused by the driver's encoding is a value Django's backend handed it).
DRIVER_PACKAGES = ("psycopg/", "psycopg_binary/", "psycopg_c/", "psycopg2/", "MySQLdb/")


def raised_by_value_conversion(exc: BaseException) -> bool:
    """Whether ``exc`` was raised converting a client's value (Tastypie's or Django's fields).

    Decided by the innermost frame outside Python's standard library: a field's
    ``convert``/``hydrate``, Django's ``to_python``/``get_db_prep_value``, the backend's
    adaptation, a date parser.  A project's own hook or ``save()`` raising is not a bad
    value: it stays the 500 it is with ModelResource.
    """
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename.replace("\\", "/"))
        tb = tb.tb_next
    for path in reversed(frames):
        if path.startswith(STDLIB) and "-packages/" not in path:
            continue
        if any(driver in path for driver in DRIVER_PACKAGES):
            continue
        return any(part in path for part in VALUE_CONVERSION)
    return False


class WriteLost(RuntimeError):
    """The database aborted a write's transaction (or Django doomed it) before its commit.

    Project code caught the statement's error and went on, so nothing raised it: the
    commit would roll back, or keep only part of the write.  Nothing of the write is
    stored.  ``__cause__`` is the error that lost the transaction, when one was seen.
    """

    @classmethod
    def found(cls, cause: BaseException | None) -> WriteLost:
        told = f" ({type(cause).__name__}: {_first_line(cause)})" if cause is not None else ""
        lost = cls(
            f"The database lost this write's transaction before its commit{told}: project "
            "code caught the error and went on. Nothing of the write was stored; run the "
            "statement that may fail in its own transaction.atomic() to go on after it."
        )
        lost.__cause__ = cause
        return lost


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else ""


def refused_by_driver(exc: BaseException, alias: str) -> bool:
    """Whether a ``ProgrammingError`` is the driver refusing a client's value (MySQL's nan/inf)."""
    return isinstance(exc, django_db.ProgrammingError) and backends.for_alias(alias).refused_data(
        exc
    )
