"""The bundles of a served page: each row's values, its object built only when read.

:class:`PageBundle` is the ``Bundle`` Tastypie's ``build_bundle`` would give for a row:
reading its ``obj`` builds the page's objects once, from the rows already read, and
returns the row's (the model's Django instance, the same the general path hands out,
its relation caches filled by the page loaders); a page whose hooks never read
``bundle.obj`` builds none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tastypie.bundle import Bundle


class PageBundle(Bundle):
    """The ``Bundle`` ``build_bundle(obj=..., request=...)`` gives, its ``obj`` built on first read.

    Reading ``bundle.obj`` builds the objects of the whole page (once) and returns this
    row's.  Assigning ``bundle.obj`` works as on a ``Bundle``.
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
