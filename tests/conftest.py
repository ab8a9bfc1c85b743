"""What every test of the suite holds DjonyResource to, whatever it tests.

:func:`objects_are_model_instances`: every object a ``DjonyObjectList`` hands out (to
hooks, authorization, ``obj_get``, ``bundle.obj``) is an instance of exactly the list's
model (``type(obj) is Model``), or, for a queryset whose iterable builds subclasses'
instances (django-polymorphic, django-model-utils' ``select_subclasses``), of a subclass
of it.  A violation fails the request that made it, so the test that sent it fails.

:func:`compiles`: the queries Django compiled during a test, for the tests of what is
compiled once.
"""

from __future__ import annotations

import pytest
from django.db.models.query import ModelIterable
from django.db.models.sql.compiler import SQLCompiler

from tastypie_djony.objectlist import DjonyObjectList

# The write harness asserts on behalf of the modules of cases: pytest rewrites its asserts
# as it does a test module's (they show both sides), whichever module imports it first.
pytest.register_assert_rewrite("tests.write.harness")


class NotTheModelsInstance(AssertionError):
    """An object list handed out an object that is not its model's instance."""


@pytest.fixture(autouse=True)
def objects_are_model_instances(monkeypatch):
    after_load = DjonyObjectList._after_load

    def checked(self):
        model = self.model
        exact = self.queryset._iterable_class is ModelIterable
        for obj in self._result:
            kind = type(obj)
            if kind is model or (not exact and issubclass(kind, model)):
                continue
            raise NotTheModelsInstance(f"{self!r:.80} handed out a {kind!r}, not a {model!r}")
        return after_load(self)

    monkeypatch.setattr(DjonyObjectList, "_after_load", checked)


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
