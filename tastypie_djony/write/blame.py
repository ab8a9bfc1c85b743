"""Whose fault a write the database refused is: the client's data or the project's code.

A unique clash, a value too long or a broken reference on a row the request's body
writes is the client's: a 400 naming the model (:mod:`tastypie_djony.write.refusals`).
The rows a body writes are in :func:`client_tables`: the resource's model and its
multi-table parents, the links of its to-many fields, and the rows of the related
resources a nested body creates or edits, down to their own.  The same refusal of a
statement writing any other table (an audit row a receiver or a hook writes with values
of its own) is the project's bug: a 500, logged, as ``ModelResource`` answers it.  A
refusal no statement of the request raised (a deferred constraint checked by the
commit) stays the client's.
"""

from __future__ import annotations

import re
from typing import Any

from djony.serving import TransactionWatch
from tastypie_djony.related import relation_field

#: The table an ``INSERT``, ``UPDATE`` or ``DELETE`` writes, however the backend quotes it.
WRITTEN_TABLE = re.compile(
    r"^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+[`\"\[]?([^\s`\"\]\(]+)", re.IGNORECASE
)

#: How many levels of related resources :func:`client_tables` follows.
DEPTH = 3


def written_table(sql: str) -> str | None:
    """The table ``sql`` writes, or ``None`` for another statement."""
    found = WRITTEN_TABLE.match(sql)
    return found.group(1) if found else None


def refused_client_data(resource: Any, exc: BaseException, watch: TransactionWatch | None) -> bool:
    """Whether the refusal ``exc`` is of a row the request's body writes (see the module)."""
    statement = watch.statement_of(exc) if watch is not None else None
    if statement is None:
        return True
    table = written_table(statement)
    return table is None or table in client_tables(resource)


def client_tables(resource: Any) -> frozenset[str]:
    """The tables a body sent to ``resource`` writes rows of (kept on the resource)."""
    tables = resource.__dict__.get("_djony_client_tables")
    if tables is None:
        tables = resource.__dict__["_djony_client_tables"] = frozenset(_tables(resource, DEPTH))
    return tables


def _tables(resource: Any, depth: int) -> set[str]:
    model = resource._meta.object_class
    if model is None:
        return set()
    meta = model._meta
    tables = {meta.db_table, *(parent._meta.db_table for parent in meta.get_parent_list())}
    for field in resource.fields.values():
        if getattr(field, "dehydrated_type", None) != "related":
            continue
        tables |= _relation_tables(model, field.attribute)
        if depth > 0:
            related = field.get_related_resource(None)
            if related is not resource:
                tables |= _tables(related, depth - 1)
    return tables


def _relation_tables(model: Any, attribute: Any) -> set[str]:
    """The link table of a many-to-many (or the related table of a reverse key) ``attribute``."""
    field = relation_field(model, attribute)
    if field is None:
        return set()
    tables = {field.related_model._meta.db_table}
    through = getattr(field, "through", None)  # a reverse many-to-many's
    if through is None:
        through = getattr(getattr(field, "remote_field", None), "through", None)
    if field.many_to_many and through is not None:
        tables.add(through._meta.db_table)
    return tables
