"""Django's related-manager API on an entity object's relations.

Hook code written for Django instances reads relations as managers:
``bundle.obj.tags.all()``, ``obj.book_set.filter(year__gte=2000).count()``,
``obj.comments.values_list("id", flat=True)``.  On an entity object the
same names answer the same way: each call builds Django's own related
manager for a stand-in instance carrying only the owner's keys, so the
core filters, the related model's default manager (a manager that hides
rows hides them here too) and its ``Meta.ordering`` are Django's, and the
rows are loaded by Pony (:class:`~djony.objects.querysets.PonyQuerySet`).

* Many-to-many and reverse foreign keys are Pony ``Set`` attributes; their
  wrapper (:func:`set_wrapper_class`) adds the Django methods.  Pony's own
  API stays: ``select()``, iteration, ``len()``, and ``filter``/``order_by``
  given a lambda.  Given Django lookups (keyword arguments, ``Q`` objects,
  field names) they mean what they mean in Django.  ``count()`` and
  ``exists()`` go through the default manager, as Django's.
* Many-to-many relations with an explicit ``through`` model and generic
  relations (``GenericRelation``) are properties returning a
  :class:`RelatedManager`.

``add()``, ``remove()`` and ``set()`` take entity objects or Django
instances.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.db import models
from django.db.models import Q, prefetch_related_objects
from pony.orm import db_session
from pony.orm.core import DatabaseSessionIsOver, SetInstance
from pony.orm.core import Entity as PonyEntity

from djony.bridge.connection import alias_of
from djony.meta.models import describe
from djony.objects.pages import forget_pages, pages_of
from djony.objects.querysets import PonyQuerySet
from djony.objects.relations import as_entity


def owner_stub(owner: Any) -> models.Model:
    """A Django instance of ``owner``'s model carrying its keys only (no query).

    Enough for Django's related managers: the primary key and the unique
    fields a ``to_field`` may point at.
    """
    model = owner._meta.model
    fields = describe(model).key_fields
    try:
        values = _key_values(owner, fields)
    except DatabaseSessionIsOver:
        # An object of a session that ended (a resource method called outside
        # a request returned it) whose unique columns were never loaded.
        with db_session(strict=False):
            entity = getattr(type(owner), "_djony_concrete_entity_", type(owner))
            values = _key_values(entity._get_by_raw_pkval_(owner._get_raw_pkval_()), fields)
    attnames = [field.attname for field in fields]
    return model.from_db(alias_of(owner._database_), attnames, values)


def _key_values(owner: Any, fields: tuple[models.Field, ...]) -> list[Any]:
    return [owner.pk if field.primary_key else getattr(owner, field.attname) for field in fields]


def django_manager(owner: Any, accessor: str) -> Any:
    """Django's related manager ``accessor`` for ``owner``'s stand-in instance.

    The class attribute is read without calling it: Django's is a descriptor, a
    third-party field may be one whose class access already returns a manager
    (taggit's ``TaggableManager``).
    """
    model = owner._meta.model
    return class_attribute(model, accessor).__get__(owner_stub(owner), model)


def class_attribute(model: type, name: str) -> Any:
    """``name`` as stored on ``model`` or its first base that has it (no descriptor call)."""
    for klass in model.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    raise AttributeError(f"{model.__name__} has no attribute {name!r}")


def django_manager_property(accessor: str) -> property:
    """``obj.<accessor>`` as the Django manager of a field djony does not map (taggit's tags).

    Its queries are the field's own, on Django's ORM: the objects it returns are
    Django instances, as ModelResource's.  For an object loaded with a page, the
    first access prefetches the relation for the whole page (Django's own
    ``prefetch_related_objects`` on the page's stand-ins), so ``all()``, ``count()``
    and iteration cost one query per page, not one per object.
    """

    def get(self: Any) -> Any:
        model = self._meta.model
        stub = _page_stub(self, accessor)
        if stub is None:
            return django_manager(self, accessor)
        return class_attribute(model, accessor).__get__(stub, model)

    return property(get, doc=f"Django's manager {accessor}")


def _page_stub(owner: Any, accessor: str) -> models.Model | None:
    """``owner``'s stand-in with ``accessor`` prefetched for its whole page, or ``None``."""
    page = owner._djony_page
    cache = pages_of(owner) if page is not None else None
    if cache is None:
        return None
    stubs = cache.get((page, accessor))
    if stubs is None:
        stubs = cache[(page, accessor)] = {obj.pk: owner_stub(obj) for obj in page.objects}
        prefetch_related_objects(list(stubs.values()), accessor)
    return stubs.get(owner.pk)


class RelatedManagerMethods:
    """The read API of Django's related managers, over :meth:`get_queryset`."""

    def _owner(self) -> Any:
        raise NotImplementedError

    def _accessor(self) -> str:
        raise NotImplementedError

    def _django_manager(self) -> Any:
        return django_manager(self._owner(), self._accessor())

    def get_queryset(self) -> PonyQuerySet:
        """The related rows as Django's manager selects them, loaded by Pony.

        For an object loaded with others (a page), the rows of all of them
        are loaded by the first call, in one query (see :func:`page_related`).
        """
        manager = self._django_manager()
        owner, accessor = self._owner(), self._accessor()
        if owner._djony_page is None:
            return PonyQuerySet(manager.all())
        return PonyQuerySet(
            manager.all(), prefetched=lambda: page_related(owner, accessor, manager)
        )

    def all(self) -> PonyQuerySet:
        return self.get_queryset()

    def none(self) -> PonyQuerySet:
        return self.get_queryset().none()

    def exclude(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        return self.get_queryset().exclude(*args, **kwargs)

    def count(self) -> int:
        return self.get_queryset().count()

    def exists(self) -> bool:
        return self.get_queryset().exists()

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self.get_queryset().get(*args, **kwargs)

    def first(self) -> Any:
        return self.get_queryset().first()

    def last(self) -> Any:
        return self.get_queryset().last()

    def values(self, *fields: str, **expressions: Any) -> PonyQuerySet:
        return self.get_queryset().values(*fields, **expressions)

    def values_list(self, *fields: str, flat: bool = False, named: bool = False) -> PonyQuerySet:
        return self.get_queryset().values_list(*fields, flat=flat, named=named)

    def distinct(self, *fields: str) -> PonyQuerySet:
        return self.get_queryset().distinct(*fields)

    def in_bulk(self, id_list: Any = None, *, field_name: str = "pk") -> dict[Any, Any]:
        return self.get_queryset().in_bulk(id_list, field_name=field_name)

    def select_related(self, *fields: Any) -> PonyQuerySet:
        return self.get_queryset()

    def prefetch_related(self, *lookups: Any) -> PonyQuerySet:
        return self.get_queryset()


def _django_lookups(args: tuple, kwargs: dict) -> bool:
    return bool(kwargs) or not args or all(isinstance(arg, Q) for arg in args)


class DjangoSetMethods(RelatedManagerMethods):
    """Mixed into Pony's ``SetInstance`` of every entity: Django's manager API besides Pony's."""

    def _owner(self) -> Any:
        return self._obj_

    def _accessor(self) -> str:
        return self._attr_.name

    def filter(self, *args: Any, **kwargs: Any) -> Any:
        if _django_lookups(args, kwargs):
            return self.get_queryset().filter(*args, **kwargs)
        return SetInstance.filter(self, *args)

    def order_by(self, *fields: Any) -> Any:
        if fields and all(isinstance(field, str) for field in fields):
            return self.get_queryset().order_by(*fields)
        return SetInstance.order_by(self, *fields)

    def add(self, *items: Any, **kwargs: Any) -> None:
        forget_pages(self._obj_)
        SetInstance.add(self, self._entities(items))

    def remove(self, *items: Any, **kwargs: Any) -> None:
        forget_pages(self._obj_)
        SetInstance.remove(self, self._entities(items))

    def clear(self) -> None:
        forget_pages(self._obj_)
        SetInstance.clear(self)

    def set(self, items: Iterable[Any], **kwargs: Any) -> None:
        """Replace the related objects, as Django's ``set()``."""
        forget_pages(self._obj_)
        self._attr_.__set__(self._obj_, self._entities((items,)))

    def _entities(self, items: tuple) -> list[Any]:
        if len(items) == 1 and not isinstance(items[0], (PonyEntity, models.Model)):
            items = tuple(items[0])  # Pony's spelling: one iterable
        entity = self._attr_.py_type
        return [as_entity(item, entity) for item in items]


def page_related(owner: Any, accessor: str, manager: Any) -> list[Any] | None:
    """``owner``'s related objects, loaded for every object of its page at once, or ``None``.

    Django's own ``get_prefetch_querysets`` builds the query (the default
    manager, its ordering, the owners' keys), Pony loads the rows, and the
    lists stay for the Pony session (until a write through a manager).
    """
    page = owner._djony_page
    if page is None:
        return None
    cache = pages_of(owner)
    if cache is None:
        return None
    loaded = cache.get((page, accessor))
    if loaded is None:
        stubs = [owner_stub(obj) for obj in page.objects]
        queryset, related_key, owner_key, _single, _name, _is_descriptor = (
            manager.get_prefetch_querysets(stubs)
        )
        by_owner: dict[Any, list[Any]] = {}
        for related, values in PonyQuerySet(queryset).objects_with_values():
            for name, value in values.items():  # the owner's key Django's prefetch selected
                setattr(related, name, value)
            by_owner.setdefault(related_key(related), []).append(related)
        loaded = cache[(page, accessor)] = (owner_key, by_owner)
    owner_key, by_owner = loaded
    return list(by_owner.get(owner_key(manager.instance), []))


def set_wrapper_class(entity: Any) -> type:
    """Pony's ``SetInstance`` class for sets of ``entity``, with :class:`DjangoSetMethods`."""
    wrapper = entity.__dict__.get("_set_wrapper_subclass_")
    if wrapper is None:
        mixin = entity._get_propagation_mixin_()
        wrapper = type(f"{entity.__name__}Set", (DjangoSetMethods, SetInstance, mixin), {})
        entity._set_wrapper_subclass_ = wrapper
    return wrapper


class RelatedManager(RelatedManagerMethods):
    """A relation Pony does not hold as a ``Set`` (``through`` models, generic relations)."""

    def __init__(self, owner: Any, accessor: str) -> None:
        self.owner = owner
        self.accessor = accessor

    def _owner(self) -> Any:
        return self.owner

    def _accessor(self) -> str:
        return self.accessor

    def filter(self, *args: Any, **kwargs: Any) -> PonyQuerySet:
        return self.get_queryset().filter(*args, **kwargs)

    def order_by(self, *fields: str) -> PonyQuerySet:
        return self.get_queryset().order_by(*fields)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.get_queryset())

    def __len__(self) -> int:
        return len(self.get_queryset())

    def __repr__(self) -> str:
        return f"<RelatedManager {self.owner!r}.{self.accessor}>"


def manager_property(accessor: str) -> property:
    """``obj.<accessor>`` as a :class:`RelatedManager`."""
    return property(lambda self: RelatedManager(self, accessor), doc=f"Related manager {accessor}")
