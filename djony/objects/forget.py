"""What a page's objects hold of their relations, forgotten after a write: read again on next use.

Tastypie dehydrates a page one object after another, and ``ModelResource`` reads each
object's relations while its bundle is dehydrated: a hook that writes
(``Book.objects.filter(...).update(author=...)``, a ``save()``, a ``get_or_create()``
that creates) changes what the page's later objects show.  What a ``DjonyResource`` read
for the whole page before any hook ran (the related objects its page loaders left in the
objects' relation caches) holds only until such a write.  :func:`forget_loads` drops from
objects every relation cache entry (``_prefetched_objects_cache``, the related objects
Django's descriptors cache) but those their own queryset's evaluation fills on Django as
well (its ``select_related`` and ``prefetch_related``: Django keeps them after a write,
so do these objects), and so along the relations kept.  The next read of a forgotten
relation runs after the write: for the page (:mod:`djony.objects.peers`,
:mod:`djony.objects.forward`) or by Django's own query.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models.constants import LOOKUP_SEP

from djony.objects.peers import CACHE

#: In a :func:`kept_by` tree: every related object cached on the object is kept
#: (``select_related()`` with no names follows every non-null foreign key).
EVERY = object()


def kept_by(queryset: models.QuerySet | None) -> dict:
    """The relations ``queryset``'s own evaluation caches on its objects: a tree of
    relation name -> the tree of the related objects' (:data:`EVERY`: all of them)."""
    tree: dict = {}
    if queryset is None:
        return tree
    selected = queryset.query.select_related
    if selected is True:  # and so on from each related object
        tree[EVERY] = tree
    elif selected:
        _add_selected(tree, selected)
    for lookup in queryset._prefetch_related_lookups:
        path = lookup.prefetch_to if isinstance(lookup, models.Prefetch) else lookup
        node = tree
        for name in path.split(LOOKUP_SEP):
            node = node.setdefault(name, {})
    return tree


def _add_selected(tree: dict, selected: dict) -> None:
    for name, deeper in selected.items():
        _add_selected(tree.setdefault(name, {}), deeper)


def forget_loads(objects: list[Any], tree: dict) -> None:
    """Drop from ``objects`` every relation cache entry outside ``tree`` (:func:`kept_by`;
    a name whose tree is ``None`` is kept as it is, what its objects hold too).

    An object keeps the related object whose own relation cache holds it (the owner a
    reverse foreign key's prefetch sets on each related object: ``book.author`` is the
    author instance it was read for, as on Django).  The related objects of an entry
    dropped forget theirs too: code may be going through them (a page's books being
    dehydrated, each with its tags)."""
    seen: set[int] = set()
    for obj in objects:
        _forget(obj, tree, seen)


def _forget(obj: Any, tree: dict, seen: set[int]) -> None:
    if id(obj) in seen or not isinstance(obj, models.Model):
        return
    seen.add(id(obj))
    every = EVERY in tree
    cached = obj._state.fields_cache
    for name in list(dict.keys(cached)):
        related = dict.get(cached, name)
        if every or name in tree:
            kept = tree[EVERY] if every else tree[name]
            if related is not None and kept is not None:
                _forget(related, kept, seen)
        elif related is None or not _holds(related, obj):
            if related is not None:  # (code may hold it still: what it holds is forgotten)
                _forget(related, {}, seen)
            dict.pop(cached, name)
    prefetched = obj.__dict__.get(CACHE)
    if not prefetched:
        return
    for name in list(dict.keys(prefetched)):
        queryset = dict.get(prefetched, name)
        kept = tree.get(name, {})
        for related in (getattr(queryset, "_result_cache", None) or ()) if kept is not None else ():
            # (a dropped entry's objects may be in use still, as a list being dehydrated;
            # each keeps this object, its owner, as Django's related manager gives it)
            _forget(related, kept, seen)
        if name not in tree:
            dict.pop(prefetched, name)


def _holds(owner: Any, obj: Any) -> bool:
    """Whether ``obj`` is among what ``owner``'s relation cache holds."""
    prefetched = getattr(owner, "__dict__", {}).get(CACHE)
    if not prefetched:
        return False
    for queryset in dict.values(prefetched):
        if any(found is obj for found in getattr(queryset, "_result_cache", None) or ()):
            return True
    return False
