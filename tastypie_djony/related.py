"""Related data for a whole page in a constant number of queries.

A ``ToManyField`` on ``ModelResource`` runs one query per object
(``obj.user_permissions.all()``); 1000 users cost 1000 queries.  Here the
resource hands its object list a *loader* per related field; when a page is
evaluated each loader runs one query for the whole page:

* :func:`make_loader`: the related keys of every object on the page, in the
  related model's ``Meta.ordering`` (so each object's list comes out as its related
  manager would return it), kept in the request's Pony session for a field that
  shows URIs only (:class:`~tastypie_djony.fields.SetField` reads them, no related
  object built);
* :func:`prefetch_loader`: the related objects themselves, in the objects' own
  relation caches, by Django's ``prefetch_related_objects`` (the field's own
  manager, its filters and order: taggit, sortedm2m, generic relations), for a field
  that needs them (``full=True``, a related resource that builds its URIs itself);
  Tastypie's own field code then reads them through the related manager.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib.contenttypes.fields import GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.query import get_prefetcher

from djony.serving import (
    bare_manager,
    class_attribute,
    load_page_relation,
    pin_reads,
    sort_columns,
    sorted_relation_keys,
    tied,
    unique_order,
)
from tastypie_djony.objectlist import DjonyObjectList
from tastypie_djony.onevalue import KeptForValue

#: How many levels of ``full=True`` related resources get their related data loaded
#: per page (page loaders) and their own nested plans (:mod:`tastypie_djony.sources.nested`).
MAX_DEPTH = 3


def chain_loaders(loaders: list[Callable[[list], None]]) -> Callable[[list], None]:
    """One loader running ``loaders`` in turn."""

    def load(objects: list) -> None:
        for loader in loaders:
            loader(objects)

    return load


def relation_field(model: type[models.Model], attribute: Any) -> Any:
    """The relation field of ``model`` that ``getattr(obj, attribute)`` reads, if any.

    A forward field by its name; a reverse relation by Django's accessor name
    (``book_set`` without ``related_name``), never by its query name.
    """
    if not isinstance(attribute, str) or "__" in attribute:
        return None
    try:
        field = model._meta.get_field(attribute)
    except FieldDoesNotExist:
        field = next(
            (rel for rel in model._meta.related_objects if rel.get_accessor_name() == attribute),
            None,
        )
    if field is None or not field.is_relation or field.related_model is None:
        return None
    if field.auto_created and not field.concrete and field.get_accessor_name() != attribute:
        return None  # a query name (``book``), not an attribute of the object
    return field


#: Modules of Django's own related managers (their queries are the related model's default
#: manager's, which :class:`Relation` reproduces).
DJANGO_MANAGERS = (
    "django.db.models.fields.related_descriptors",
    "django.contrib.contenttypes.fields",
)


def has_own_manager(model: type[models.Model], attribute: str) -> bool:
    """Whether ``obj.<attribute>`` is a related manager of a third-party class.

    django-sortedm2m orders by its own column, taggit's ``TaggableManager`` is a
    manager of its own: their rows come only through that manager.
    """
    value = class_attribute(model, attribute)
    manager_cls = getattr(value, "related_manager_cls", None)
    return manager_cls is None or not manager_cls.__module__.startswith(DJANGO_MANAGERS)


class Relation:
    """A to-many relation of ``model`` reached through one attribute name.

    Related keys are read the way the related manager reads them: from the related
    model's default manager (its filters and ``Meta.ordering``), or, for a manager
    of a third-party class (:func:`has_own_manager`), through that manager itself.
    """

    def __init__(self, model: type[models.Model], attribute: str, field: Any) -> None:
        self.key = (model._meta.label, attribute)
        self.model = model
        self.target: type[models.Model] = field.related_model
        self.generic = isinstance(field, GenericRelation)
        self.field = field
        self.attribute = attribute
        #: Read through the field's own manager (:meth:`_own_manager_keys`).
        self.own_manager = has_own_manager(model, attribute)
        #: The one-owner query, compiled once per database and columns (:meth:`_one_owner_rows`).
        self._compiled = KeptForValue()
        #: The key of the owners' ``_prefetched_objects_cache`` (:meth:`prefetched`).
        self._cache_name: str | None = None
        #: The related rows' origin for a page's keys, kept so their SQL is kept per recipe
        #: (the number of owners): only while the default manager gives Django's plain
        #: queryset (:meth:`_plain`, asked on each read), and a relation that is not generic.
        self._origin: models.QuerySet | None = None
        #: Whether the related manager's order leaves no ties (:meth:`_one_owner_keys`):
        #: kept for Django's plain default manager (its order is ``Meta.ordering``), asked
        #: per read of another.
        self._unique_order: bool | None = None
        if self.own_manager:
            self.path = None
        elif self.generic:
            self.path = field.object_id_field_name
        elif isinstance(field, models.ManyToManyField):
            self.path = f"{field.related_query_name()}__pk"
        else:  # reverse ForeignKey or reverse ManyToManyField
            self.path = f"{field.field.name}__pk"

    @classmethod
    def find(cls, model: type[models.Model], attribute: Any) -> Relation | None:
        """The relation behind a field attribute, or ``None`` (callables, ``a__b``)."""
        field = relation_field(model, attribute)
        if field is None or not (field.many_to_many or field.one_to_many):
            return None
        return cls(model, attribute, field)

    def prefetched(self, owner: Any) -> list[Any] | None:
        """``owner``'s related objects a prefetch left in its relation cache, or ``None``."""
        cache = getattr(owner, "_prefetched_objects_cache", None)
        if not cache:
            return None
        if self._cache_name is None:
            manager = getattr(owner, self.attribute)
            name = getattr(manager, "prefetch_cache_name", None)
            self._cache_name = name or manager.field.remote_field.cache_name  # reverse FK
        found = cache.get(self._cache_name)
        return None if found is None else list(found)

    def fill_prefetched(self, owner: Any, related: list[Any]) -> None:
        """Make ``related`` ``owner``'s related objects, as ``prefetch_related`` leaves them.

        The related manager's own queryset, evaluated to ``related``, in the owner's
        ``_prefetched_objects_cache``: ``obj.tags.all()`` and ``.count()`` read it, a write
        through the manager drops it, as after a prefetch.  Along a reverse foreign key
        each related object's own foreign key is the owner (``book.author is author``), as
        Django's prefetch leaves it.
        """
        manager = getattr(owner, self.attribute)
        if self._cache_name is None:
            name = getattr(manager, "prefetch_cache_name", None)
            self._cache_name = name or manager.field.remote_field.cache_name  # reverse FK
        queryset = manager.get_queryset()
        queryset._result_cache = list(related)
        reverse_key = getattr(manager, "field", None)
        if isinstance(reverse_key, models.ForeignKey) and not hasattr(manager, "through"):
            for obj in related:
                reverse_key.set_cached_value(obj, owner)
        queryset._prefetch_done = True
        if not hasattr(owner, "_prefetched_objects_cache"):
            owner._prefetched_objects_cache = {}
        owner._prefetched_objects_cache[self._cache_name] = queryset

    @functools.cached_property
    def ordered(self) -> bool:
        """Whether the related manager orders its objects (``Meta.ordering``, its own order)."""
        if not self.own_manager:  # Django's managers filter the default manager's queryset
            return self.target._default_manager.all().ordered
        pk = self.model._meta.pk
        stub = self.model.from_db(None, [pk.attname], [0])  # as _own_manager_keys asks it
        return getattr(stub, self.attribute).get_queryset().ordered

    def _related(self) -> models.QuerySet:
        queryset = self.target._default_manager.all()
        if self.generic:
            content_type = ContentType.objects.db_manager(queryset.db).get_for_model(
                self.model, for_concrete_model=self.field.for_concrete_model
            )
            queryset = queryset.filter(**{self.field.content_type_field_name: content_type})
        return queryset

    def related_keys(self, owner_keys: list[Any], key_field: str = "pk") -> dict[Any, list[Any]]:
        """Owner key -> related ``key_field`` values, each list in the related model's order.

        For one owner the query is the related manager's own (same columns and joins),
        so a model without ``Meta.ordering`` comes out in the order Django's query gives.
        For several, one query, its owners with tied sort values read again by their own
        (:func:`~djony.objects.ties.tied`); sorted by what the rows cannot show and may
        tie in (a related model's column, an expression), each owner's own query.
        """
        result: dict[Any, list[Any]] = {key: [] for key in owner_keys}
        if not owner_keys:
            return result
        if self.own_manager:
            return self._own_manager_keys(result, key_field)
        if len(owner_keys) == 1:
            (owner,) = owner_keys
            result[owner] = self._one_owner_keys(owner, key_field)
            return result
        lookup = {str(key): key for key in owner_keys} if self.generic else None
        owners = self._owners_list().filter(**{f"{self.path}__in": owner_keys})
        sorted_by = sort_columns(owners.queryset)
        if sorted_by is None:
            # Sorted by what the rows cannot show and may tie in (a related model's
            # column, an expression): ties the one query gives in its order go unseen.
            for owner in owner_keys:
                result[owner] = self._one_owner_keys(owner, key_field)
            return result
        read = owners.values_list_rows([self.path, key_field, *sorted_by])
        found = [(lookup[str(row[0])] if lookup is not None else row[0], row) for row in read]
        for owner, row in found:
            result[owner].append(row[1])
        # Ties in the sort values: the order of each owner's own query (see djony.objects.ties).
        for owner in tied([(owner, row[2:]) for owner, row in found]) if sorted_by else ():
            result[owner] = self._one_owner_keys(owner, key_field)
        return result

    def _one_owner_keys(self, owner: Any, key_field: str) -> list[Any]:
        """``owner``'s related ``key_field`` values, by its related manager's own query.

        Its columns, joins and order; where that order leaves no ties
        (:func:`~djony.objects.ties.unique_order`), the key column alone (the rows' order
        is then the same whatever the query selects).
        """
        wanted = self.target._meta.pk.attname if key_field == "pk" else key_field
        plain = self._plain()
        if self._unique_order is None or not plain:
            self._unique_order = unique_order(self._related())
        if self._unique_order:
            return [row[0] for row in self._one_owner_rows(owner, [wanted], plain)]
        columns = [field.attname for field in self.target._meta.concrete_fields]
        index = columns.index(wanted)
        return [row[index] for row in self._one_owner_rows(owner, columns, plain)]

    def _plain(self) -> bool:
        """Whether the related model's default manager gives Django's plain queryset on
        this read (:func:`~djony.serving.bare_manager`: its own ``get_queryset`` may, as
        wger's ``SubmissionManager`` does): then its SQL is the kept one."""
        return bare_manager(self.target)

    def _owners_list(self) -> DjonyObjectList:
        """The related rows before the owners' filter (:meth:`_related`), as an object list."""
        if self.generic or not self._plain():
            return DjonyObjectList(self._related())
        if self._origin is None:
            self._origin = self.target._default_manager.all()
        return DjonyObjectList.made_from(self._origin)

    def _own_manager_keys(self, result: dict[Any, list[Any]], key_field: str) -> dict:
        """``result`` filled through the field's own manager, for every owner in one query.

        The manager's prefetch query (Django's ``prefetch_related`` protocol) for
        stand-ins of the owners: its filters and its order (sortedm2m's position),
        the rows read by Django; a sortedm2m relation's by the SQL that query compiled to
        once (:func:`~djony.serving.sorted_relation_keys`).
        """
        pk = self.model._meta.pk
        alias = pin_reads(self.model._default_manager.all()).db
        attname = self.target._meta.pk.attname if key_field == "pk" else key_field
        kept = sorted_relation_keys(self.model, self.attribute, list(result), alias, attname)
        if kept is not None:  # sortedm2m's query, by the SQL it compiled to once
            return kept
        stubs = [self.model.from_db(alias, [pk.attname], [key]) for key in result]
        # What prefetch_related asks (taggit's answer is its class-level manager's).
        prefetcher = get_prefetcher(stubs[0], self.attribute, self.attribute)[0]
        queryset, related_key, owner_key, *_ = prefetcher.get_prefetch_querysets(stubs)
        owners = {owner_key(stub): stub.pk for stub in stubs}
        for related in queryset:
            result[owners[related_key(related)]].append(getattr(related, attname))
        return result

    def _one_owner_rows(self, owner: Any, columns: list[str], plain: bool) -> list[tuple]:
        """The related manager's rows of ``columns`` for ``owner``.

        Its SQL is compiled once per database and columns (:mod:`tastypie_djony.onevalue`)
        when the related model's default manager gives Django's plain queryset on this
        read (``plain``, :meth:`_plain`: then its SQL is the kept one) and the relation is
        not generic (its content type is a value read from the database); ``owner`` stays
        a parameter.
        """
        if not self.generic and plain:
            object_list = DjonyObjectList(self.target._default_manager.all())
            found = self._compiled.query_for(
                (object_list.db, tuple(columns)),
                self.target,
                lambda: object_list.queryset,
                self.path,
                owner,
                lambda queryset: queryset.values_list(*columns),
                object_list.db,
            )
            if found is not None:
                compiled, params = found
                return object_list.compiled_rows(compiled.sql, params, compiled)
        queryset = self._related().filter(**{self.path: owner}).values_list(*columns)
        return DjonyObjectList(queryset).rows()


class ToOneRelation:
    """A to-one relation of ``model`` (forward, ``to_field`` or reverse one-to-one)."""

    def __init__(self, model: type[models.Model], attribute: str) -> None:
        field = model._meta.get_field(attribute)
        self.model = model
        self.model_field = field
        self.attribute = attribute
        self.key = (model._meta.label, attribute, "one")
        self.target: type[models.Model] = field.related_model

    @classmethod
    def find(cls, model: type[models.Model], attribute: Any) -> ToOneRelation | None:
        """The to-one relation behind a field attribute, or ``None``."""
        field = relation_field(model, attribute)
        if field is None or not (field.many_to_one or field.one_to_one):
            return None
        return cls(model, attribute)

    def fill_cached(self, owner: Any, related: Any) -> None:
        """Make ``related`` (or ``None``) ``owner``'s related object, as a prefetch leaves it."""
        self.model_field.set_cached_value(owner, related)

    @property
    def plain_forward(self) -> bool:
        """A ForeignKey/OneToOne to the primary key with its constraint: the row holds the
        related object's key, and the related row exists."""
        field = self.model_field
        return (
            field.concrete
            and field.target_field == self.target._meta.pk
            and getattr(field, "db_constraint", True)
        )

    def related_keys(self, owner_keys: list[Any]) -> dict[Any, Any]:
        """Owner key -> the related object's key (or ``None``), in one query."""
        if not owner_keys:
            return {}
        queryset = (
            self.model._base_manager.filter(pk__in=owner_keys)
            .order_by()
            .values_list("pk", f"{self.attribute}__pk")
        )
        keys = dict(DjonyObjectList(queryset).rows())
        field = self.model._meta.get_field(self.attribute)
        if field.concrete and not getattr(field, "db_constraint", True):
            # No constraint: the key may name no row, which Django reads as no object.
            wanted = {key for key in keys.values() if key is not None}
            existing = DjonyObjectList(
                self.target._base_manager.filter(pk__in=wanted).order_by().values_list("pk")
            ).rows()
            found = {row[0] for row in existing}
            keys = {owner: key if key in found else None for owner, key in keys.items()}
        return keys


def prefetch_loader(lookup: str) -> Callable:
    """A page loader that fills the objects' relation caches along ``lookup``, as
    ``prefetch_related(lookup)`` does (one query per relation of the path).

    A page of one object (a detail) is left to its related managers: for one object a
    prefetch runs the query the manager would run, and more code around it; the
    manager's own query also gives the order ``ModelResource``'s gives to a relation
    its manager does not order (the batched query of a prefetch may come in another).
    """

    def load(objects: list[Any]) -> None:
        if len(objects) > 1 and not load_page_relation(objects, lookup):
            models.prefetch_related_objects(objects, lookup)

    load.lookup = lookup
    return load


def prefetched_keys(relation: Relation, owner: Any, key_field: str = "pk") -> list[Any] | None:
    """The ``key_field`` values of the related objects a prefetch (or a page loader) left in
    ``owner``'s relation cache, or ``None`` when it holds none."""
    prefetched = relation.prefetched(owner)
    if prefetched is None:
        return None
    attname = relation.target._meta.pk.attname if key_field == "pk" else key_field
    return [getattr(obj, attname) for obj in prefetched]


def related_keys(relation: Relation, owner: Any, key_field: str = "pk") -> list[Any]:
    """The ``key_field`` values of ``owner``'s related objects, in its related manager's order.

    From the objects a page loader left in the owner's relation cache, else one query
    (the related manager's own, for its order).
    """
    keys = prefetched_keys(relation, owner, key_field)
    if keys is not None:
        return keys
    return relation.related_keys([owner.pk], key_field)[owner.pk]
