"""What djony offers a layer that serves HTTP from it (``tastypie_djony``).

The serving layer imports djony through this module only (a lint contract
keeps it so), never djony's internals nor Pony's: the names below are the
whole surface it relies on, so djony's modules can move without it noticing.

- Objects: which values are Django instances or entity objects and which
  model they are rows of (:func:`model_of`), assignments in read code that
  must not save, the current Pony session and its page store.
- Databases: where a model is read from and written to, reading a write's own
  rows inside a write request (:func:`writing`, :func:`pin_reads`); the
  database's backend (:mod:`~djony.bridge.backends`: its limits, what a
  refused read says about the client's input, :func:`read_refusal`, and the
  words a refused write's message uses, :data:`REFUSAL_KINDS`); whether a
  transaction survived the errors raised in it (:class:`TransactionWatch`); a read's
  watch over the statements that may write (:func:`watching_writes`: inside it a page's
  related ``get()`` calls are answered from one read of the page's rows; :func:`writes_since`
  tells whether anything wrote since a moment, :func:`forget_loads` drops what a page's
  objects hold of their relations after such a write, but what their queryset keeps,
  :func:`kept_by`).
- Querysets: :class:`RecordedQuerySet` (the QuerySet API recorded on a Django queryset,
  its rows read on Pony's session), :class:`PonyQuerySet` (its objects Pony's),
  to-one keys loaded for a page, a page's Django instances that load a to-many
  relation for all of them on first use (:func:`load_together`; what their pages set and
  load is let go at the end of a :func:`letting_go` block, leaving no reference cycles to
  the garbage collector), a page's to-many relation
  loaded as ``prefetch_related_objects`` loads it, by SQL kept per relation and page size
  (:func:`load_page_relation`; a django-sortedm2m relation's keys so,
  :func:`sorted_relation_keys`; a queryset's own ``prefetch_related`` so where it can,
  :func:`prefetch_page`), which of a page's owners have related rows of equal sort
  values (:func:`sort_columns`, :func:`tied`) or none can have (:func:`unique_order`),
  SQL kept per query shape
  (:class:`OneValueQuery`, :class:`KeptQueries`) and per recorded list's recipe (the
  filters of a per-user list, their values parameters: :func:`kept_sql`), and the proof
  that a query compiles the same in every request (:func:`request_independent`).
- State kept between requests: :class:`BoundedCache` and :func:`register`.
- Profiles: :data:`INSIDE_DJANGO_CALLS`, djony's files whose time is their caller's.

Add a name here (re-exported from where it lives) before the serving layer
uses it.
"""

from __future__ import annotations

import sys

from djony.bridge import backends
from djony.bridge.backends import REFUSAL_KINDS, ReadRefusal, read_refusal
from djony.bridge.watch import TransactionWatch
from djony.bridge.writes import since as writes_since
from djony.bridge.writes import watching as watching_writes
from djony.meta.compat import (
    evaluate_compiled,
    instance_builder,
    none_as_json_null,
    track_peers,
)
from djony.meta.models import has_composite_key, model_of
from djony.objects.compiled import (
    KeptQueries,
    NotKeptForValue,
    OneValueQuery,
    bare_manager,
    exact_for,
    last_leaf,
    plain_manager,
    plain_queryset_class,
)
from djony.objects.descriptor import EntityDescriptor
from djony.objects.forget import forget_loads, kept_by
from djony.objects.identity import is_django_instance, is_entity_object
from djony.objects.independent import request_independent
from djony.objects.kept import BoundedCache, register
from djony.objects.letgo import letting_go
from djony.objects.manager_keys import related_keys as sorted_relation_keys
from djony.objects.managers import class_attribute
from djony.objects.page_relations import load as load_page_relation
from djony.objects.page_relations import prefetch as prefetch_page
from djony.objects.pages import pages_of_model
from djony.objects.peers import load_together, loads_together
from djony.objects.querysets import PonyQuerySet
from djony.objects.reader import Kept
from djony.objects.recorded import RecordedQuerySet
from djony.objects.rows import load_to_one, shaped
from djony.objects.saving import assignments_not_saved
from djony.objects.sessions import adopt, object_by_key, session_active, unflushed_changes
from djony.objects.shapes import filtered as filtered_recipe
from djony.objects.shapes import keep_filter, keep_sql, kept_filter, kept_sql
from djony.objects.shapes import then as recipe_then
from djony.objects.ties import sort_columns, tied, unique_order
from djony.registry import entity_for, has_entity_subclasses, pin_reads, write_alias, writing

#: The files of djony's code that runs inside Django's own calls, whoever made them: the
#: statement watch's ``execute_wrapper`` and the model classes' ``isinstance`` check.  A
#: profile that tells whose code a moment belongs to counts them as their caller's.
INSIDE_DJANGO_CALLS = tuple(
    sys.modules[hook.__module__].__file__ for hook in (watching_writes, is_entity_object)
)

__all__ = [
    "INSIDE_DJANGO_CALLS",
    "REFUSAL_KINDS",
    "BoundedCache",
    "EntityDescriptor",
    "Kept",
    "KeptQueries",
    "NotKeptForValue",
    "OneValueQuery",
    "PonyQuerySet",
    "ReadRefusal",
    "RecordedQuerySet",
    "TransactionWatch",
    "adopt",
    "assignments_not_saved",
    "backends",
    "bare_manager",
    "class_attribute",
    "entity_for",
    "exact_for",
    "filtered_recipe",
    "forget_loads",
    "has_composite_key",
    "has_entity_subclasses",
    "evaluate_compiled",
    "instance_builder",
    "is_django_instance",
    "is_entity_object",
    "keep_filter",
    "keep_sql",
    "kept_by",
    "kept_filter",
    "kept_sql",
    "last_leaf",
    "letting_go",
    "load_page_relation",
    "load_to_one",
    "load_together",
    "loads_together",
    "model_of",
    "none_as_json_null",
    "object_by_key",
    "pages_of_model",
    "pin_reads",
    "plain_manager",
    "plain_queryset_class",
    "prefetch_page",
    "read_refusal",
    "recipe_then",
    "register",
    "request_independent",
    "session_active",
    "shaped",
    "sorted_relation_keys",
    "sort_columns",
    "tied",
    "track_peers",
    "unflushed_changes",
    "unique_order",
    "watching_writes",
    "write_alias",
    "writes_since",
    "writing",
]
