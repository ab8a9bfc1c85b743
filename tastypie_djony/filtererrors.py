"""What a client's filters, values and offsets break, told as Tastypie's 400.

An object list compiles the client's filters with Django and runs them on the
database: an unknown lookup or path, a value Django's lookup refuses when it compiles
(``isnull=maybe``, a one-value ``range``), a lookup the backend lacks (or one registered
for another, ``django.contrib.postgres``'s ``contained_by`` on SQLite), or a value the
database refuses (a NUL byte, a regular expression it cannot compile, a value out of
range) is the client's, a 400 with the reason's first line (never the SQL, whose text
names tables).  :func:`lookup_errors_as_bad_request` for ``filter()``/``exclude()``,
:func:`as_sql` for compiling, :func:`read_refused` for what the database answered.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import FieldError
from django.db import NotSupportedError
from tastypie.exceptions import BadRequest

from djony.serving import backends

#: Errors Django raises while compiling SQL for a client's filter value.
COMPILE_ERRORS = (
    ValueError,
    TypeError,
    IndexError,
    AttributeError,
    OverflowError,
    NotSupportedError,
)


@contextmanager
def lookup_errors_as_bad_request() -> Iterator[None]:
    """A lookup Django rejects for the client's value or path is a 400.

    ``ValueError`` is left alone: Tastypie turns it into its own 400 (lists)
    or 404 (details), and ``ValidationError`` into a 400 with the messages.
    """
    try:
        yield
    except FieldError as exc:
        raise BadRequest(f"Invalid filter: {_first_line(exc)}") from None
    except (TypeError, OverflowError) as exc:
        raise BadRequest(f"Invalid filter value: {_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    """The database's reason without the SQL it quotes (no table names in answers)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def as_sql(compiler: Any) -> tuple[str, tuple]:
    """Django's SQL for a query; what the client's filters broke is a 400."""
    try:
        return compiler.as_sql()
    except FieldError as exc:
        raise BadRequest(str(exc)) from None
    except ValueError as exc:
        # A lookup that only checks its value when compiled (isnull=maybe, a one-value
        # range, a duration given as text): the request, not the code, is wrong.
        raise InvalidFilterValue(f"Invalid filter: {_first_line(exc)}") from None
    except COMPILE_ERRORS as exc:
        # The same, or a lookup this database lacks (JSON contains on SQLite).
        raise BadRequest(f"Invalid filter: {_first_line(exc)}") from None
    except NotImplementedError:
        # A lookup registered for another database that this one cannot compile
        # (django.contrib.postgres's range lookups on SQLite or MariaDB): Django's
        # message names only the expression class, so say what it means.
        raise BadRequest("Invalid filter: a lookup this database does not support") from None


class InvalidFilterValue(BadRequest, ValueError):
    """A filter value Django refused when compiling: a 400 with Django's reason.

    Also a ``ValueError``, as Django raised it: where Tastypie turns a ``ValueError``
    into its own answer (evaluated inside ``apply_filters()`` or ``authorized_read_list()``
    through ``exists()``, ``count()`` ..., in ``obj_get_list``/``obj_get``), the answer
    is ModelResource's.
    """


def read_refused(alias: str, exc: BaseException) -> BadRequest | None:
    """The 400 for what the database of ``alias`` refused of the client's input, or ``None``."""
    refusal = backends.read_refusal(alias, exc)
    if refusal is None:
        return None
    if refusal is backends.ReadRefusal.PATTERN:
        return BadRequest(f"Invalid regular expression: {_first_line(exc)}")
    if refusal is backends.ReadRefusal.VALUE_TYPE:
        # e.g. ?name__iexact=true: Tastypie made the value a boolean.
        return BadRequest("Invalid filter value: its type does not fit the field.")
    # Invalid input the database refused (NUL byte, out of range, bad data).
    return BadRequest(f"Invalid filter value: {_first_line(exc)}")
