"""``obj.thumbnail_set.get(size=...)`` on a page's instances: one query for the page.

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

Only where the answer is provably the database's:

* a reverse foreign key of one column, through Django's own related manager, whose
  model's default manager is Django's plain one (:func:`~djony.objects.compiled.plain_manager`:
  no filtering, no tenant scoping) and whose queryset nobody changed;
* keyword conditions only, each an ``exact`` of one of the model's own concrete columns
  (``pk`` too) with a value Django's field prepares without error: an integer, a
  boolean, or a string (not on MySQL/MariaDB, whose usual collations compare strings
  without case and trailing spaces, nor a column with a ``db_collation``, nor one holding
  NUL, which PostgreSQL refuses), or ``None``;
* while the connection read from, and the one the related model is written to (a
  router's primary), ran nothing but ``SELECT`` since the rows were read (an insert, an
  update, a savepoint, raw SQL: the rows are read again).

Anything else is Django's ``get()``, as it is.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connections, models, router
from django.db.models.constants import LOOKUP_SEP
from django.db.models.fields.related import ForeignObjectRel
from django.db.models.query import MAX_GET_RESULTS

from djony.bridge.writes import writes_on
from djony.meta.compat import instance_builder, track_peers
from djony.objects.compiled import plain_manager

#: Where Django's related managers are defined.
DJANGO_MANAGERS = "django.db.models.fields.related_descriptors"

#: Internal types whose values Python compares as every database does (``str`` below).
_EXACT_TYPES = frozenset(
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
        "BooleanField",
    }
)
#: String types, compared exactly by SQLite's and PostgreSQL's default collations.
_TEXT_TYPES = frozenset({"CharField", "TextField", "SlugField", "EmailField", "URLField"})
#: The backends whose default string comparison is Python's.
_EXACT_TEXT_VENDORS = frozenset({"sqlite", "postgresql"})


class Relation:
    """A reverse foreign key whose ``get()`` a page may answer (see the module)."""

    __slots__ = ("model", "field", "cache_name", "accessor", "key", "attnames", "columns")

    def __init__(self, rel: ForeignObjectRel) -> None:
        self.model = rel.related_model
        #: The foreign key on the related model pointing at the owner.
        self.field = rel.field
        self.cache_name = rel.field.remote_field.cache_name
        #: The owner's attribute giving the related manager.
        self.accessor = rel.get_accessor_name()
        #: The owner's column the foreign key holds.
        self.key = rel.field.target_field.attname
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


@functools.cache
def relation(owner: type[models.Model], cache_name: str) -> Relation | None:
    """The reverse foreign key of ``owner`` cached under ``cache_name``, if it qualifies."""
    for rel in owner._meta.related_objects:
        if not rel.one_to_many or rel.field.remote_field.cache_name != cache_name:
            continue
        field = rel.field
        if len(field.foreign_related_fields) != 1 or not plain_manager(rel.related_model):
            return None
        descriptor = getattr(owner, rel.get_accessor_name(), None)
        manager_class = getattr(descriptor, "related_manager_cls", None)
        if getattr(manager_class, "__module__", None) != DJANGO_MANAGERS:
            return None
        return Relation(rel)
    return None


def arm(queryset: models.QuerySet, owner: Any, cache_name: str, page: Any) -> None:
    """Give ``queryset`` (``owner``'s related manager's own, cached as ``cache_name``) a
    ``get()`` answered from ``page``'s rows where :func:`relation` qualifies it.

    ``page``: what the page's owners share (``owners()``, their live instances, and
    ``gets``, a dict where the rows read for them are kept).
    """
    if type(queryset) is not models.QuerySet or "get" in queryset.__dict__:
        return
    info = relation(type(owner), cache_name)
    if info is not None:
        queryset.get = PageGet(queryset, owner, info, page)


class _Rows:
    """The relation's rows of a page's owners, read on one database at one write count."""

    __slots__ = ("written", "by_key")

    def __init__(self, written: int, by_key: dict[Any, list[tuple]]) -> None:
        self.written = written
        self.by_key = by_key


class PageGet:
    """``get()`` of one owner's related queryset, answered from its page's rows.

    Set as the queryset's own ``get`` (:func:`arm`).  A pickled queryset gets Django's
    ``get`` back; a copied one (``copy``, ``deepcopy``) shares this one, which answers for
    the queryset it was set on (the copy holds the same query).
    """

    __slots__ = ("queryset", "owner", "relation", "page")

    def __init__(self, queryset: models.QuerySet, owner: Any, info: Relation, page: Any) -> None:
        self.queryset = queryset
        self.owner = owner
        self.relation = info
        self.page = page

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        queryset = self.queryset
        # Nobody read .query (the manager's filter still deferred): nothing changed it.
        if not args and queryset._deferred_filter is not None:
            alias = queryset.db
            written = self._written(alias)
            conditions = None if written is None else _conditions(self.relation, kwargs, alias)
            if conditions is not None:
                key = getattr(self.owner, self.relation.key)
                rows = () if key is None else self._rows(alias, written).get(key, ())
                found = [row for row in rows if all(row[i] == value for i, value in conditions)]
                return self._answer(found, alias)
        return type(queryset).get(queryset, *args, **kwargs)

    def _written(self, alias: str) -> int | None:
        """The writes seen so far on ``alias`` and on the database the related model is
        written to (a router's primary: its rows change there), or ``None`` outside a
        watched read."""
        read = writes_on(alias)
        if read is None:
            return None
        write_alias = router.db_for_write(self.relation.model, instance=self.owner)
        return read.count + (0 if write_alias == alias else writes_on(write_alias).count)

    def _rows(self, alias: str, written: int) -> dict[Any, list[tuple]]:
        """The page's rows of the relation on ``alias`` by owner key, read again after a
        write."""
        info = self.relation
        tables = self.page.gets
        table = tables.get((info.cache_name, alias))
        if table is not None and table.written == written:
            return table.by_key
        keys = {getattr(owner, info.key) for owner in self.page.owners()}
        keys.discard(None)
        by_key: dict[Any, list[tuple]] = {}
        if keys:
            rows = (
                info.model._default_manager.db_manager(alias)
                .filter(**{f"{info.field.attname}{LOOKUP_SEP}in": keys})
                .values_list(info.field.attname, *info.attnames)
            )
            for owner_key, *values in rows:
                by_key.setdefault(owner_key, []).append(tuple(values))
        tables[(info.cache_name, alias)] = _Rows(written, by_key)
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

    def __reduce__(self) -> Any:
        return (_django_get, (self.queryset,))

    def __copy__(self) -> PageGet:
        return self

    def __deepcopy__(self, memo: dict) -> PageGet:
        return self


def _django_get(queryset: models.QuerySet) -> Any:
    """An unpickled queryset's ``get``: Django's."""
    return functools.partial(type(queryset).get, queryset)


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
