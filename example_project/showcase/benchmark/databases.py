"""Database URLs: the ``DATABASES`` entry, a plain connection, create and drop.

:func:`parse` turns a ``DATABASE_URL`` into a Django ``DATABASES`` entry (the
example's settings use it); :func:`connect`, :func:`create_database` and
:func:`drop_database` work on the server such a URL names, for the
reliability scripts and their tests, which make a database of their own and
remove it afterwards.

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

import re
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


def vendor(url: str) -> str:
    """``"sqlite"``, ``"postgresql"`` or ``"mysql"``: the backend ``url`` names."""
    return parse(url)["ENGINE"].rsplit(".", 1)[1].replace("sqlite3", "sqlite")


def connect(url: str, database: str | None = None) -> Any:
    """A DB-API connection in autocommit to ``url``'s server (PostgreSQL or MySQL).

    ``database`` replaces the URL's database name (``""``: none, for
    ``CREATE DATABASE``; PostgreSQL then connects to ``postgres``).
    """
    entry = parse(url)
    name = entry["NAME"] if database is None else database
    if vendor(url) == "postgresql":
        import psycopg2

        conn = psycopg2.connect(
            host=entry["HOST"] or "127.0.0.1",
            port=int(entry["PORT"] or 5432),
            user=entry["USER"] or "postgres",
            password=entry["PASSWORD"],
            dbname=name or "postgres",
            connect_timeout=3,
        )
        conn.autocommit = True
        return conn
    if vendor(url) == "mysql":
        import MySQLdb

        kwargs: dict[str, Any] = dict(
            host=entry["HOST"] or "127.0.0.1",
            port=int(entry["PORT"] or 3306),
            user=entry["USER"] or "root",
            password=entry["PASSWORD"],
            connect_timeout=3,
            charset="utf8mb4",
        )
        if name:
            kwargs["database"] = name
        conn = MySQLdb.connect(**kwargs)
        conn.autocommit(True)
        return conn
    raise ValueError(f"{url!r}: only PostgreSQL and MySQL URLs name a server to connect to.")


def _safe_name(url: str) -> str:
    name = parse(url)["NAME"]
    if not re.fullmatch(r"\w+", name):
        raise ValueError(f"database name {name!r}: letters, digits and _ only")
    return name


def create_database(url: str) -> bool:
    """Create the database ``url`` names if it is missing; whether it was created."""
    name = _safe_name(url)
    conn = connect(url, "")
    try:
        with conn.cursor() as cursor:
            if vendor(url) == "postgresql":
                cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
                if cursor.fetchone() is not None:
                    return False
                cursor.execute(f'CREATE DATABASE "{name}"')
                return True
            cursor.execute(
                "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s", [name]
            )
            if cursor.fetchone() is not None:
                return False
            cursor.execute(
                f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
            )
            return True
    finally:
        conn.close()


def drop_database(url: str) -> None:
    """Drop the database ``url`` names, if it exists (its sessions are ended first)."""
    name = _safe_name(url)
    conn = connect(url, "")
    try:
        with conn.cursor() as cursor:
            if vendor(url) == "postgresql":
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = %s AND pid <> pg_backend_pid()",
                    [name],
                )
                cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
            else:
                cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
    finally:
        conn.close()


def database_exists(url: str) -> bool:
    """Whether the database ``url`` names exists on its server."""
    name = _safe_name(url)
    conn = connect(url, "")
    try:
        with conn.cursor() as cursor:
            if vendor(url) == "postgresql":
                cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            else:
                cursor.execute(
                    "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s", [name]
                )
            return cursor.fetchone() is not None
    finally:
        conn.close()
