"""What a write did besides its answer: the rows of every table it touched, the signals it fired.

:class:`Effects` is set up once per run.  For one request on one side,
:meth:`Effects.watch` records, while the request runs, every SQL statement
(Django's and Pony's: both pass through ``connection.execute_wrapper``) and
every model signal (pre/post save and delete, ``m2m_changed``); afterwards,
still inside the request's transaction, it reads the rows of each table the
run has seen written so far.  Two sides' :class:`Trace` compare equal when
the same tables hold the same rows and the same signals fired in the same
order.  Keys created by the write are written ``<new N>`` (sequences are not
rolled back, so the two sides get different numbers), also where another
row or a signal names them; values that are the time of the write
(``auto_now``/``auto_now_add``, a default of ``timezone.now``) are masked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.db import DatabaseError, connections, models
from django.db.models import Max, signals

#: Statements that change a table, and where their table name is.
WRITE_SQL = re.compile(
    r"^\s*(?:INSERT\s+(?:IGNORE\s+)?INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO)\s+[`\"\[]?([\w.$]+)",
    re.IGNORECASE,
)
SIGNALS = {
    "pre_save": signals.pre_save,
    "post_save": signals.post_save,
    "pre_delete": signals.pre_delete,
    "post_delete": signals.post_delete,
    "m2m_changed": signals.m2m_changed,
}
MASKED = "<time of the write>"


@dataclass
class Trace:
    """One side's effects of one request."""

    written: set[str] = field(default_factory=set)  # tables a statement changed
    rows: dict[str, Any] = field(default_factory=dict)  # table -> rows afterwards
    signals: list[tuple] = field(default_factory=list)
    new_keys: dict[str, dict[Any, str]] = field(default_factory=dict)  # table -> key -> <new N>

    def difference(self, other: Trace, labels: tuple[str, str]) -> str | None:
        """The first table or signal where ``self`` and ``other`` differ, or ``None``."""
        for table in sorted(set(self.rows) | set(other.rows)):
            mine, theirs = self.rows.get(table), other.rows.get(table)
            if mine != theirs:
                return f"rows of table {table}: " + _rows_difference(mine, theirs, labels)
        for index, (mine, theirs) in enumerate(zip(self.signals, other.signals, strict=False)):
            if mine != theirs:
                return f"signal #{index + 1}: {_signal(mine)} != {_signal(theirs)}"
        if len(self.signals) != len(other.signals):
            longer, side = (self, 0) if len(self.signals) > len(other.signals) else (other, 1)
            extra = longer.signals[min(len(self.signals), len(other.signals))]
            return f"signal {_signal(extra)} fired only by {labels[side]}"
        return None


def _signal(entry: tuple) -> str:
    name, sender, key, *details = entry
    more = ", ".join(f"{k}={v!r}" for k, v in details if v is not None)
    return f"{name}({sender} {key}{', ' + more if more else ''})"


def _rows_difference(a: Any, b: Any, labels: tuple[str, str]) -> str:
    a, b = a or [], b or []
    only_a = [row for row in a if row not in b]
    only_b = [row for row in b if row not in a]
    parts = []
    if only_a:
        parts.append(f"only with {labels[0]}: {_short(only_a)}")
    if only_b:
        parts.append(f"only with {labels[1]}: {_short(only_b)}")
    return "; ".join(parts) or f"{len(a)} rows != {len(b)} rows"


def _short(rows: list) -> str:
    text = repr(rows[:3])
    return text if len(text) <= 400 else text[:400] + "..."


class Effects:
    """Watches writes on database ``using`` (see the module's docstring)."""

    def __init__(self, using: str) -> None:
        self.using = using
        self.models: dict[str, type[models.Model]] = {}
        for model in apps.get_models(include_auto_created=True):
            if model._meta.managed or model._meta.auto_created:
                self.models.setdefault(model._meta.db_table, model)
        self.baseline: dict[str, Any] | None = None
        #: Every table a write of this run has changed, on either side: read after each write.
        self.tables: set[str] = set()

    def start(self) -> None:
        """Note each table's largest integer key before any write (a key above it is new)."""
        if self.baseline is not None:
            return
        self.baseline = {}
        for table, model in self.models.items():
            if not isinstance(model._meta.pk, (models.AutoField, models.IntegerField)):
                continue
            try:
                top = model._base_manager.using(self.using).aggregate(top=Max("pk"))["top"]
            except DatabaseError:  # a table the database lacks (an unmigrated app)
                continue
            self.baseline[table] = top or 0

    def watch_tables(self, *tables: str) -> None:
        self.tables.update(t for t in tables if t in self.models)

    @contextmanager
    def watch(self, trace: Trace) -> Iterator[None]:
        """Record ``trace.written`` and ``trace.signals`` while the block runs."""
        connection = connections[self.using]

        def execute(run: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            match = WRITE_SQL.match(sql)
            if match:
                trace.written.add(match.group(1).split(".")[-1])
            return run(sql, params, many, context)

        receivers = {name: _recorder(name, trace) for name in SIGNALS}
        for name, receiver in receivers.items():
            SIGNALS[name].connect(receiver, weak=False, dispatch_uid=f"djony_verify_{name}")
        try:
            with connection.execute_wrapper(execute):
                yield
        finally:
            for name in receivers:
                SIGNALS[name].disconnect(dispatch_uid=f"djony_verify_{name}")

    def read(self, trace: Trace) -> None:
        """``trace.rows``: the rows of every watched table, new keys renamed; then the signals'
        keys renamed the same way.  Inside the request's transaction."""
        tables = sorted(self.tables | {t for t in trace.written if t in self.models})
        raw: dict[str, list[dict]] = {}
        for table in tables:
            model = self.models[table]
            try:
                raw[table] = list(model._base_manager.using(self.using).order_by("pk").values())
            except DatabaseError as error:  # the write left the transaction aborted
                raw[table] = [{"unreadable": type(error).__name__}]
                continue
            baseline = (self.baseline or {}).get(table)
            pk = model._meta.pk.attname
            if baseline is not None:
                new = [row[pk] for row in raw[table] if isinstance(row.get(pk), int)]
                new = [key for key in new if key > baseline]
                trace.new_keys[table] = {key: f"<new {i + 1}>" for i, key in enumerate(new)}
        for table, rows in raw.items():
            model = self.models[table]
            found = [self._row(model, row, trace) for row in rows]
            if model._meta.auto_created:  # a many-to-many link: its own key means nothing
                found = sorted((row[1:] for row in found), key=repr)
            trace.rows[table] = found
        trace.signals = [self._signal(entry, trace) for entry in trace.signals]

    def _renamed(self, model: type[models.Model], key: Any, trace: Trace) -> Any:
        return trace.new_keys.get(model._meta.db_table, {}).get(key, key)

    def _row(self, model: type[models.Model], row: dict, trace: Trace) -> tuple:
        values = []
        for f in model._meta.concrete_fields:
            value = row.get(f.attname)
            if takes_the_time(f):
                value = MASKED
            elif f.primary_key:
                value = self._renamed(model, value, trace)
            elif f.is_relation and f.related_model is not None:
                value = self._renamed(f.related_model._meta.concrete_model, value, trace)
            values.append((f.attname, value))
        return tuple(values)

    def _signal(self, entry: tuple, trace: Trace) -> tuple:
        name, model, key, *details = entry
        key = self._renamed(model, key, trace)
        if name == "m2m_changed":
            action, (_, (pk_set, target)), reverse = details
            keys = None
            if pk_set is not None:
                keys = sorted((self._renamed(target, k, trace) for k in pk_set), key=repr)
            details = [action, ("pk_set", keys), reverse]
        return (name, model._meta.label, key, *details)


def takes_the_time(field: models.Field) -> bool:
    """Whether ``field``'s value on a new or saved row is the time of the write
    (``auto_now``, ``auto_now_add``, a callable default such as ``timezone.now``)."""
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return True
    return (
        isinstance(field, (models.DateField, models.TimeField))
        and field.has_default()
        and callable(field.default)
    )


def _recorder(name: str, trace: Trace) -> Any:
    def receiver(sender: Any, instance: Any = None, **kwargs: Any) -> None:
        model = type(instance)._meta.concrete_model if instance is not None else sender
        key = getattr(instance, "pk", None)
        if name == "m2m_changed":
            pk_set = kwargs.get("pk_set")
            entry = (name, model, key, ("action", kwargs.get("action")),
                     ("pk_set", (None if pk_set is None else set(pk_set), kwargs.get("model"))),
                     ("reverse", kwargs.get("reverse")))  # fmt: skip
        elif name == "post_save":
            entry = (name, model, key, ("created", kwargs.get("created")))
        else:
            entry = (name, model, key)
        trace.signals.append(entry)

    return receiver
