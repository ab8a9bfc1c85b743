"""The 2013 facade: ``from djony import orm``.

Old code wrote ``orm.db()``, ``orm.db_session`` and ``orm.select(...)``;
this module keeps those names working on top of the current registry.
"""

from __future__ import annotations

from pony.orm import (  # noqa: F401  (re-exported for the 2013 spelling)
    commit,
    count,
    db_session,
    delete,
    desc,
    exists,
    flush,
    get,
    max,
    min,
    raw_sql,
    rollback,
    select,
    sum,
)

from djony import db  # noqa: F401
