"""What is kept between requests: one registry of its kinds, and the bounded cache they use.

Anything djony or tastypie_djony keeps from one request to the next (compiled SQL,
URI templates, plans, copied object lists, per-model and per-class tables) is one
*kind* of kept state, registered here with :func:`register`: where it lives, what
its key holds and why an entry is the same for every request it serves, and how it
is bounded.  The test suite walks this registry (tests/test_kept_state.py): state
that grows during requests without being registered fails it, and so does a kind
without a test of its own.

Anything new kept between requests is registered here (:func:`register`), by the
module that keeps it (djony's kinds below, ``tastypie_djony.kept`` for the serving
layer's).  Caches keyed by anything a request can vary are a :class:`BoundedCache`: a
least-recently-used mapping of at most ``settings.DJONY_CACHE_SIZE`` entries
(default :data:`DEFAULT_SIZE`) each; a copy (``copy``/``deepcopy`` of a resource or
field, as Tastypie makes) starts empty.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

#: Entries per cache when ``settings.DJONY_CACHE_SIZE`` is not set.
DEFAULT_SIZE = 256


def cache_size() -> int:
    """``settings.DJONY_CACHE_SIZE``: the most entries one kept cache holds."""
    from django.conf import settings

    size = getattr(settings, "DJONY_CACHE_SIZE", DEFAULT_SIZE)
    if type(size) is not int or size < 1:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            f"DJONY_CACHE_SIZE must be a positive integer (entries per cache), got {size!r}."
        )
    return size


class BoundedCache(OrderedDict):
    """A dict that keeps its :func:`cache_size` most recently used entries."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        with self._lock:
            if key in self:
                self.move_to_end(key)
        return value

    def __setitem__(self, key: Any, value: Any) -> None:
        size = cache_size()
        with self._lock:
            super().__setitem__(key, value)
            self.move_to_end(key)
            while len(self) > size:
                # Not popitem(): on Python 3.10 it calls this class's __getitem__,
                # which would wait for the lock held here.
                super().__delitem__(next(iter(self)))

    def setdefault(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            self[key] = default
            return default

    def __copy__(self) -> BoundedCache:
        return type(self)()

    def __deepcopy__(self, memo: dict) -> BoundedCache:
        return type(self)()

    def __reduce__(self) -> tuple:
        return (type(self), ())


class PerOwner:
    """A :class:`BoundedCache` for each owner object, kept on the owner itself.

    For what a request varies *within* something structural (the filter shapes of the
    lists a resource's ``Meta.queryset`` makes): each owner gets its own
    ``DJONY_CACHE_SIZE`` entries, so an API of many resources does not make them take
    each other's places (one cache for all, read in turn by more shapes than it holds,
    would lose each entry before it is asked for again), and they go with the owner.
    The bound is then ``DJONY_CACHE_SIZE`` per owner, and owners are as many as the
    structure has (resources, relations), not as requests make.

    The cache is the owner's attribute ``attribute`` (``_djony_...``): a ``copy`` or
    ``deepcopy`` of the owner starts with an empty one (:meth:`BoundedCache.__copy__`),
    and Django's ``QuerySet._clone()`` does not carry it.  :meth:`clear` and
    :meth:`items` reach every owner's cache made through this object (for tests and
    introspection; owners are held weakly).
    """

    def __init__(self, attribute: str, make: Callable[[], BoundedCache] = BoundedCache) -> None:
        self.attribute = attribute
        self._make = make
        self._owners: weakref.WeakSet = weakref.WeakSet()

    def of(self, owner: Any) -> BoundedCache:
        """``owner``'s cache (made on first use)."""
        found = owner.__dict__.get(self.attribute)
        if found is None:
            found = owner.__dict__.setdefault(self.attribute, self._make())
            self._owners.add(owner)
        return found

    def clear(self) -> None:
        """Forget every owner's entries."""
        for owner in list(self._owners):
            owner.__dict__.pop(self.attribute, None)
        self._owners.clear()

    def items(self) -> Iterator[tuple[Any, Any, Any]]:
        """``(owner, key, value)`` of every owner's entries."""
        for owner in list(self._owners):
            for key, value in list(owner.__dict__.get(self.attribute, {}).items()):
                yield owner, key, value

    def values(self) -> list[Any]:
        """Every owner's values."""
        return [value for _owner, _key, value in self.items()]

    def __iter__(self) -> Iterator[Any]:
        """Every owner's keys."""
        return (key for _owner, key, _value in self.items())

    def __len__(self) -> int:
        """How many entries every owner's cache holds in all."""
        return sum(len(owner.__dict__.get(self.attribute, ())) for owner in list(self._owners))


@dataclass(frozen=True)
class Kind:
    """One kind of state kept between requests."""

    #: Where it lives: ``module.NAME`` for module state, ``Class.attribute`` (an instance
    #: attribute, e.g. ``DjonyResource._djony_uris``) for state kept on objects.
    where: str
    #: What its key holds, and why an entry serves every request with that key alike.
    keyed_by: str
    #: How many entries it can hold.
    bound: str


KINDS: dict[str, Kind] = {}


def register(where: str, keyed_by: str, bound: str) -> str:
    """Register a kind of kept state (see the module); returns ``where``."""
    KINDS[where] = Kind(where, keyed_by, bound)
    return where


# -- djony's kinds ------------------------------------------------------------
# Structural tables: keyed by models, entities, classes or settings, which every
# request of a process shares; they hold one entry per such object and never grow
# with what requests ask.
register(
    "djony.registry._databases",
    "a Django database alias -> its Pony Database (the mapping of the installed models)",
    "one per alias in settings.DATABASES",
)
register(
    "djony.registry._entities",
    "a Django database alias -> model -> its entity",
    "one per alias and installed model",
)
register(
    "djony.objects.proxies._FLAVOURS",
    "(concrete entity, proxy model) -> the proxy's instance class",
    "one per proxy model",
)
register(
    "djony.objects.rows.row_layout",
    "an entity -> the attnames it selects and where each attribute reads (functools.cache)",
    "one per entity",
)
register(
    "djony.meta.compat.takes_fetch_mode",
    "a model -> whether its from_db takes Django 6.1's fetch_mode (functools.cache)",
    "one per model whose objects are built",
)
register(
    "djony.objects.peers.to_many_accessors",
    "a model -> its to-many relations' cache names and accessors (functools.cache)",
    "one per model whose page objects load a relation together",
)
register(
    "djony.objects.page_gets.relation",
    "(a model, a to-many cache name) -> the reverse foreign key whose get() a page answers "
    "from its rows, or None (functools.cache)",
    "one per model and reverse foreign key whose page objects look a related row up",
)
register(
    "djony.objects.forward.forward",
    "(a model, a field name) -> the forward foreign key a page reads once for its "
    "objects, or None (functools.cache)",
    "one per model and foreign key whose page objects read it",
)
register(
    "djony.objects.forward.has_forward",
    "a model -> whether a forward foreign key of it is read once for a page (functools.cache)",
    "one per model whose objects are loaded together",
)
register(
    "djony.objects.compiled._adds_only",
    "a QuerySet subclass -> whether it only adds methods to Django's (functools.cache)",
    "one per QuerySet class of the managers and querysets read",
)
register(
    "djony.objects.independent.django_parent",
    "a model field class -> the Django field class it compiles and prepares values as, or "
    "None (functools.cache)",
    "one per field class of the columns in the queries kept",
)
register(
    "djony.bridge.backends.postgresql.provider_for",
    "a driver name -> djony's Pony provider class for it (functools.cache)",
    "one per installed PostgreSQL driver",
)
register(
    "djony.bridge.backends.mysql.mysql_provider",
    "nothing -> djony's Pony MySQL provider class (functools.cache)",
    "one",
)
register(
    "Options._djony_description",
    "on a model's _meta: what djony reads of it while serving objects (djony.meta.models)",
    "one per model",
)
register(
    "pony.Database caches",
    "Pony's per-database caches (_translator_cache, _constructed_sql_cache, _insert_cache): "
    "keyed by query text and entity; djony gives Pony no text made of request values "
    "(Django compiles filters, values are parameters)",
    "one per query shape djony's code builds",
)
