"""A page's to-many relation loaded by SQL compiled once per relation and page size.

``prefetch_related_objects(page, "tags")`` builds the relation's query for the page
(``tags`` of ``pin__in=<the page>``, the join table's key selected with it), and Django
builds and compiles it again on every request: only the owners' keys differ.  For a
forward or reverse many-to-many or a reverse foreign key whose manager is Django's own,
over a related model whose default manager is Django's plain one
(:func:`~djony.objects.compiled.plain_manager`) or gives a bare queryset on the load
(:func:`_gives_bare`), :func:`load` keeps, per owner model,
relation, database, number of owners and type of key, the SQL Django's own prefetch
query compiles to, checked once to take the owners' keys, in the page's order, as its
only parameters (:func:`~djony.objects.independent.request_independent`: nothing of it
depends on the request).  Another page of as many owners then runs that SQL with its own
keys; Django's ``ModelIterable`` builds the related objects, and each owner's relation
cache gets what ``prefetch_one_level`` gives it: its manager's own queryset holding its
objects, in the query's order (a reverse foreign key's objects point at their owner).

Anything else (a lookup through several relations, a ``Prefetch`` or ``to_attr``, a
manager or default manager of another class, a key of several columns, an owner without
a key) is left to Django: :func:`load` answers ``False`` and the caller prefetches.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connections, models, router
from django.db.models.constants import LOOKUP_SEP
from django.db.models.fields.related_descriptors import (
    ManyToManyDescriptor,
    ReverseManyToOneDescriptor,
)
from django.db.models.query import ModelIterable
from django.db.models.sql.where import WhereNode

from djony.objects.compiled import (
    KeptQueries,
    KeptSQL,
    bare_queryset,
    may_be_bare,
    plain_manager,
)
from djony.objects.independent import request_independent
from djony.objects.kept import PerOwner, register

#: Where Django's related managers (and their prefetch) are defined.
DJANGO_MANAGERS = "django.db.models.fields.related_descriptors"

#: On each owner model's ``_meta``: (owner model, accessor, database, number of owners,
#: type of key) -> PageQuery or None.
_KEPT = PerOwner("_djony_page_relations", KeptQueries)
register(
    "Options._djony_page_relations",
    "(the owners' model, the relation's accessor, the database, the number of distinct "
    "owner keys, their type) -> its PageQuery or None: Django's prefetch query of a "
    "relation is the same for every page of as many owners but for their keys, the kept "
    "SQL's only parameters (checked equal to Django's own compile when kept)",
    "one per relation, database, page size and type of key (DJONY_CACHE_SIZE entries at most "
    "per owner model: djony.objects.kept.PerOwner)",
)


class PageQuery(KeptSQL):
    """The prefetch SQL of one relation for pages of a given number of owners."""

    def __init__(self, rel_qs: models.QuerySet, compiled: tuple) -> None:
        compiler, (sql, params) = compiled
        # Kept without its conditions: Django's ``__in`` keeps the instances it was given
        # (the first page's owners, and all they hold) where the kept SQL has their keys as
        # parameters; nothing compiles the kept query's conditions again.
        query = rel_qs.query.clone()
        query.where = WhereNode()
        template = copy.copy(compiler)
        template.query, template.where = query, query.where
        super().__init__(query, sql, tuple(params), rel_qs.db, template)


class Relation:
    """How Django's prefetch of one relation reads keys (its ``get_prefetch_querysets``),
    from a related manager of Django's (``obj.tags``, ``image.pin_set``)."""

    def __init__(self, manager: Any) -> None:
        self.target = manager.model
        self.many_to_many = hasattr(manager, "through")
        if self.many_to_many:
            fk = manager.through._meta.get_field(manager.source_field_name)
            self.local_fields = fk.local_related_fields
            self.owner_fields = fk.foreign_related_fields
            #: The name Django's prefetch caches the relation under.
            self.cache_name = manager.prefetch_cache_name
        else:
            self.field = manager.field
            self.local_fields = self.field.local_related_fields
            self.owner_fields = self.field.foreign_related_fields
            self.cache_name = self.field.remote_field.cache_name

    def prepared_keys(self, owners: list[Any], connection: Any) -> list[Any]:
        """Each owner's key as the prefetch query's ``__in`` takes it."""
        (field,) = self.owner_fields
        return [
            field.get_db_prep_value(getattr(owner, field.attname), connection) for owner in owners
        ]

    def owner_key(self, owner: Any, prepared: Any) -> tuple:
        """The key ``owner``'s related objects are grouped by (Django's ``instance_attr``);
        ``prepared``: its :meth:`prepared_keys` entry."""
        if self.many_to_many:
            return (prepared,)
        return self.field.get_foreign_related_value(owner)

    def related_keys(self, found: list[Any], connection: Any) -> list[tuple]:
        """The key of the owner each related object was loaded for (``rel_obj_attr``)."""
        if not self.many_to_many:
            return [self.field.get_local_related_value(obj) for obj in found]
        (field,) = self.local_fields
        name = f"_prefetch_related_val_{field.attname}"
        prepared: dict[Any, tuple] = {}  # a page names at most one key per owner
        keys = []
        for obj in found:
            value = getattr(obj, name)
            key = prepared.get(value)
            if key is None:
                key = prepared[value] = (field.get_db_prep_value(value, connection),)
            keys.append(key)
        return keys


def _gives_bare(manager: Any, target: type[models.Model]) -> bool:
    """Whether the queryset ``manager`` (a related manager of Django's) builds its prefetch
    from, its default manager class's own ``get_queryset`` on it, is bare on this load
    (:func:`~djony.objects.compiled.bare_queryset`: wger's ``SubmissionManager``; asked on
    every load, since a per-request scope may filter on the next)."""
    return may_be_bare(target) and bare_queryset(
        super(type(manager), manager).get_queryset(), target
    )


def load(objects: list[Any], accessor: str) -> bool:
    """``prefetch_related_objects(objects, accessor)`` by kept SQL; ``False`` (nothing
    done) where Django's own prefetch decides (see the module)."""
    if not objects or "__" in accessor:
        return False
    owner_model = type(objects[0])
    if any(type(obj) is not owner_model for obj in objects) or not _djangos(owner_model, accessor):
        return False
    for obj in objects:
        if not hasattr(obj, "_prefetched_objects_cache"):
            obj._prefetched_objects_cache = {}
    owners = [obj for obj in objects if accessor not in obj._prefetched_objects_cache]
    if not owners:
        return True
    if any(not owner._is_pk_set() for owner in owners):
        return False  # Django's manager raises its own error
    manager = getattr(owners[0], accessor)
    relation = Relation(manager)
    if len(relation.local_fields) != 1 or len(relation.owner_fields) != 1:
        return False
    if not (plain_manager(relation.target) or _gives_bare(manager, relation.target)):
        return False
    alias = router.db_for_read(relation.target, instance=owners[0])
    connection = connections[alias]
    prepared = relation.prepared_keys(owners, connection)
    keys = list(dict.fromkeys(prepared))  # as the query's ``__in`` has them: distinct, in order
    if any(key is None for key in keys):
        return False
    kept_key = (owner_model, accessor, alias, len(keys), type(keys[0]))
    relations = _KEPT.of(owner_model._meta)
    rel_qs = None
    if kept_key not in relations:
        compiled = _compile(manager, owners, keys, alias)
        relations[kept_key] = None if compiled is None else compiled[1]
        if compiled is None:
            return False
        rel_qs = compiled[0]
    kept = relations.get(kept_key)
    if kept is None:
        return False
    grouped_by = [
        relation.owner_key(owner, key) for owner, key in zip(owners, prepared, strict=True)
    ]
    found = _related(relation, kept, owners, grouped_by, tuple(keys), rel_qs)
    _fill(relation, owners, grouped_by, found, connection, accessor)
    return True


def prefetch(objects: list[Any], lookups: Sequence[Any]) -> None:
    """``prefetch_related_objects(objects, *lookups)``, a queryset's own prefetch.

    A lookup that walks related objects already cached on the objects (``select_related``:
    a pin's ``image``) to a relation :func:`load` reads (``"image__thumbnail_set"``) is
    read by kept SQL, for the related objects in the order the objects give them (as
    Django's prefetch walks them); every other lookup (a ``Prefetch``, a level nothing
    cached, a relation :func:`load` leaves to Django, lookups one of which walks through
    another's path) is Django's own prefetch; all in the lookups' order.
    """
    djangos: list[Any] = []  # Django's next, in the lookups' order
    paths = [_path(lookup) for lookup in lookups]
    for at, lookup in enumerate(lookups):
        if isinstance(lookup, str) and _alone(lookup, paths[:at] + paths[at + 1 :]):
            if djangos:  # (first: they may fetch a level this one walks)
                models.prefetch_related_objects(objects, *djangos)
                djangos = []
            if _load_path(objects, lookup.split(LOOKUP_SEP)):
                continue
        djangos.append(lookup)
    if djangos:
        models.prefetch_related_objects(objects, *djangos)


def _path(lookup: Any) -> str:
    return lookup.prefetch_through if isinstance(lookup, models.Prefetch) else lookup


def _alone(lookup: str, others: list[str]) -> bool:
    """Whether no other lookup walks through ``lookup``'s path or it through theirs
    (``"author__books"`` and ``"author__books__tags"``): Django's one prefetch walks the
    later one on from the objects in the order its query for the earlier gave them, which
    only that query gives (such lookups are all left to Django)."""
    return not any(
        other == lookup
        or other.startswith(lookup + LOOKUP_SEP)
        or lookup.startswith(other + LOOKUP_SEP)
        for other in others
    )


def _load_path(objects: list[Any], path: list[str]) -> bool:
    """:func:`load` of ``path``'s last relation on the objects its other names reach
    through the objects' cached related objects; ``False`` (nothing read) elsewhere."""
    *through, accessor = path
    level = objects
    for name in through:
        reached = []
        for obj in level:
            cached = obj._state.fields_cache
            if not dict.__contains__(cached, name):
                return False
            related = dict.get(cached, name)
            if related is not None:
                reached.append(related)
        level = reached
    return not level or load(level, accessor)


def _djangos(owner_model: type[models.Model], accessor: str) -> bool:
    """Whether ``accessor`` is a to-many relation whose manager and prefetch are Django's."""
    descriptor = getattr(owner_model, accessor, None)
    if type(descriptor) not in (ManyToManyDescriptor, ReverseManyToOneDescriptor):
        return False
    manager_class = descriptor.related_manager_cls
    return all(
        getattr(getattr(manager_class, method, None), "__module__", None) == DJANGO_MANAGERS
        for method in ("get_prefetch_querysets", "get_queryset", "_apply_rel_filters")
    )


def _compile(
    manager: Any, owners: list[Any], keys: list[Any], alias: str
) -> tuple[models.QuerySet, PageQuery] | None:
    """Django's own prefetch query for ``owners`` and its kept SQL, or ``None`` when its
    parameters are not the owners' keys alone (or anything of it may change)."""
    rel_qs, *_ = manager.get_prefetch_querysets(owners)
    if (
        rel_qs.db != alias
        or rel_qs._iterable_class is not ModelIterable
        or rel_qs._prefetch_related_lookups
    ):
        return None
    compiler = rel_qs.query.get_compiler(alias)
    try:
        sql, params = compiler.as_sql()
    except (EmptyResultSet, FullResultSet):
        return None
    if tuple(params) != tuple(keys) or not request_independent(rel_qs.query, compiler):
        return None
    return rel_qs, PageQuery(rel_qs, (compiler, (sql, params)))


def _related(
    relation: Relation,
    kept: PageQuery,
    owners: list[Any],
    grouped_by: list[tuple],
    keys: tuple,
    rel_qs: models.QuerySet | None,
) -> list[Any]:
    """The related objects of ``owners`` (grouped by ``grouped_by``), as Django's prefetch
    query gives them.

    ``rel_qs``: Django's own query when it was just compiled; a reverse foreign key's is
    evaluated already (Django's ``get_prefetch_querysets`` iterates it).  Any other runs
    on a copy of the kept query, never on the kept one (which other threads copy)."""
    if rel_qs is not None and rel_qs._result_cache is not None:
        return list(rel_qs)
    queryset = models.QuerySet(model=relation.target, query=copy.copy(kept.query), using=kept.alias)
    queryset._add_hints(instance=owners[0])
    found = kept.objects(queryset, keys)
    if not relation.many_to_many:  # as Django's prefetch: each object points at its owner
        field = relation.field
        by_key = dict(zip(grouped_by, owners, strict=True))
        for obj in found:
            if not field.is_cached(obj):
                field.set_cached_value(obj, by_key[field.get_local_related_value(obj)])
    return found


def _fill(
    relation: Relation,
    owners: list[Any],
    grouped_by: list[tuple],
    found: list[Any],
    connection: Any,
    accessor: str,
) -> None:
    """Each owner's relation cache as ``prefetch_one_level`` fills it."""
    grouped: dict[tuple, list[Any]] = {}
    for obj, key in zip(found, relation.related_keys(found, connection), strict=True):
        grouped.setdefault(key, []).append(obj)
    for owner, key in zip(owners, grouped_by, strict=True):
        vals = grouped.get(key, [])
        queryset = _own_queryset(getattr(owner, accessor), relation.cache_name)
        queryset._result_cache = vals
        queryset._prefetch_done = True
        owner._prefetched_objects_cache[relation.cache_name] = queryset


def _own_queryset(manager: Any, cache_name: str) -> models.QuerySet:
    """``manager.get_queryset()``: the relation's queryset for its owner.

    Where nothing is cached for the relation yet (on the owner, which has no parent model
    whose instance could hold it), that is the related model's default queryset filtered
    for the owner, which is built so without asking the cache (a page's relation cache
    answers a missing entry by loading it: :mod:`djony.objects.peers`)."""
    owner = manager.instance
    if owner._meta.parents or cache_name in owner._prefetched_objects_cache:
        return manager.get_queryset()
    return manager._apply_rel_filters(super(type(manager), manager).get_queryset())
