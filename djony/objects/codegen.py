"""Small functions compiled from attribute names known only at mapping time.

Pony translates a query, or an entity property used inside a query, by
decompiling its bytecode; ``getattr(obj, name)`` with a run-time ``name``
is beyond it.  So where the names come from a model's ``_meta`` (and only
there), djony compiles a one-line lambda once per relation.  Every name is
checked to be a Python identifier, so no other text reaches ``eval``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def attribute_path(*names: str) -> str:
    """``"a.b.c"`` for identifiers ``a``, ``b``, ``c``; anything else is refused."""
    for name in names:
        if not name.isidentifier():
            raise ValueError(f"not an attribute name: {name!r}")
    return ".".join(names)


def compile_lambda(
    arguments: str, body: str, namespace: dict[str, Any] | None = None
) -> Callable[..., Any]:
    """``lambda <arguments>: <body>`` with ``namespace`` as its globals.

    Callers build ``body`` from :func:`attribute_path` and fixed text only.
    """
    return eval(f"lambda {arguments}: {body}", dict(namespace or {}))  # noqa: S307
