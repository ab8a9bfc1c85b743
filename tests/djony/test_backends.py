"""djony.bridge.backends: one module per vendor, found by Django's ``connection.vendor``.

And the system check that reports a database djony cannot serve at startup
(``djony.E002``) instead of a 500 on every request.
"""

from __future__ import annotations

import types

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from djony import checks
from djony.bridge import backends
from djony.bridge.backends import mysql, postgresql, sqlite


def fake_connection(vendor: str, driver: str = "", alias: str = "other") -> types.SimpleNamespace:
    return types.SimpleNamespace(vendor=vendor, alias=alias, Database=types.ModuleType(driver))


def test_each_vendor_has_its_module() -> None:
    assert backends.for_connection(fake_connection("sqlite")) is sqlite.backend
    assert backends.for_connection(fake_connection("postgresql")) is postgresql.backend
    assert backends.for_connection(fake_connection("mysql")) is mysql.backend
    assert backends.for_alias("default") is backends.for_connection(connection)


def test_a_vendor_without_a_module_is_refused_by_name() -> None:
    with pytest.raises(ImproperlyConfigured, match="no backend for the 'oracle'"):
        backends.for_connection(fake_connection("oracle"))


@pytest.mark.parametrize("driver", ["psycopg", "psycopg2"])
def test_postgresql_serves_both_drivers(driver: str) -> None:
    assert postgresql.backend.problem(fake_connection("postgresql", driver)) is None


def test_postgresql_refuses_another_driver() -> None:
    problem = postgresql.backend.problem(fake_connection("postgresql", "pg8000"))
    assert "'pg8000'" in problem and "psycopg" in problem


def test_limits_and_refusals_are_the_backends() -> None:
    assert mysql.backend.max_rows == 2**64 - 1
    assert sqlite.backend.max_rows == postgresql.backend.max_rows == 2**63 - 1
    assert mysql.backend.refused_data(Exception("nan can not be used with MySQL"))
    assert not sqlite.backend.refused_data(Exception("nan can not be used with MySQL"))
    assert mysql.backend.refused_pattern(Exception(1139, "Got error 'x' from regexp"))
    assert not mysql.backend.refused_pattern(Exception(1062, "Duplicate entry"))
    assert sqlite.backend.refused_pattern(Exception("user-defined function raised exception"))
    mismatch = Exception("operator does not exist")
    mismatch.sqlstate = "42883"  # psycopg 3's name
    assert postgresql.backend.refused_value_type(mismatch)
    old = Exception("datatype mismatch")
    old.pgcode = "42804"  # psycopg2's name
    assert postgresql.backend.refused_value_type(old)
    assert postgresql.backend.driver_error(mismatch).pgcode == "42883"  # what Pony reads


def test_a_read_error_is_classified_by_the_backend_of_its_alias() -> None:
    """A value, a pattern or a type the database refused is the client's; the rest is not."""
    driver = backends.for_alias("default").provider(connection).dbapi_module
    assert backends.read_refusal("default", ValueError("NUL byte")) is backends.ReadRefusal.VALUE
    assert (
        backends.read_refusal("default", OverflowError("too large")) is backends.ReadRefusal.VALUE
    )
    assert backends.read_refusal("default", driver.DataError("bad")) is backends.ReadRefusal.VALUE
    assert backends.read_refusal("default", driver.OperationalError("no such table")) is None
    assert backends.read_refusal("default", driver.ProgrammingError("syntax error")) is None
    assert backends.read_refusal("default", RuntimeError("a bug")) is None
    pattern = {
        "sqlite": driver.OperationalError("user-defined function raised exception"),
        "mysql": driver.OperationalError(1139, "Got error 'x' from regexp"),
    }.get(connection.vendor)
    if pattern is not None:
        assert backends.read_refusal("default", pattern) is backends.ReadRefusal.PATTERN


def test_the_refusal_words_are_every_backend_s() -> None:
    """Each kind of refused write with the words of the three drivers, in one order."""
    kinds = dict(backends.REFUSAL_KINDS)
    assert list(kinds) == ["unique", "reference", "required", "range", "length"]
    for backend in (sqlite.backend, postgresql.backend, mysql.backend):
        for kind, words in backend.refusal_words.items():
            assert set(words) <= set(kinds[kind]), (backend.vendor, kind)
    assert "duplicate" in kinds["unique"] and "null value" in kinds["required"]


class FakeConnections(dict):
    def __iter__(self):
        return iter(self.keys())


def test_check_reports_a_driver_djony_cannot_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    fakes = FakeConnections(
        default=connection,
        pg=fake_connection("postgresql", "pg8000", "pg"),
        legacy=fake_connection("oracle", "oracledb", "legacy"),
    )
    monkeypatch.setattr(checks, "connections", fakes)
    messages = {message.id: message for message in checks.check_databases()}
    assert set(messages) == {"djony.E002", "djony.W004"}
    assert "'pg'" in messages["djony.E002"].msg and "pg8000" in messages["djony.E002"].msg
    assert "'oracle'" in messages["djony.W004"].msg


def test_check_is_silent_for_the_test_databases() -> None:
    assert checks.check_databases() == []
