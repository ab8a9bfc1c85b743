"""PostgreSQL with either driver, Django's pool, and psycopg 3 without psycopg2.

The variant comes from ``tests/settings.py`` (``DJONY_PG_DRIVER``,
``DJONY_PG_POOL``); ``.ci/run`` runs the suite once per variant.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from django.conf import settings
from django.db import connection
from pony.orm import core as pony_core
from pony.orm import db_session

import djony
from djony.bridge.backends import postgresql
from tests.testapp.models import Tag

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only"),
]


def test_djony_runs_on_the_driver_django_uses() -> None:
    driver = postgresql.driver(connection)
    if settings.PG_DRIVER:
        assert driver == settings.PG_DRIVER
    provider = djony.db().provider
    assert provider.dbapi_module.__name__ == driver


@pytest.mark.django_db
def test_values_round_trip_through_django_and_pony() -> None:
    tag = Tag.objects.create(name="naïve ☃")
    with db_session:
        assert Tag.p[tag.pk].name == "naïve ☃"
        Tag.p(name="from pony")
    assert Tag.objects.filter(name="from pony").exists()


@pytest.mark.django_db
def test_driver_errors_become_ponys() -> None:
    Tag.objects.create(name="taken")
    with pytest.raises(pony_core.TransactionIntegrityError), db_session:
        Tag.p(name="taken")
    if postgresql.driver(connection) == "psycopg2":
        # psycopg2 refuses to quote it (tastypie_djony answers a 400 for either).
        with pytest.raises(ValueError, match="NUL"), db_session:
            Tag.p(name="nul \x00 byte")
        return
    with pytest.raises(pony_core.UnexpectedError) as refused, db_session:
        Tag.p(name="nul \x00 byte")  # the server refuses it when Pony flushes the object
    assert isinstance(refused.value.original_exc, pony_core.DataError)


@pytest.mark.skipif(not settings.PG_POOL, reason="DJONY_PG_POOL=1 only")
@pytest.mark.django_db(transaction=True)
def test_djony_follows_django_connection_pool() -> None:
    assert connection.pool is not None
    with db_session:
        Tag.p(name="pooled")
    connection.close()  # back to the pool: the next query takes a connection from it
    with db_session:
        assert Tag.p.select(lambda t: t.name == "pooled").count() == 1
    assert connection.connection is not None


def test_psycopg_3_alone_needs_no_psycopg2() -> None:
    """Pony's dialect module imports psycopg2; djony imports it without (and leaves no trace)."""
    pytest.importorskip("psycopg")
    code = textwrap.dedent(
        """
        import sys
        sys.modules["psycopg2"] = None  # as if psycopg2 were not installed
        from djony.bridge.backends import postgresql
        provider = postgresql.provider_for("psycopg")
        assert provider.dbapi_module.__name__ == "psycopg"
        assert sys.modules["psycopg2"] is None, "the stand-in must not stay behind"
        try:
            import psycopg2
        except ImportError:
            pass
        else:
            raise AssertionError("psycopg2 importable")
        print("ok")
        """
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.stdout.strip() == "ok", result.stderr
