"""djony: every Django model as a Pony ORM entity, on Django's own connection.

``Model.p`` is the entity of a model; :func:`db` the Pony ``Database`` of a
Django database alias.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0"


def db(alias: str = "default") -> Any:
    """The Pony ``Database`` mapped over Django's database ``alias``."""
    from djony.registry import db as registry_db

    return registry_db(alias)
