"""The keys a django-sortedm2m relation's own manager reads, by SQL compiled once.

A to-many field over a third party's related manager is read through that manager (the
serving layer asks its ``get_prefetch_querysets`` for stand-ins of the owners, as
``prefetch_related`` asks it, and Django evaluates the query).  django-sortedm2m's manager
orders by a column of its own (wger's ``Set.exercises``); building and compiling its query
on every request was a third of a wger set detail (about 0.9 ms of 2.6 ms on SQLite),
running it a tenth of that.

:func:`related_keys` keeps, per relation, database, number of owners and key column, the
SQL that query compiles to, and runs it again with other owners' keys, only where the
query is provably built from those keys alone:

* the relation's manager class is sortedm2m's ``SortedRelatedManager`` over Django's
  many-to-many manager over the related model's default manager class, no class of
  anyone else's between (:func:`sorted_manager`), read forward, over integer keys on
  both sides;
* that default manager class's ``get_queryset``, asked on every read as Django's query
  asks it, gives a bare queryset (:func:`~djony.objects.compiled.bare_queryset`: wger's
  ``SubmissionManager`` does), so the rest is Django's and sortedm2m's code over the
  owners' keys;
* the query's function that reads a row's owner is Django's many-to-many one (it reads the
  owner's key from the one select Django adds to the query, ``_prefetch_related_val_*``);
* compiled, its parameters are the owners' keys, in order, and nothing else, and its tree is
  :func:`~djony.objects.independent.request_independent`;
* the database is the one Django's query reads from, asked of the routers on every read.

The statement is the one Django's own query would run, so the rows and their order are the
same; of each row only the owner's and the related key's columns are read, converted as
Django converts them.  Anything else returns ``None``: the caller evaluates the manager's
own query, as before.
"""

from __future__ import annotations

from typing import Any

from django.db import connections, models, router
from django.db.models.expressions import Col
from django.db.models.query import ModelIterable, get_prefetcher

from djony.objects.compiled import KeptQueries, KeptSQL, bare_queryset
from djony.objects.kept import PerOwner, register
from djony.objects.managers import class_attribute
from djony.objects.page_gets import INTEGER_TYPES
from djony.objects.page_rows import over_keys

#: On the owner model's ``_meta``: (owner model, attribute, database, number of owners,
#: key column) -> KeptKeys or None.
_KEPT = PerOwner("_djony_manager_keys", KeptQueries)
register(
    "Options._djony_manager_keys",
    "(owner model, sortedm2m relation, database, number of owners, related key column) -> "
    "its KeptKeys or None: the manager's prefetch query is the same for every page of as "
    "many owners but for their keys, the kept SQL's only parameters (checked equal to "
    "Django's own compile when kept)",
    "one per relation, database, page size and key column (DJONY_CACHE_SIZE entries at most "
    "per owner model: djony.objects.kept.PerOwner)",
)

#: Where the classes of a sorted relation's manager come from (see :func:`sorted_manager`).
SORTED_MANAGER = ("sortedm2m.fields", "create_sorted_many_related_manager.<locals>.")
DJANGO_MANAGER = (
    "django.db.models.fields.related_descriptors",
    "create_forward_many_to_many_manager.<locals>.",
)


class KeptKeys(KeptSQL):
    """A sorted relation's prefetch query kept, and where a row holds its owner and key."""

    def __init__(self, *args: Any, owner_at: int, key_at: int) -> None:
        super().__init__(*args)
        self.owner_at = owner_at
        self.key_at = key_at

    def keys(self, owner_keys: list[int]) -> dict[int, list[Any]] | None:
        """Owner -> its related keys in the manager's order, for ``owner_keys`` (as many
        as the SQL was kept for); ``None`` for a row of another owner (never expected)."""
        compiler, converters = self.converters()
        picked = {
            at: found for at, found in converters.items() if at in (self.owner_at, self.key_at)
        }
        with connections[self.alias].cursor() as cursor:
            cursor.execute(self.sql, owner_keys)
            rows = cursor.fetchall()
        if picked:
            rows = compiler.apply_converters(rows, picked)
        result: dict[int, list[Any]] = {key: [] for key in owner_keys}
        for row in rows:
            found = result.get(row[self.owner_at])
            if found is None:
                return None
            found.append(row[self.key_at])
        return result


def related_keys(
    model: type[models.Model], attribute: str, owner_keys: list, alias: str, key_attname: str
) -> dict[Any, list[Any]] | None:
    """Owner key -> the related ``key_attname`` values ``obj.<attribute>`` gives, in its
    order, for the owners of ``owner_keys`` read from ``alias``; ``None`` where the
    relation's query is not kept (see the module): the caller runs the manager's own."""
    if not owner_keys:
        return None
    manager_class = sorted_manager(model, attribute)
    if manager_class is None or any(type(key) is not int for key in owner_keys):
        return None
    pk = model._meta.pk
    stand_in = model.from_db(alias, [pk.attname], [owner_keys[0]])
    target = model._meta.get_field(attribute).related_model
    # The default manager class's own get_queryset, as Django's prefetch asks it.
    base = super(manager_class.__mro__[1], getattr(stand_in, attribute)).get_queryset()
    if not bare_queryset(base, target):
        return None
    read_alias = router.db_for_read(target, instance=stand_in)
    kept_key = (model, attribute, read_alias, len(owner_keys), key_attname)
    queries = _KEPT.of(model._meta)
    if kept_key not in queries:
        queries[kept_key] = _compile(model, attribute, owner_keys, alias, read_alias, key_attname)
    kept = queries.get(kept_key)
    return None if kept is None else kept.keys(owner_keys)


def sorted_manager(model: type[models.Model], attribute: str) -> type | None:
    """The manager class of ``model.<attribute>`` when it is sortedm2m's forward manager
    over Django's many-to-many manager over the related model's default manager class,
    between integer keys, and what the prefetch reads of it is their code; else ``None``."""
    descriptor = class_attribute(model, attribute)
    if getattr(descriptor, "reverse", True):
        return None
    manager_class = getattr(descriptor, "related_manager_cls", None)
    field = getattr(descriptor, "field", None)
    if manager_class is None or field is None:
        return None
    target = field.related_model
    mro = manager_class.__mro__
    if len(mro) < 3 or mro[2] is not type(target._default_manager):
        return None
    if not (_made_by(mro[0], SORTED_MANAGER) and _made_by(mro[1], DJANGO_MANAGER)):
        return None
    for kind in mro:  # every definition of what the prefetch reads (super() calls reach it)
        for name in PREFETCH_READS & vars(kind).keys():
            if kind in mro[:2]:
                if getattr(vars(kind)[name], "__module__", kind.__module__) != kind.__module__:
                    return None  # a method someone else set on the class
            elif kind is not object and not kind.__module__.startswith(DJANGO_MODELS):
                return None  # the default manager class's, or a mixin's
    keys = (model._meta.pk, target._meta.pk)
    if any(key.get_internal_type() not in INTEGER_TYPES for key in keys):
        return None
    return manager_class


#: What Django's and sortedm2m's prefetch code reads of the manager, besides the default
#: manager class's ``get_queryset`` (proved on each read).
PREFETCH_READS = frozenset(
    {
        "__init__",
        "get_prefetch_querysets",
        "_apply_rel_ordering",
        "through",
        "source_field_name",
        "target_field_name",
        "query_field_name",
        "prefetch_cache_name",
        "instance",
        "model",
        "_db",
        "_hints",
    }
)
#: Where Django's own managers and querysets are defined.
DJANGO_MODELS = "django.db.models."


def _made_by(kind: type, origin: tuple[str, str]) -> bool:
    """Whether class ``kind`` was made by ``origin`` (module, factory function)."""
    module, factory = origin
    return kind.__module__ == module and kind.__qualname__.startswith(factory)


def _compile(
    model: type[models.Model],
    attribute: str,
    owner_keys: list,
    alias: str,
    read_alias: str,
    key_attname: str,
) -> KeptKeys | None:
    """The kept query of ``owner_keys``' prefetch, or ``None`` when it is not provably
    built from those keys alone (see the module)."""
    pk = model._meta.pk
    stand_ins = [model.from_db(alias, [pk.attname], [key]) for key in owner_keys]
    manager = get_prefetcher(stand_ins[0], attribute, attribute)[0]
    queryset, related_key, *_ = manager.get_prefetch_querysets(stand_ins)
    query = queryset.query
    if (
        queryset.db != read_alias
        or queryset._iterable_class is not ModelIterable
        or queryset._prefetch_related_lookups
        or len(query.extra_select) != 1
        or getattr(related_key, "__module__", None) != DJANGO_MANAGER[0]
        or not related_key.__qualname__.startswith(DJANGO_MANAGER[1])
    ):
        return None
    compiled = over_keys(query, read_alias, owner_keys)
    if compiled is None:
        return None
    compiler, sql = compiled
    (owner_name,) = query.extra_select
    owner_at = compiler.annotation_col_map[owner_name]
    key_at = next(
        (
            at
            for at in compiler.klass_info["select_fields"]
            if isinstance(compiler.select[at][0], Col)
            and compiler.select[at][0].target.attname == key_attname
        ),
        None,
    )
    if key_at is None:
        return None
    return KeptKeys(
        query, sql, tuple(owner_keys), read_alias, compiler, owner_at=owner_at, key_at=key_at
    )
