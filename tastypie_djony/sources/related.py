"""Sources of related fields shown as URIs: from keys, never from related objects.

* :class:`ToOneKeySource`: a to-one field without ``full`` over a forward ``ForeignKey``
  or ``OneToOneField`` with its database constraint: the related URI from the key the
  row holds (or, for a related resource whose URIs use another column of the related
  row, a slug, that column through a join the constraint makes safe);
* :class:`ToManyKeySource`: a to-many field without ``full`` over a plain relation: the
  related URIs from the related keys of the whole page, read in one query in the
  related manager's order (:meth:`~tastypie_djony.related.Relation.related_keys`), or
  from the related objects the page's own query prefetched.

Both also serve the object path: :class:`~tastypie_djony.fields.SetField` and
:class:`~tastypie_djony.fields.DjonyToOneField` ask :meth:`ToManyKeySource.from_object`
and :meth:`ToOneKeySource.from_object` on a Django instance, so the URI-from-key rule and
its null rule live here once.  :func:`relation_lookups` is what ``prefetch_related``
needs for a related field on a page's objects (the page loaders).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tastypie.bundle import Bundle
from tastypie.fields import RelatedField

from tastypie_djony.declines import Fallback
from tastypie_djony.nulls import empty_attribute, related_may_be_absent
from tastypie_djony.related import (
    MAX_DEPTH,
    Relation,
    ToOneRelation,
    prefetched_keys,
    related_keys,
)
from tastypie_djony.sources.base import Page, Plan, Source, key_uris, model_field
from tastypie_djony.uris import DetailUris

#: What :meth:`ToOneKeySource.from_object` and :meth:`ToManyKeySource.from_object` answer
#: when the object path needs Tastypie's own code (the related objects).
OWN_CODE = object()


def _stock_related(field: Any) -> bool:
    """Whether the related field turns a related object into its URI as Tastypie does."""
    return type(field).dehydrate_related is RelatedField.dehydrate_related


class ToOneKeySource(Source):
    """A to-one field's URI from the key the row holds."""

    def __init__(self, plan: Plan, name: str, field: Any) -> None:
        super().__init__(plan, name, field)
        self.link = self.key = -1
        self.detail_uris: DetailUris | None = None
        self.declined = self._plan_key()
        self.null = related_may_be_absent(field)

    def _plan_key(self) -> str | None:
        field = self.field
        if field.full:
            return f"{self.name}: full=True"
        found, reason = model_field(self.plan, field.attribute)
        if reason is not None:
            return reason
        if not (found.many_to_one or found.one_to_one) or not found.concrete:
            return f"{self.name} is not a forward relation"
        if not getattr(found, "db_constraint", True):
            return f"{self.name}: its key may name no row (db_constraint=False)"
        self.detail_uris, reason = key_uris(field.get_related_resource(None))
        if reason is not None:
            return f"{self.name}: {reason}"
        key_field = self.detail_uris.key_field(found.related_model)
        if key_field is None:
            return f"{self.name}: the related URI's key is not a column"
        self.model_field = found
        self.link_column = found.attname
        if key_field == found.target_field.name:
            self.key_column = self.link_column
        else:  # e.g. a slug: read through a join (the constraint guarantees the row)
            self.key_column = f"{found.name}__{key_field}"
        return None

    def columns(self) -> list[str]:
        return list(dict.fromkeys([self.link_column, self.key_column]))

    def bind(self, position: Callable[[str], int]) -> None:
        self.link = position(self.link_column)
        self.key = position(self.key_column)

    def uris(self) -> list[DetailUris]:
        return [self.detail_uris]

    def value(self, row: tuple, page: Page) -> Any:
        key = row[self.key]
        if key is None:
            if self.null and row[self.link] is None:
                return None
            raise Fallback  # the general path raises Tastypie's error for this object
        return page.builders[self.detail_uris](key)

    def from_object(self, bundle: Bundle) -> Any:
        """The field's value on ``bundle.obj`` from the key it holds, or :data:`OWN_CODE`."""
        if self.declined is not None or self.key_column != self.link_column:
            return OWN_CODE
        if not _stock_related(self.field):
            return OWN_CODE
        held = getattr(bundle.obj, "__dict__", {})
        if self.link_column not in held:
            return OWN_CODE  # a deferred key: Django loads the object
        key = held[self.link_column]
        if key is None:
            if not self.null:
                raise empty_attribute(bundle.obj, self.field.attribute)
            return None
        return self.detail_uris.builder()(key)


class ToManyKeySource(Source):
    """A to-many field's URIs from the related keys of the page."""

    needs_pk = True

    def __init__(self, plan: Plan, name: str, field: Any) -> None:
        super().__init__(plan, name, field)
        self.pk = -1
        self.detail_uris: DetailUris | None = None
        self.relation = Relation.find(plan.resource._meta.object_class, field.attribute)
        self.declined = self._plan_keys()

    def _plan_keys(self) -> str | None:
        if self.field.full:
            return f"{self.name}: full=True"
        if self.relation is None:
            return f"{self.name}: not a plain relation"
        self.detail_uris, reason = key_uris(self.field.get_related_resource(None))
        if reason is not None:
            return f"{self.name}: {reason}"
        self.key_field = self.detail_uris.key_field(self.relation.target)
        if self.key_field is None:
            return f"{self.name}: the related URIs need objects"
        return None

    def columns(self) -> list[str]:
        return ["pk"]

    def bind(self, position: Callable[[str], int]) -> None:
        self.pk = position("pk")

    def uris(self) -> list[DetailUris]:
        return [self.detail_uris]

    def prepare(self, page: Page) -> None:
        keys = self._prefetched_keys(page)
        if keys is None:
            keys = self.relation.related_keys(page.keys, self.key_field)
        page.data[self] = keys

    def _prefetched_keys(self, page: Page) -> dict[Any, list] | None:
        """Each owner's related keys from the related objects the page's query prefetched
        (``prefetch_related`` in the resource's queryset, a ``Prefetch`` with a queryset of
        its own too: what the field shows on Tastypie's path), or ``None``."""
        if page.built is None:
            return None
        keys = {}
        for owner in page.built:
            found = prefetched_keys(self.relation, owner, self.key_field)
            if found is None:
                return None
            keys[owner.pk] = found
        return keys

    def value(self, row: tuple, page: Page) -> Any:
        build = page.builders[self.detail_uris]
        return [build(key) for key in page.data[self][row[self.pk]]]

    def from_object(self, bundle: Bundle, for_list: bool) -> Any:
        """The field's URIs on ``bundle.obj`` (its page's prefetched objects, or one query
        of keys), or :data:`OWN_CODE` where Tastypie's own code must read the objects."""
        owner = bundle.obj
        if self.relation is None or not owner or not owner.pk:
            return OWN_CODE  # Tastypie raises or answers [] for these, as it does
        if self.field.should_full_dehydrate(bundle, for_list) or not _stock_related(self.field):
            return OWN_CODE
        if self.detail_uris is None or self.key_field is None:
            return OWN_CODE
        build = self.detail_uris.builder()
        return [build(key) for key in related_keys(self.relation, owner, self.key_field)]


def relation_lookups(resource: Any, field: Any, depth: int) -> list[str]:
    """What ``prefetch_related`` loads for ``field`` on a page of ``resource``'s objects.

    The field's relation (a ``ForeignKey`` shown as a URI needs none: the row holds its
    key), and below a ``full=True`` one its related resource's own, to
    :data:`~tastypie_djony.related.MAX_DEPTH` levels.
    """
    model = resource._meta.object_class
    if field.is_m2m:
        relation = Relation.find(model, field.attribute)
    else:
        relation = ToOneRelation.find(model, field.attribute)
        if relation is not None and relation.plain_forward and not field.full:
            return []
    if relation is None:
        return []
    lookups = [field.attribute]
    if field.full and depth < MAX_DEPTH:
        related = field.get_related_resource(None)
        inner = getattr(related, "prefetch_lookups", None)
        if inner is not None:
            lookups.extend(f"{field.attribute}__{lookup}" for lookup in inner(depth + 1))
    return lookups
