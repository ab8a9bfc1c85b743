"""Running ``manage.py djony_verify`` in tests: its output, its exit and its JSON report."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

from django.core.management import CommandError, call_command

from tastypie_djony.management.commands.djony_verify import Command


@dataclass
class Run:
    out: str
    error: CommandError | None
    report: dict[str, Any]

    @property
    def code(self) -> int:
        return 0 if self.error is None else self.error.returncode

    @property
    def reason(self) -> str:
        return "" if self.error is None else str(self.error)

    def resource(self, uri: str) -> dict[str, Any]:
        return next(r for r in self.report["resources"] if r["resource"] == uri)


def untimed(args: tuple) -> tuple:
    """``args`` without the timing rounds, unless they ask for them (the timing is
    tested on its own: it takes seconds per run)."""
    if any(str(arg).startswith(("--rounds", "--timing-seconds")) for arg in args):
        return args
    return (*args, "--timing-seconds", "0")


def verify(*args: str) -> Run:
    """Run the command with ``args``; never raises for a failed verification."""
    out = StringIO()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "report.json"
        try:
            call_command(
                Command(), *untimed(args), "--json", str(path), stdout=out, stderr=StringIO()
            )
            error = None
        except CommandError as exc:
            error = exc
        report = json.loads(path.read_text()) if path.exists() else {}
    return Run(out.getvalue(), error, report)
