"""tastypie_djony: Tastypie resources served by Pony ORM through djony.

``DjonyResource`` stands in for ``ModelResource`` and ``SetField`` for
``ToManyField``; see :mod:`tastypie_djony.resources`.
"""

from djony import __version__  # one distribution, one version

__all__ = ["__version__"]
