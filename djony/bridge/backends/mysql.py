"""MySQL and MariaDB through Django's ``mysql`` backend (mysqlclient).

Django keeps UUIDs as ``char(32)`` hex, durations as microseconds and aware
datetimes as naive UTC.  Pony's MySQL provider raises ``group_concat_max_len``
on the connections it opens; djony does it on Django's.  ``LIMIT`` and
``OFFSET`` are unsigned 64-bit.  mysqlclient refuses to quote ``nan`` and
``inf`` before anything is sent, and the server has error codes of its own
for a regular expression it cannot compile.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any

from djony.bridge import converters
from djony.bridge.backends.base import Backend, once_per_raw_connection

#: MySQL/MariaDB error codes for a regular expression the server cannot compile.
REGEX_ERRORS = {1139, *range(3684, 3700)}
#: Errors after which the server has rolled the whole transaction back: a deadlock, and
#: the connection gone (server gone away, lost during a query, killed, timed out).
TRANSACTION_ENDING_ERRORS = {1213, 2006, 2013, 1927, 4031}
#: A lock wait timeout: the statement is rolled back, the transaction too only with
#: ``innodb_rollback_on_timeout``.
LOCK_WAIT_TIMEOUT = 1205


class MySQLTimeConverter(converters.TimeConverter):
    """A ``TIME`` column as ``datetime.time``, also where MySQLdb hands back a timedelta.

    (Django's connection converts ``TIME`` itself; a MySQLdb connection without
    Django's ``conv`` returns the duration since midnight.)
    """

    def sql2py(self, val: Any) -> Any:
        if isinstance(val, datetime.timedelta):
            return (datetime.datetime.min + val).time()
        return super().sql2py(val)


CONVERTERS = {**converters.DJANGO_STORAGE, datetime.time: MySQLTimeConverter}


@functools.cache
def mysql_provider() -> type:
    """Pony's MySQL provider with Django's storage.

    Built on first use: Pony's MySQL module needs a driver (mysqlclient), which a
    project on another database has no reason to install.
    """
    from pony.orm.dbproviders import mysql as pony_mysql

    class MySQLProvider(pony_mysql.MySQLProvider):
        converter_classes = converters.converter_classes(pony_mysql.MySQLProvider, CONVERTERS)

    return MySQLProvider


class MySQLBackend(Backend):
    vendor = "mysql"
    max_rows = 2**64 - 1  # MySQL's LIMIT and OFFSET are unsigned
    # "Duplicate entry ... for key ...", "... a foreign key constraint fails ...",
    # "Column ... cannot be null", MySQL's "Check constraint ... is violated." and
    # MariaDB's "CONSTRAINT `..._check` failed for ..." (a named check constraint;
    # a column's own check is named after the column), "Out of range value for
    # column ...", "Data too long for column ...".
    refusal_words = {
        "unique": ("duplicate",),
        "reference": ("foreign key",),
        "required": ("cannot be null",),
        "range": ("out of range", "check"),
        "length": ("data too long",),
    }

    def provider(self, django_connection: Any) -> type:
        return mysql_provider()

    def prepare_connection(self, django_connection: Any) -> None:
        """What Pony's MySQL provider sets on each connection it opens.

        Pony only does it for the connection it inspects at bind time; Django
        opens new ones (requests, reconnects, threads).  Without it MySQL cuts
        ``group_concat()`` results at 1024 bytes.
        """
        if once_per_raw_connection(django_connection, "_djony_mysql_session"):
            with django_connection.connection.cursor() as cursor:
                cursor.execute("SET SESSION group_concat_max_len = 4294967295")

    def refused_value_type(self, exc: BaseException) -> bool:
        return self.refused_data(exc)

    def refused_pattern(self, exc: BaseException) -> bool:
        code = exc.args[0] if exc.args else None
        return isinstance(code, int) and code in REGEX_ERRORS

    def refused_data(self, exc: BaseException) -> bool:
        # mysqlclient refuses to quote nan and inf before anything is sent.
        return str(exc).endswith("can not be used with MySQL")

    def transaction_lost(self, django_connection: Any, errors: list[BaseException]) -> bool:
        """InnoDB rolls a transaction back on a deadlock (and on the errors above).

        Later statements then run in a new transaction, which would commit: the
        errors the statements raised tell it, since the server's status does not.
        """
        codes = {exc.args[0] for exc in errors if exc.args and isinstance(exc.args[0], int)}
        if codes & TRANSACTION_ENDING_ERRORS:
            return True
        return LOCK_WAIT_TIMEOUT in codes and _rolls_back_on_timeout(django_connection)


def _rolls_back_on_timeout(django_connection: Any) -> bool:
    """The server's ``innodb_rollback_on_timeout`` (asked when a lock wait timed out)."""
    with django_connection.connection.cursor() as cursor:
        cursor.execute("SELECT @@innodb_rollback_on_timeout")
        return bool(cursor.fetchone()[0])


backend = MySQLBackend()
