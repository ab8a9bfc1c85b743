"""Whether the code running now writes: then DjonyResource's objects are Django instances.

A write request (POST, PUT, PATCH, DELETE) edits the Django instances
``ModelResource``'s own code saves and deletes; so does a write step called
outside such a request (``obj_create`` from a view, Tastypie's ``rollback``),
which runs inside :func:`writing_objects`.  Reads keep Pony's objects.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

#: HTTP methods that write (a request with one of these edits Django instances).
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

_writing_objects: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "djony_writing_objects", default=False
)


@contextlib.contextmanager
def writing_objects() -> Iterator[None]:
    """Within: object lists hand out Django instances (a write called outside a write request)."""
    token = _writing_objects.set(True)
    try:
        yield
    finally:
        _writing_objects.reset(token)


def is_write(request: Any) -> bool:
    """Whether ``request`` (or the resource method running now) writes: objects are Django's."""
    return _writing_objects.get() or getattr(request, "method", None) in WRITE_METHODS
