"""The bundles of a served page: each row's values, its object built only when read.

:class:`Prepared` is one page of a plan before any hook ran (every value the rows
give, computed for the whole page, so a row the plan cannot reproduce declines before
user code runs).  :class:`PageBundle` is the ``Bundle`` Tastypie's ``build_bundle``
would give for a row: reading its ``obj`` builds the page's objects once, from the rows
already read, and returns the row's (the same object, in the same session, as the
general path hands out); a page whose hooks never read ``bundle.obj`` builds none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tastypie.bundle import Bundle


class Prepared:
    """One page of a plan, before any hook ran: each row's values, its objects on demand."""

    __slots__ = ("values", "objects", "keys", "nested")

    def __init__(self, values: list, objects: Callable[[], list], keys: list, nested: dict):
        self.values = values
        self.objects = objects
        #: Each row's primary key (when a nested field needs it).
        self.keys = keys
        #: Step name -> that nested field's page (see :mod:`tastypie_djony.serve.nested`).
        self.nested = nested


class PageBundle(Bundle):
    """The ``Bundle`` ``build_bundle(obj=..., request=...)`` gives, its ``obj`` built on first read.

    Reading ``bundle.obj`` builds the objects of the whole page (once) and returns this
    row's: the same Pony object, in the same session, as the general path's bundle
    holds (its related managers load for the whole page, as there).  Assigning
    ``bundle.obj`` works as on a ``Bundle``.
    """

    def __init__(self, objects: Callable[[], list[Any]], position: int, request: Any) -> None:
        super().__init__(obj=None, request=request, via_uri=None)
        self._page_objects = objects
        self._position = position
        self._obj: Any = _UNBUILT

    def holds_its_row(self) -> bool:
        """Whether ``obj`` is (or, unread, will be) its row's object: nobody assigned another."""
        return self._obj is _UNBUILT or self._obj is self._page_objects()[self._position]

    @property
    def obj(self) -> Any:
        obj = self._obj
        if obj is _UNBUILT:
            obj = self._obj = self._page_objects()[self._position]
        return obj

    @obj.setter
    def obj(self, value: Any) -> None:
        self._obj = value


_UNBUILT = object()
