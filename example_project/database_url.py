"""Turn a ``DATABASE_URL`` into a Django ``DATABASES`` entry.

Understood spellings (no extra dependency)::

    sqlite:///relative/path.sqlite3          (relative to the current directory)
    sqlite:////absolute/path.sqlite3
    postgres://user:password@host:5432/name  (also postgresql://, pgsql://)
    mysql://user:password@host:3306/name     (also mariadb://; MariaDB or MySQL)

Query parameters become ``OPTIONS`` (``?sslmode=require``), except
``conn_max_age`` which sets ``CONN_MAX_AGE`` and
``disable_server_side_cursors=true`` which sets
``DISABLE_SERVER_SIDE_CURSORS`` (for PgBouncer in transaction pooling
mode).  User, password and database name are percent-decoded, so ``p%40ss``
is the password ``p@ss``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

ENGINES = {
    "sqlite": "django.db.backends.sqlite3",
    "postgres": "django.db.backends.postgresql",
    "postgresql": "django.db.backends.postgresql",
    "pgsql": "django.db.backends.postgresql",
    "mysql": "django.db.backends.mysql",
    "mariadb": "django.db.backends.mysql",
}


def parse(url: str, conn_max_age: int = 0) -> dict[str, Any]:
    """The ``DATABASES["default"]`` dict described by ``url``.

    Raises ``ValueError`` naming the accepted schemes for anything else.
    """
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ENGINES:
        raise ValueError(
            f"Unsupported database URL {url!r}: use sqlite:///path, "
            "postgres://user:password@host:port/name or mysql://user:password@host:port/name."
        )
    if scheme == "sqlite":
        # sqlite:///relative.db -> "relative.db"; sqlite:////abs.db -> "/abs.db"
        path, _, query = rest.partition("?")
        if not path.startswith("/"):
            raise ValueError(f"SQLite URL {url!r} must look like sqlite:///path/to/file.sqlite3.")
        name = unquote(path[1:]) or ":memory:"
        options = dict(parse_qsl(query))
        result: dict[str, Any] = {"ENGINE": ENGINES[scheme], "NAME": name}
    else:
        parts = urlsplit(url)
        options = dict(parse_qsl(parts.query))
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise ValueError(f"Database URL {url!r} names no database (…/name at the end).")
        result = {
            "ENGINE": ENGINES[scheme],
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
        }
        if ENGINES[scheme].endswith("mysql"):
            options.setdefault("charset", "utf8mb4")
    if "conn_max_age" in options:
        conn_max_age = int(options.pop("conn_max_age"))
    result["CONN_MAX_AGE"] = conn_max_age
    if "disable_server_side_cursors" in options:
        # Needed behind PgBouncer in transaction pooling mode.
        flag = options.pop("disable_server_side_cursors").lower()
        result["DISABLE_SERVER_SIDE_CURSORS"] = flag in ("1", "true", "yes", "on")
    if options:
        result["OPTIONS"] = options
    return result
