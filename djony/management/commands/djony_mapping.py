"""``manage.py djony_mapping <app_label>[.<ModelName>] ...``: what Pony sees.

For each model: the entity name and table, every Pony attribute (name, kind,
Python type or target entity, column), the fields reached through a parent
model (multi-table inheritance) and the fields djony left out, with the
reason and the fix.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, models

import djony
from djony.registry import entity_for


def describe_type(attr: Any) -> str:
    """The target entity's name, or the Python type's name."""
    py_type = attr.py_type
    if getattr(attr, "reverse", None):
        return py_type if isinstance(py_type, str) else py_type.__name__
    return getattr(py_type, "__name__", str(py_type))


def pony_kind(attr: Any) -> str:
    """Pony's name for the attribute's kind (djony's relation subclasses say what they extend)."""
    for kind in type(attr).__mro__:
        if kind.__module__.startswith("pony."):
            return kind.__name__
    return type(attr).__name__


def describe_storage(attr: Any) -> str:
    """Where the attribute lives: its column(s), or the relation that holds it."""
    if attr.is_collection:
        if getattr(attr, "table", None):
            table = attr.table if isinstance(attr.table, str) else ".".join(attr.table)
            return f"table {table}, column {', '.join(attr.columns)}"
        return f"reverse of {attr.reverse.entity.__name__}.{attr.reverse.name}"
    if attr.columns:
        return f"column {', '.join(attr.columns)}"
    return f"reverse of {attr.reverse.entity.__name__}.{attr.reverse.name}"


def describe(model: type[models.Model], alias: str) -> list[str]:
    """The lines printed for one model."""
    try:
        entity = entity_for(model, alias)
    except LookupError as exc:
        return [f"{model._meta.label}: {exc}"]
    info = entity._djony_info_
    lines = [f"{model._meta.label} -> entity {entity.__name__}, table {entity._table_}"]
    ordered = sorted(
        entity._attrs_, key=lambda attr: 0 if attr.is_pk else 2 if attr.is_collection else 1
    )
    rows = [
        (attr.name, pony_kind(attr), describe_type(attr), describe_storage(attr))
        for attr in ordered
    ]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    for row in rows:
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=False))
        lines.append("  " + "  ".join(cells) + "  " + row[3])
    inherited = {
        name: path
        for name, path in info.paths.items()
        if len(path) > 1 and name not in entity._adict_
    }
    if inherited:
        lines.append("  through the parent link (multi-table inheritance):")
        lines.extend(f"    {name} = {'.'.join(path)}" for name, path in sorted(inherited.items()))
    if info.unmapped:
        lines.append("  not mapped as Pony attributes:")
        lines.extend(f"    {name}: {reason}" for name, reason in sorted(info.unmapped.items()))
    return lines


class Command(BaseCommand):
    help = "Print the Pony entity djony maps for each model of the given apps or models."

    def get_version(self) -> str:
        """``--version``: djony's version, not Django's."""
        return djony.__version__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "labels",
            nargs="+",
            metavar="app_label[.ModelName]",
            help="An app label or app_label.ModelName.",
        )
        parser.add_argument(
            "--database",
            default=DEFAULT_DB_ALIAS,
            help="The database alias whose mapping to print (default: %(default)s).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        blocks = [
            describe(model, options["database"])
            for model in self.selected_models(options["labels"])
        ]
        self.stdout.write("\n\n".join("\n".join(block) for block in blocks))

    def selected_models(self, labels: list[str]) -> list[type[models.Model]]:
        """The models named by ``labels`` (app labels or app_label.ModelName)."""
        found: list[type[models.Model]] = []
        for label in labels:
            try:
                if "." in label:
                    found.append(apps.get_model(label))
                else:
                    found.extend(apps.get_app_config(label).get_models())
            except LookupError as exc:
                raise CommandError(f"{label!r}: {exc}") from None
        return found
