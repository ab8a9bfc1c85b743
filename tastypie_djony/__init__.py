"""tastypie_djony: Tastypie resources served by Pony ORM through djony.

``DjonyResource`` stands in for ``ModelResource`` and ``SetField`` for
``ToManyField``; see :mod:`tastypie_djony.resources`.  Both can be imported from
here (``from tastypie_djony import DjonyResource``) or from their modules; they
are loaded on first use, as importing them needs Django's app registry, which is
not ready while ``INSTALLED_APPS`` is being read.
"""

from __future__ import annotations

import importlib
from typing import Any

from djony import __version__  # one distribution, one version

__all__ = ["DjonyResource", "SetField", "__version__"]

#: Name -> the module that defines it, imported when the name is first asked for.
_LAZY = {"DjonyResource": "tastypie_djony.resources", "SetField": "tastypie_djony.fields"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tastypie_djony' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
