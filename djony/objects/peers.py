"""Django instances loaded together read a to-many relation for all of them at once.

:func:`load_together` gives the instances of a page (a list page's objects, a nested
page's related objects) a relation cache that, the first time code evaluates a to-many
relation's ``all()`` on one of them (``obj.tags.all()`` in a ``dehydrate_tags``), loads
that relation for every instance of the page in one query, as ``prefetch_related`` would
have, and answers from it.  The objects that load brings are a page of their own (a
hook walking on, ``permission.content_type`` of each of ``user.user_permissions.all()``,
reads once for all of them).  Until then nothing runs: ``filter()``, ``values_list()``
and every other QuerySet method run the query they run on Django (one per object), but
``get()``, ``count()`` and ``exists()``, which :mod:`djony.objects.page_gets` answers from
one read of the page where it can; a relation nobody iterates is never loaded.

Only a relation whose queryset is ordered is loaded this way: the page's one query of an
unordered relation may give an owner's objects in another order than the owner's own
query gives them.  And only through a manager whose ``get_prefetch_querysets`` is
Django's own (many-to-many, reverse foreign key, ``GenericRelation``): Django's builds the
page's query from the manager's base queryset, where a third party's may read the
relation cache this module fills (taggit's does); those stay one query per object.

A relation named in ``any_order`` (one a page loader would have prefetched with the page:
a field whose values the page read another way) loads this way whether ordered or not,
as that prefetch would have loaded it, and also on ``count()`` and ``exists()`` (which a
prefetched relation answers from its cache): a page whose code never touches it reads
nothing for it.

An instance loaded alone (a detail's object) reads each such relation with its own
query, as on Django, by SQL compiled once per relation (:mod:`djony.objects.relation_sql`);
the objects it reads are a page of their own too.

A write through the manager drops the loaded entry as Django drops a prefetched one;
inside a :func:`djony.bridge.writes.watching` block (a ``DjonyResource`` read) any write
since the page's load drops what that load left in every owner's cache, so the next read
loads the relation for the page again, seeing what Django's own query would (an entry a
``prefetch_related`` made stays, as on Django).  A pickled or copied cache is a plain
``dict``.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

from django.db import models, router

from djony.bridge.writes import written
from djony.objects import forward, page_chains, page_gets, page_relations
from djony.objects.letgo import note_loaded
from djony.objects.relation_sql import kept_read, untouched
from djony.objects.ties import sort_columns, tied_objects

#: The attribute Django's related managers and ``prefetch_related`` keep their results in.
CACHE = "_prefetched_objects_cache"

#: Where Django's own related managers' ``get_prefetch_querysets`` are defined.
DJANGO_PREFETCHERS = frozenset(
    {"django.db.models.fields.related_descriptors", "django.contrib.contenttypes.fields"}
)


def load_together(objects: list[Any], any_order: frozenset[str] = frozenset()) -> None:
    """Make the to-many relations of ``objects`` load for all of them on first iteration
    (one instance: by its own query's kept SQL).

    For instances of one model class (a mixed page, as a polymorphic queryset gives, is
    left as Django leaves it), and, each relation's as a page of their own, the objects
    joined into them (``select_related``: a pin's image, whose related ``get()`` then reads
    once for the page too).  What is already in an object's relation cache (a
    ``prefetch_related``, a page loader) stays.  ``any_order``: the cache names of
    relations loaded so even when unordered, and on ``count()``/``exists()`` (see the
    module).
    """
    _load_together(objects, any_order, set())


def _load_together(objects: list[Any], any_order: frozenset[str], seen: set[int]) -> None:
    """:func:`load_together`; ``seen``: the objects of this walk so far (by ``id``)."""
    seen.update(id(obj) for obj in objects)
    model = type(objects[0]) if objects else None
    if model is None or any(type(obj) is not model for obj in objects):
        return
    to_many, to_one = bool(to_many_accessors(model)), forward.has_forward(model)
    if to_many or to_one:  # (to_one: their forward foreign keys, djony.objects.forward)
        page = _Page([weakref.ref(obj) for obj in objects], any_order)
        for obj in objects:
            if to_many:
                obj.__dict__[CACHE] = PeerCache(obj.__dict__.get(CACHE, ()), obj, page)
            if to_one and not isinstance(obj._state.fields_cache, forward.ForwardCache):
                obj._state.fields_cache = forward.ForwardCache(obj._state.fields_cache, obj, page)
    # The objects joined into these (select_related: a pin's image) load together too,
    # each relation's as a page of its own: those not in a page already.  The relations
    # are the first object's whose related model has to-many relations (a page's objects
    # come from one query: the same joins).
    names = [
        name
        for name, related in objects[0]._state.fields_cache.items()
        if related is not None and id(related) not in seen and _pages(type(related))
    ]
    for name in names:
        joined: dict[int, Any] = {}
        for obj in objects:
            related = obj._state.fields_cache.get(name)
            if (
                related is not None
                and id(related) not in seen
                and not isinstance(related.__dict__.get(CACHE), PeerCache)
                and not isinstance(related._state.fields_cache, forward.ForwardCache)
            ):
                joined[id(related)] = related
        if joined:
            _load_together(list(joined.values()), frozenset(), seen)


def _pages(model: type[models.Model]) -> bool:
    """Whether instances of ``model`` read anything for their page (a to-many relation,
    a forward foreign key: :mod:`djony.objects.forward`)."""
    return bool(to_many_accessors(model)) or forward.has_forward(model)


@functools.cache
def to_many_accessors(model: type[models.Model]) -> dict[str, str]:
    """Each to-many relation of ``model``: the name its manager caches it under -> its accessor.

    Forward many-to-many fields (and fields like them: ``GenericRelation``, taggit's
    manager) cache under their name; a reverse foreign key under its accessor name; a
    reverse many-to-many under its related query name.  A name two relations share is left
    out (its manager answers as on Django).
    """
    found: dict[str, str] = {}
    shared: set[str] = set()
    for field in model._meta.get_fields():
        if not (field.many_to_many or field.one_to_many):
            continue
        if field.auto_created and not field.concrete:  # a reverse relation
            accessor = field.get_accessor_name()
            if not accessor:
                continue
            name = accessor if field.one_to_many else field.field.related_query_name()
        else:
            accessor = name = field.name
        if name in found:
            shared.add(name)
        found[name] = accessor
    return {name: accessor for name, accessor in found.items() if name not in shared}


def loads_together(model: type[models.Model], accessor: str) -> str | None:
    """The cache name under which :func:`load_together` loads ``model``'s to-many relation
    ``accessor`` (its related manager prefetching as Django's do), or ``None``."""
    manager_class = getattr(getattr(model, accessor, None), "related_manager_cls", None)
    if manager_class is None or not prefetches_as_django(manager_class):
        return None
    names = [name for name, found in to_many_accessors(model).items() if found == accessor]
    return names[0] if len(names) == 1 else None


def prefetches_as_django(manager_class: type) -> bool:
    """Whether ``manager_class`` loads a prefetch with Django's own ``get_prefetch_querysets``
    (from its base queryset, never from an instance's relation cache)."""
    method = getattr(manager_class, "get_prefetch_querysets", None)
    return getattr(method, "__module__", None) in DJANGO_PREFETCHERS


class _Page:
    """The instances loaded together; ``probing`` while a manager builds its own queryset."""

    __slots__ = ("objects", "probing", "any_order", "refused", "gets", "loads")

    def __init__(self, objects: list[weakref.ref], any_order: frozenset[str]) -> None:
        self.objects = objects
        self.probing = False
        self.any_order = any_order
        #: The names found not to load this way (asked once per page, not per object:
        #: a hook reading an unordered relation on every object runs Django's query only).
        self.refused: set[str] = set()
        #: What the page's related ``get()``/``count()``/``exists()`` read (:mod:`.page_gets`).
        self.gets: dict = {}
        #: The relations this page loaded inside a watched read, by cache name: the write
        #: count they hold at, and the querysets the load left in the owners' caches.
        self.loads: dict[str, _Load] = {}

    @staticmethod
    def together(objects: list[Any]) -> None:
        """Make ``objects`` (read for the page's: their related objects) a page of their own."""
        load_together(objects)

    def owners(self) -> list[Any]:
        """The page's live instances."""
        alive = (ref() for ref in self.objects)
        return [obj for obj in alive if obj is not None]

    def owners_without(self, name: str) -> list[Any]:
        """The page's live instances that have not loaded ``name``."""
        alive = (ref() for ref in self.objects)
        return [obj for obj in alive if obj is not None and name not in obj.__dict__.get(CACHE, ())]

    def unload_all(self) -> None:
        """Drop what every load of this page left in its owners' caches (the request that
        read them is over: :mod:`djony.objects.letgo`)."""
        for name in list(self.loads):
            self.unload(name)

    def unload(self, name: str) -> None:
        """Drop what this page's load of ``name`` left in its owners' caches (a write ran
        since: as on Django, the relation is read again; a ``prefetch_related``'s stays)."""
        load = self.loads.pop(name)
        for owner in self.owners():
            cache = owner.__dict__.get(CACHE)
            if cache is not None and id(dict.get(cache, name)) in load.querysets:
                dict.pop(cache, name)


class _Load:
    """A page's load of one relation: where and at which write count it was read, and the
    querysets it left in the owners' caches (by ``id``, while they are there)."""

    __slots__ = ("alias", "written_model", "count", "querysets")

    def __init__(self, alias: str, written_model: type, count: int, querysets: set[int]) -> None:
        self.alias = alias
        self.written_model = written_model
        self.count = count
        self.querysets = querysets

    def stale(self, owner: Any) -> bool:
        """Whether a write ran since the load (where ``owner``'s relation is written to)."""
        now = written(self.alias, router.db_for_write(self.written_model, instance=owner))
        return now != self.count


class PeerCache(page_gets.PageCache):
    """An instance's ``_prefetched_objects_cache``: a missing to-many loads for the page.

    A missing entry answers the queryset the manager would build, whose evaluation loads
    the relation for the whole page (:func:`_load_for_page`); any other use of it runs its
    own query, as on Django.
    """

    __slots__ = ()

    def __getitem__(self, name: str) -> Any:
        self._unload_if_stale(name)
        queryset = super().__getitem__(name)
        owner = self._owner()
        if owner is not None and not self._page.probing:
            page_gets.arm(queryset, owner, name, self._page)  # get(), count() for the page
            page_chains.arm(queryset, owner, name, self._page)  # select_related() too
        return queryset

    def get(self, name: str, default: Any = None) -> Any:
        """The entry, as ``dict.get`` (nothing loaded if missing), not one a write made stale."""
        self._unload_if_stale(name)
        return dict.get(self, name, default)

    def __contains__(self, name: object) -> bool:
        self._unload_if_stale(name)
        return dict.__contains__(self, name)

    def _unload_if_stale(self, name: Any) -> None:
        """Drop the page's load of ``name`` if a write ran since it (see the module)."""
        load = self._page.loads.get(name)
        if load is not None and id(dict.get(self, name)) in load.querysets:
            owner = self._owner()
            if owner is not None and load.stale(owner):
                self._page.unload(name)

    def __missing__(self, name: str) -> Any:
        page = self._page
        owner = self._owner()
        if page.probing or owner is None:
            raise KeyError(name)
        if name in page.refused:
            return self._own(owner, name)
        accessor = to_many_accessors(type(owner)).get(name)
        if accessor is None:
            raise KeyError(name)
        manager = getattr(owner, accessor)
        if not prefetches_as_django(type(manager)):
            page.refused.add(name)
            raise KeyError(name)
        queryset = self._probe(manager)
        if len(page.objects) == 1:  # one owner: its own query, by the SQL kept for it
            # ... when evaluated: a get(), count() or filter() never needs it.
            evaluate = functools.partial(_read_kept, queryset, owner, name, page)
            page_gets.set_method(queryset, "_fetch_all", evaluate)
            return queryset
        if name not in page.any_order and not _ordered(queryset):
            page.refused.add(name)
            return self._own(owner, name, queryset)
        evaluate = functools.partial(_load_for_page, queryset, page, self._owner, name, accessor)
        page_gets.set_method(queryset, "_fetch_all", evaluate)
        if name in page.any_order:  # answered from the page's load, as a prefetch answers
            page_gets.set_method(queryset, "count", functools.partial(len, queryset))
            page_gets.set_method(queryset, "exists", functools.partial(bool, queryset))
        return queryset

    def _probe(self, manager: Any) -> Any:
        """The manager's own queryset (built as Django builds it: nothing cached answers)."""
        self._page.probing = True
        try:
            return manager.all()
        finally:
            self._page.probing = False

    def _own(self, owner: Any, name: str, queryset: Any = None) -> Any:
        """For a relation this page does not load: the queryset Django's manager builds,
        where its ``get()`` may be answered from the page's rows (:mod:`.page_gets`), else
        ``KeyError`` (the manager builds it itself)."""
        info = page_gets.relation(type(owner), name)
        if info is None:
            raise KeyError(name)
        if queryset is None:
            queryset = self._probe(getattr(owner, info.accessor))
        return queryset


def _ordered(queryset: Any) -> bool:
    """``queryset.ordered`` of a related manager's queryset, without applying its deferred
    filter (reading ``.query`` would build it; the owner's condition orders nothing and
    empties nothing, and a page's load never needs it built)."""
    if not untouched(queryset):
        return queryset.ordered
    query = queryset._query
    if query.is_empty() or query.extra_order_by or query.order_by:
        return True
    return bool(query.default_ordering and query.get_meta().ordering and not query.group_by)


def _read_kept(queryset: Any, owner: Any, name: str, page: _Page) -> None:
    """Evaluate ``queryset`` (``owner``'s ``name``, the page's one owner) by the SQL kept for
    the relation while unchanged; where none serves it, Django's own query (and the page's
    later reads of ``name`` are Django's from the start)."""
    fresh = queryset._result_cache is None
    if fresh and untouched(queryset):
        read = kept_read(owner, name, queryset)
        if read is None:
            page.refused.add(name)
        else:
            queryset._result_cache = read()  # None: Django's own query, below
    type(queryset)._fetch_all(queryset)
    if fresh:
        _related_page([queryset._result_cache])


def _load_for_page(
    queryset: Any, page: _Page, owner: weakref.ref, name: str, accessor: str
) -> None:
    """Evaluate ``queryset`` (the owner's ``name``) by loading ``name`` for the whole page.

    An owner two of whose rows tie in what the relation's rows are sorted by
    (:func:`~djony.objects.ties.sort_columns`) gets its own query's objects instead, in the
    order that query gives (the page's one query may give its ties in another); a relation
    sorted by what rows cannot show (an expression, a related model's column) is each
    owner's own query, but where the page loads it in any order (an order through a
    relation that leaves no ties, ``Permission``'s, is no columns: one query)."""
    if queryset._result_cache is None:
        columns = sort_columns(queryset)
        if columns is None and name not in page.any_order:
            page.refused.add(name)
            type(queryset)._fetch_all(queryset)  # Django's own query (and later ones)
            return
        page.probing = True  # the managers Django asks while it fills the caches build theirs
        try:
            owners = page.owners_without(name)
            if not page_relations.load(owners, accessor):
                models.prefetch_related_objects(owners, accessor)
            if columns:
                _own_order_of_ties(owners, name, accessor, columns)
        finally:
            page.probing = False
        found = owner()
        loaded = None if found is None else found.__dict__.get(CACHE, {}).get(name)
        if loaded is None or loaded._result_cache is None:
            type(queryset)._fetch_all(queryset)
            return
        queryset._result_cache = loaded._result_cache
        queryset._prefetch_done = loaded._prefetch_done
        _related_page(_loaded(owners, name))
        _record_load(page, name, queryset, found, owners)
    type(queryset)._fetch_all(queryset)


def _record_load(page: _Page, name: str, queryset: Any, owner: Any, owners: list[Any]) -> None:
    """Keep, inside a watched read, at which write count ``owners`` loaded ``name`` (their
    caches' entries are dropped after a write: :meth:`_Page.unload`)."""
    model = queryset.model
    through = getattr(getattr(owner, to_many_accessors(type(owner))[name]), "through", None)
    written_model = model if through is None else through
    alias = queryset.db
    count = written(alias, router.db_for_write(written_model, instance=owner))
    if count is None:
        return  # outside a watched read: kept as a prefetch keeps it
    entries = (dict.get(found.__dict__[CACHE], name) for found in owners)
    stored = {id(entry) for entry in entries if entry is not None}
    earlier = page.loads.get(name)
    if earlier is not None and earlier.count == count:
        stored |= earlier.querysets
    if not page.loads:
        note_loaded(page)
    page.loads[name] = _Load(alias, written_model, count, stored)


def _own_order_of_ties(owners: list[Any], name: str, accessor: str, columns: list[str]) -> None:
    """Give each of ``owners`` whose loaded ``name`` holds rows of equal ``columns`` values
    its related manager's own queryset, evaluated by its own query (while the page is
    ``probing``: Django builds it as it always does)."""
    loaded = zip(map(id, owners), _loaded(owners, name), strict=True)
    with_ties = tied_objects(loaded, columns)
    for owner in owners:
        if id(owner) in with_ties:
            owner.__dict__[CACHE].pop(name)  # (else the manager answers the page's load)
            own = getattr(owner, accessor).all()
            type(own)._fetch_all(own)
            own._prefetch_done = True
            owner.__dict__[CACHE][name] = own


def _loaded(owners: list[Any], name: str) -> list[list[Any] | None]:
    """What ``owners``' relation caches hold for ``name`` (``None`` where nothing is loaded)."""
    found = (owner.__dict__.get(CACHE, {}).get(name) for owner in owners)
    return [None if queryset is None else queryset._result_cache for queryset in found]


def _related_page(loaded: list[list[Any] | None]) -> None:
    """Make the related objects a relation load gave (each owner's list, ``None`` where none)
    a page of their own, as the objects joined into a page are: a hook that walks on from
    them (``permission.content_type`` of each of ``user.user_permissions.all()``) reads
    once for all of them, not once per object.  Objects in a page already stay in theirs."""
    objects = [
        obj
        for found in loaded
        if found
        for obj in found
        if not isinstance(obj.__dict__.get(CACHE), PeerCache)
        and not isinstance(obj._state.fields_cache, forward.ForwardCache)
    ]
    if objects:
        load_together(objects)
