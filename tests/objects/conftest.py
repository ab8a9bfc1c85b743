"""Fixtures of the object-layer tests."""

from __future__ import annotations

import pytest
from django.db.models.sql.compiler import SQLCompiler


@pytest.fixture
def compiles(monkeypatch):
    """The model of each query Django compiled (``SQLCompiler.as_sql``), in order."""
    calls = []
    original = SQLCompiler.as_sql

    def counted(self, *args, **kwargs):
        calls.append(self.query.model)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    return calls
