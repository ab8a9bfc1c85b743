#!/usr/bin/env python
"""Run the example project's commands: ``python example_project/manage.py compare``.

Works from any directory: the repository root (the folder holding
``example_project/``, ``djony/`` and ``tastypie_djony/``) is put on
``sys.path``.  For the example's own commands (``seed``, ``compare``)
``--database URL`` is read here, before Django starts, and becomes
``DATABASE_URL``; Django's own commands keep ``--database`` as an alias name.
"""

import os
import sys
from pathlib import Path

OWN_COMMANDS = {"seed", "compare"}


def database_url_from_argv(argv: list[str]) -> str | None:
    """The value of ``--database URL`` / ``--database=URL`` for our commands."""
    if len(argv) < 2 or argv[1] not in OWN_COMMANDS:
        return None
    for index, arg in enumerate(argv):
        if arg == "--database" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--database="):
            return arg.split("=", 1)[1]
    return None


def main() -> None:
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    url = database_url_from_argv(sys.argv)
    if url:
        os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
