"""``obj.thumbnail_set.get(size=...)``, ``.count()``, ``.exists()`` on a page's instances:
one query for the page.

A model method that looks one related row up (pinry's ``image.get_by_size(size)`` is
``self.thumbnail_set.get(size=size)``) runs a query per object and per call, and
``prefetch_related`` does not help: Django's ``get()`` filters again in the database.
For the instances of a page (:func:`djony.objects.peers.load_together`), inside a
:func:`djony.bridge.writes.watching` block (a ``DjonyResource`` read), the first such
``get()`` reads the relation's rows for every instance of the page in one query, and
that call and the later ones are answered from those rows: a new instance each time,
built as Django's query builds it (``Model.from_db`` with the same values, its owner
set as the related manager's known related object, ``pre_init``/``post_init`` sent), or
Django's own ``DoesNotExist``/``MultipleObjectsReturned`` with Django's messages.
``count()`` and ``exists()`` (a hook's ``obj.comments.count()``, ``user.groups.exists()``)
are answered the same way from one count of the relation's rows per owner (``GROUP BY`` the
foreign key, or the join table's column of the owner); on a relation already loaded
(prefetched) they count its objects, as Django's do.

Only where the answer is provably the database's:

* a reverse foreign key of one column (``get()``, ``count()``, ``exists()``), or a
  many-to-many relation either way whose join table's column of the owner holds its
  primary key (``count()``, ``exists()``), through Django's own related manager, whose
  model's default manager is Django's plain one (:func:`~djony.objects.compiled.plain_manager`:
  no filtering, no tenant scoping), or one with a ``get_queryset`` of its own that gave a
  bare queryset on this call, both the related manager's and the default manager's
  (:func:`~djony.objects.compiled.bare_related_queryset`: the pre-``as_manager()`` idiom, wger's
  ``SubmissionManager``; a tenant manager's filter is seen), and whose queryset nobody
  changed;
* for ``get()``, keyword conditions only, each an ``exact`` of one of the model's own
  concrete columns (``pk`` too) with a value Django's field prepares without error: an
  integer, a boolean, or a string (not on MySQL/MariaDB, whose usual collations compare
  strings without case and trailing spaces, nor a column with a ``db_collation``, nor
  one holding NUL, which PostgreSQL refuses), or ``None``;
* while the connection read from, and the one the related model is written to (a
  router's primary), ran nothing but ``SELECT`` since the rows were read (an insert, an
  update, a savepoint, raw SQL: the rows are read again).

Anything else is Django's own method, as it is.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

from django.db import connections, models, router
from django.db.models import Count
from django.db.models.constants import LOOKUP_SEP
from django.db.models.fields.related import ForeignObjectRel
from django.db.models.fields.related_descriptors import ManyToManyDescriptor
from django.db.models.query import MAX_GET_RESULTS

from djony.bridge.writes import written
from djony.meta.compat import instance_builder, track_peers
from djony.objects import page_rows
from djony.objects.compiled import (
    bare_related_queryset,
    may_be_bare,
    plain_manager,
    plain_queryset_class,
)
from djony.objects.letgo import note_armed
from djony.objects.page_relations import DJANGO_MANAGERS

#: Internal types of integers, whose values Python compares as every database does.
INTEGER_TYPES = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "SmallAutoField",
        "IntegerField",
        "BigIntegerField",
        "SmallIntegerField",
        "PositiveIntegerField",
        "PositiveBigIntegerField",
        "PositiveSmallIntegerField",
    }
)
#: Internal types whose values Python compares as every database does (``str`` below).
_EXACT_TYPES = INTEGER_TYPES | {"BooleanField"}
#: String types, compared exactly by SQLite's and PostgreSQL's default collations.
_TEXT_TYPES = frozenset({"CharField", "TextField", "SlugField", "EmailField", "URLField"})
#: The backends whose default string comparison is Python's.
_EXACT_TEXT_VENDORS = frozenset({"sqlite", "postgresql"})


class Relation:
    """A reverse foreign key whose ``get()``, ``count()`` and ``exists()`` a page may
    answer (see the module)."""

    __slots__ = (
        "model",
        "field",
        "cache_name",
        "accessor",
        "key",
        "owner_path",
        "written_model",
        "plain",
        "attnames",
        "columns",
    )

    #: The queryset methods a page answers for this relation (:func:`arm`).
    readers: tuple[type, ...] = ()

    def __init__(self, rel: ForeignObjectRel) -> None:
        self.model = rel.related_model
        #: The foreign key on the related model pointing at the owner.
        self.field = rel.field
        self.cache_name = rel.field.remote_field.cache_name
        #: The owner's attribute giving the related manager.
        self.accessor = rel.get_accessor_name()
        #: The owner's column the foreign key holds.
        self.key = rel.field.target_field.attname
        #: From the related model to the owner's key, as a lookup (filtered and grouped by).
        self.owner_path = rel.field.attname
        #: The model whose table a write to the relation changes (what a router routes).
        self.written_model = self.model
        #: Whether the related model's default manager is Django's plain one (else its own
        #: ``get_queryset`` is proved bare on each read: :meth:`PageRead._alias`).
        self.plain = plain_manager(self.model)
        #: The related model's concrete columns, as its queryset selects them.
        self.attnames = [field.attname for field in self.model._meta.concrete_fields]
        #: Each concrete column but a relation's: its field and place in a row (``pk`` too).
        self.columns = {
            field.name: (field, index)
            for index, field in enumerate(self.model._meta.concrete_fields)
            if not field.is_relation
        }
        if self.model._meta.pk.name in self.columns:
            self.columns["pk"] = self.columns[self.model._meta.pk.name]


class ManyRelation:
    """A many-to-many relation (either way) whose ``count()`` and ``exists()`` a page may
    answer: the related rows joined to the owner's through the join table."""

    __slots__ = ("model", "cache_name", "accessor", "key", "owner_path", "written_model", "plain")

    readers: tuple[type, ...] = ()

    def __init__(self, field: models.ManyToManyField, reverse: bool, accessor: str) -> None:
        #: The related model (whose default manager's rows are counted).
        self.model = field.model if reverse else field.remote_field.model
        self.plain = plain_manager(self.model)
        self.cache_name = field.related_query_name() if reverse else field.name
        self.accessor = accessor
        owner = field.remote_field.model if reverse else field.model
        self.key = owner._meta.pk.attname
        #: The lookup from the related model to the owner (Django's ``query_field_name``).
        self.owner_path = field.name if reverse else field.related_query_name()
        self.written_model = field.remote_field.through


@functools.cache
def relation(owner: type[models.Model], cache_name: str) -> Relation | ManyRelation | None:
    """The reverse foreign key or many-to-many relation of ``owner`` cached under
    ``cache_name``, if it qualifies (see the module)."""
    for rel in owner._meta.related_objects:
        if not rel.one_to_many or rel.field.remote_field.cache_name != cache_name:
            continue
        field = rel.field
        if len(field.foreign_related_fields) != 1 or not may_be_bare(rel.related_model):
            return None
        if not _djangos_manager(getattr(owner, rel.get_accessor_name(), None)):
            return None
        return Relation(rel)
    return _many_relation(owner, cache_name)


def _many_relation(owner: type[models.Model], cache_name: str) -> ManyRelation | None:
    """``owner``'s many-to-many relation cached under ``cache_name``, if it qualifies."""
    found = []
    for field in owner._meta.many_to_many:
        if field.name == cache_name:
            found.append((field, field.name, False))
    for rel in owner._meta.related_objects:
        if rel.many_to_many and rel.field.related_query_name() == cache_name:
            found.append((rel.field, rel.get_accessor_name(), True))
    if len(found) != 1:
        return None
    ((field, accessor, reverse),) = found
    descriptor = getattr(owner, accessor, None) if accessor else None
    if type(descriptor) is not ManyToManyDescriptor or not _djangos_manager(descriptor):
        return None
    if field.model is field.remote_field.model:  # to itself (a symmetrical one reads both ways)
        return None
    target = field.model if reverse else field.remote_field.model
    source = field.m2m_reverse_field_name() if reverse else field.m2m_field_name()
    fk = field.remote_field.through._meta.get_field(source)
    if (
        len(fk.foreign_related_fields) != 1
        or fk.target_field.attname != owner._meta.pk.attname
        or not may_be_bare(target)
        or target._meta.parents
    ):
        return None
    return ManyRelation(field, reverse, accessor)


def _djangos_manager(descriptor: Any) -> bool:
    """Whether ``descriptor``'s related manager is Django's own (nothing overrides it)."""
    manager_class = getattr(descriptor, "related_manager_cls", None)
    return getattr(manager_class, "__module__", None) == DJANGO_MANAGERS


def arm(queryset: models.QuerySet, owner: Any, cache_name: str, page: Any) -> None:
    """Give ``queryset`` (``owner``'s related manager's own, cached as ``cache_name``) a
    ``get()``, ``count()`` and ``exists()`` answered from ``page``'s reads where
    :func:`relation` qualifies it (each left as it is where something set it already).

    ``page``: what the page's owners share (``owners()``, their live instances, and
    ``gets``, a dict where the rows read for them are kept).
    """
    if not plain_queryset_class(type(queryset)) or "get" in queryset.__dict__:
        return
    info = relation(type(owner), cache_name)
    if info is None:
        return
    own = queryset.__dict__
    readers = [reader for reader in info.readers if reader.method not in own]
    for reader in readers:
        own[reader.method] = reader(queryset, owner, info, page)
    if readers:
        note_armed(queryset, tuple(reader.method for reader in readers))


class PageTable:
    """What a page's read keeps: a relation's rows (counts, objects) of the page's owners,
    by owner key, read on one database at one write count."""

    __slots__ = ("written", "keys", "by_key")

    def __init__(self, written: int, keys: set, by_key: dict[Any, Any]) -> None:
        self.written = written
        #: The owner keys read for (an owner whose key changed since is read again).
        self.keys = keys
        self.by_key = by_key


def page_read(page: Any, table_key: tuple, count: int, key: Any, owner_keys: Any, load: Any) -> Any:
    """``key``'s entry of ``page``'s read ``table_key`` at write count ``count``: read
    for ``owner_keys()`` and ``key`` by ``load(keys)`` (every key's, by key), again after a
    write or for a key the read did not have."""
    table = page.gets.get(table_key)
    if table is None or table.written != count or key not in table.keys:
        keys = owner_keys()
        keys.add(key)
        table = page.gets[table_key] = PageTable(count, keys, load(keys))
    return table.by_key.get(key)


class PageCache(dict):
    """A relation cache Django keeps on an instance of a page (``_prefetched_objects_cache``,
    ``_state.fields_cache``) that answers what is missing from the page's reads; a copied
    or pickled one is a plain ``dict``."""

    __slots__ = ("_owner", "_page")

    def __init__(self, entries: Any, owner: Any, page: Any) -> None:
        super().__init__(entries)
        self._owner = weakref.ref(owner)
        self._page = page

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class PageRead:
    """One of an owner's related queryset's methods, answered from its page's reads.

    Set as the queryset's own attribute of the name :attr:`method` (:func:`arm`).  A
    pickled queryset gets Django's method back; a copied one (``copy``, ``deepcopy``)
    shares this one, which answers for the queryset it was set on (the copy holds the
    same query).
    """

    __slots__ = ("queryset", "owner", "relation", "page")

    #: The QuerySet method this stands for.
    method = ""

    def __init__(self, queryset: models.QuerySet, owner: Any, info: Relation, page: Any) -> None:
        self.queryset = queryset
        self.owner = owner
        self.relation = info
        self.page = page

    def django(self, *args: Any, **kwargs: Any) -> Any:
        """Django's own method on the queryset."""
        queryset = self.queryset
        return getattr(type(queryset), self.method)(queryset, *args, **kwargs)

    def _alias(self) -> tuple[str, int] | None:
        """The database the queryset reads from and the writes seen so far there and on
        the one the related model is written to (a router's primary: its rows change
        there); ``None`` where the page's reads cannot answer: outside a watched read, a
        queryset someone changed (its filter is no longer the manager's deferred one:
        something read ``.query``), or a default manager of the project's whose
        ``get_queryset`` did not give a bare queryset on this call."""
        queryset = self.queryset
        if queryset._deferred_filter is None:
            return None
        if not self.relation.plain and not bare_related_queryset(queryset, self.relation.model):
            return None  # the manager's get_queryset added something on this call
        alias = queryset.db
        written_model = self.relation.written_model
        count = written(alias, router.db_for_write(written_model, instance=self.owner))
        return None if count is None else (alias, count)

    def _read(self, kind: str, alias: str, count: int, load: Any) -> Any:
        """This owner's part of the page's read ``kind`` on ``alias`` (``load(keys)`` gives
        every owner's, by key), read again after a write."""
        info = self.relation
        key = getattr(self.owner, info.key)
        if key is None:
            return None

        def owner_keys() -> set:
            return {getattr(owner, info.key) for owner in self.page.owners()} - {None}

        return page_read(self.page, (info.cache_name, kind, alias), count, key, owner_keys, load)

    def _queryset(self, alias: str, keys: list) -> models.QuerySet:
        """The related model's rows of ``keys``' owners (its plain default manager)."""
        info = self.relation
        manager = info.model._default_manager.db_manager(alias)
        return manager.filter(**{f"{info.owner_path}{LOOKUP_SEP}in": keys})

    def _rows_of(self, kind: str, alias: str, keys: set, select: Any) -> list[tuple]:
        """``select(self._queryset(alias, keys))``'s rows, by SQL kept per relation
        and number of keys (:mod:`djony.objects.page_rows`)."""
        info = self.relation
        return page_rows.rows(
            (info.model, info.owner_path, kind),
            alias,
            keys,
            lambda listed: select(self._queryset(alias, listed)),
        )

    def __reduce__(self) -> Any:
        return (_django_method, (self.queryset, self.method))

    def __copy__(self) -> PageRead:
        return self

    def __deepcopy__(self, memo: dict) -> PageRead:
        return self


def _django_method(queryset: models.QuerySet, method: str) -> Any:
    """An unpickled queryset's method: Django's."""
    return functools.partial(getattr(type(queryset), method), queryset)


#: What a deep copy of an :class:`OwnMethod` is: left out of the copied queryset.
_LEFT_OUT = object()


class OwnMethod:
    """A method djony sets on one queryset instance over its class's (an evaluation that
    loads for the page, a ``count()`` from loaded rows): ``call``.  Pickled (Django's
    cache pickles a queryset with its ``__dict__``), the queryset gets Django's own method
    back, as for :class:`PageRead`; a deep copy of the queryset has Django's methods."""

    __slots__ = ("queryset", "method", "call")

    def __init__(self, queryset: models.QuerySet, method: str, call: Any) -> None:
        self.queryset = queryset
        self.method = method
        self.call = call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(*args, **kwargs)

    def __reduce__(self) -> Any:
        return (_django_method, (self.queryset, self.method))

    def __deepcopy__(self, memo: dict) -> Any:
        return _LEFT_OUT


def set_method(queryset: models.QuerySet, method: str, call: Any) -> None:
    """``queryset.<method> = call`` for this instance (:class:`OwnMethod`)."""
    setattr(queryset, method, OwnMethod(queryset, method, call))
    names: tuple[str, ...] = (method,)
    if "__deepcopy__" not in vars(queryset):  # copy.deepcopy() asks the instance first
        copier = functools.partial(_deep_copy, queryset)
        queryset.__deepcopy__ = OwnMethod(queryset, "__deepcopy__", copier)
        names = (method, "__deepcopy__")
    note_armed(queryset, names)


def _deep_copy(queryset: models.QuerySet, memo: dict) -> models.QuerySet:
    """Django's deep copy of ``queryset`` without the methods djony set on it."""
    made = type(queryset).__deepcopy__(queryset, memo)
    for name in [name for name, value in vars(made).items() if value is _LEFT_OUT]:
        delattr(made, name)
    return made


class PageGet(PageRead):
    """``get(**conditions)`` from the page's rows of the relation."""

    __slots__ = ()
    method = "get"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        found = None if args else self._alias()
        if found is not None:
            alias, count = found
            conditions = _conditions(self.relation, kwargs, alias)
            if conditions is not None:
                rows = self._read("rows", alias, count, functools.partial(self._rows, alias))
                matched = [
                    row for row in rows or () if all(row[i] == value for i, value in conditions)
                ]
                return self._answer(matched, alias)
        return self.django(*args, **kwargs)

    def _rows(self, alias: str, keys: set) -> dict[Any, list[tuple]]:
        info = self.relation
        at = info.attnames.index(info.field.attname)  # the foreign key: the owner's key
        by_key: dict[Any, list[tuple]] = {}
        rows = self._rows_of(
            "rows", alias, keys, lambda queryset: queryset.values_list(*info.attnames)
        )
        for row in rows:
            by_key.setdefault(row[at], []).append(row)
        return by_key

    def _answer(self, found: list[tuple], alias: str) -> Any:
        """What Django's ``get()`` answers for the rows ``found``."""
        info = self.relation
        model = info.model
        if len(found) == 1:
            obj = instance_builder(self.queryset)(alias, info.attnames, found[0])
            # As the related manager's query gives it: the owner, a known related object.
            setattr(obj, info.field.name, self.owner)
            track_peers(self.queryset, [obj])
            return obj
        name = model._meta.object_name
        if not found:
            raise model.DoesNotExist(f"{name} matching query does not exist.")
        num = len(found)
        shown = num if num < MAX_GET_RESULTS else f"more than {MAX_GET_RESULTS - 1}"
        raise model.MultipleObjectsReturned(
            f"get() returned more than one {name} -- it returned {shown}!"
        )


class PageCount(PageRead):
    """``count()`` from one count of the relation's rows per owner for the page."""

    __slots__ = ()
    method = "count"

    def __call__(self) -> int:
        found = None if self.queryset._result_cache is not None else self._alias()
        if found is None:
            return self.django()  # a loaded relation counts its objects, as on Django
        alias, count = found
        return self._read("count", alias, count, functools.partial(self._counts, alias)) or 0

    def _counts(self, alias: str, keys: set) -> dict[Any, int]:
        path = self.relation.owner_path
        counted = self._rows_of(
            "count",
            alias,
            keys,
            lambda queryset: (
                queryset.order_by().values(path).annotate(n=Count("*")).values_list(path, "n")
            ),
        )
        return dict(counted)


class PageExists(PageCount):
    """``exists()``: whether the page's count of this owner's rows is not zero."""

    __slots__ = ()
    method = "exists"

    def __call__(self) -> bool:
        return bool(super().__call__())  # Django's exists() where the count is Django's


def _conditions(info: Relation, kwargs: dict, alias: str) -> list[tuple[int, Any]] | None:
    """``(place in a row, value)`` of each of ``kwargs``' conditions, the value prepared as
    Django prepares it; ``None`` when one is not answerable from rows (see the module)."""
    vendor = connections[alias].vendor
    conditions = []
    for name, value in kwargs.items():
        column = name.removesuffix(f"{LOOKUP_SEP}exact")
        found = info.columns.get(column)
        if found is None or hasattr(value, "resolve_expression"):
            return None
        field, index = found
        internal = field.get_internal_type()
        if value is not None:
            text = internal in _TEXT_TYPES
            if not text and internal not in _EXACT_TYPES:
                return None
            if text and (vendor not in _EXACT_TEXT_VENDORS or field.db_collation):
                return None
            try:
                value = field.get_prep_value(value)
            except Exception:  # noqa: BLE001 - Django's get() raises it as Django does
                return None
            if text and (not isinstance(value, str) or "\x00" in value):
                return None
        conditions.append((index, value))
    return conditions


Relation.readers = (PageGet, PageCount, PageExists)
ManyRelation.readers = (PageCount, PageExists)
