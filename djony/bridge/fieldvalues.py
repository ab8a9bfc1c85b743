"""Custom model fields whose values Django converts (``from_db_value``), through Pony.

A project's custom field built on a known column type (``class
CommaSeparatedField(models.TextField)`` with ``from_db_value`` and
``get_prep_value``) stores text but gives Python code a list.  On an entity
the attribute must give what the Django instance gives, so such a field is
declared with a Python type of its own (:func:`value_type`), and Pony's
converter for it (:class:`DjangoFieldConverter`) asks the Django field:
``from_db_value`` on the way in, ``get_db_prep_value`` on the way out.
"""

from __future__ import annotations

from typing import Any

from django.db import connections, models
from pony.orm import dbapiprovider


class DjangoFieldValue:
    """Base of the per-field marker types Pony picks :class:`DjangoFieldConverter` by."""

    field: models.Field


def needs_django_conversion(field: models.Field) -> bool:
    """Whether ``field``'s class (not Django's own) converts values read from the database."""
    for cls in type(field).__mro__:
        if "from_db_value" in vars(cls):
            return not cls.__module__.startswith("django.")
    return False


def value_type(field: models.Field) -> type:
    """The marker type declaring ``field`` on its entity."""
    name = f"{field.model._meta.object_name}_{field.name}_value"
    return type(name, (DjangoFieldValue,), {"field": field})


class DjangoFieldConverter(dbapiprovider.Converter):
    """Values of one custom field, converted by the field itself as Django does."""

    def init(self, kwargs: dict) -> None:
        self.field = self.py_type.field

    def _connection(self) -> Any:
        # The provider djony's bridge binds knows its alias (djony.bridge.connection).
        return connections[self.provider.alias]

    def validate(self, val: Any, obj: Any = None) -> Any:
        return val  # as on a Django instance: assigned values are kept as they are

    def py2sql(self, val: Any) -> Any:
        return self.field.get_db_prep_value(val, self._connection(), prepared=False)

    def sql2py(self, val: Any) -> Any:
        return self.field.from_db_value(val, None, self._connection())

    def dbvals_equal(self, x: Any, y: Any) -> bool:
        return x == y

    def get_sql_type(self, attr: Any = None) -> str:
        return self.field.db_type(self._connection())


#: The converter table entry djony adds to every provider.
CONVERTER_ENTRY = (DjangoFieldValue, DjangoFieldConverter)
