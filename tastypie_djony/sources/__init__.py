"""Each shown field owns its source: where its value comes from, chosen by one table.

:data:`SOURCES` maps a field class to its source class (:mod:`~tastypie_djony.sources.base`
says what a source answers); :func:`source_for` picks the source of one field of a plan:

=====================================================  =======================================
field                                                  source
=====================================================  =======================================
``resource_uri``                                       :class:`~.scalar.ResourceUriSource`
Tastypie's scalar fields (``CharField`` ...)           :class:`~.scalar.ScalarSource`
``FileField`` (``ImageField`` models too)              :class:`~.scalar.FileSource`
``ToOneField``/``ForeignKey``/``OneToOneField``        :class:`~.related.ToOneKeySource`
the same, ``full=True``                                :class:`~.nested.NestedOneSource`
``ToManyField``/``ManyToManyField``/``SetField``       :class:`~.related.ToManyKeySource`
the same, ``full=True``                                :class:`~.nested.NestedManySource`
anything else (``GenericForeignKeyField``, a           :class:`~.base.ObjectSource`: the
subclass of yours, ``DictField``, ``ListField`` ...)   field's own ``dehydrate`` on the object
=====================================================  =======================================

A source that cannot serve its field from rows says why (:attr:`~.base.Source.declined`);
the bundle plan then leaves that field to its own ``dehydrate`` (an
:class:`~.base.ObjectSource`), and the row-built plan declines the resource with that
reason.  The related fields' object path (:mod:`tastypie_djony.fields`) asks the same
sources (:func:`object_source`).

A new field kind is one source class and one entry in :data:`SOURCES`::

    class SlugListSource(Source):           # e.g. a field showing the related slugs
        needs_pk = True
        def prepare(self, page): page.data[self] = ...   # one query for the page
        def value(self, row, page): return page.data[self][row[self.pk]]
        def bind(self, position): self.pk = position("pk")

    SOURCES[SlugListField] = SlugListSource
"""

from __future__ import annotations

from typing import Any

from tastypie import fields as tastypie_fields

from tastypie_djony.sources.base import ObjectSource, Plan, Source
from tastypie_djony.sources.base import Page as Page
from tastypie_djony.sources.nested import NestedManySource, NestedOneSource
from tastypie_djony.sources.nested import Prepared as Prepared
from tastypie_djony.sources.related import (
    OWN_CODE,
    ToManyKeySource,
    ToOneKeySource,
    relation_lookups,
)
from tastypie_djony.sources.scalar import FileSource, ResourceUriSource, ScalarSource

#: The table and its lookups; the classes named here are also importable from this
#: package, and documented in their modules.
__all__ = ["OWN_CODE", "SOURCES", "object_source", "related_kind", "relation_lookups", "source_for"]

#: Field class -> the source of its values (see the module).  The related fields are the
#: classes ``DjonyResource`` swaps Tastypie's for (``related_kind``).
SOURCES: dict[Any, type[Source]] = {
    tastypie_fields.CharField: ScalarSource,
    tastypie_fields.IntegerField: ScalarSource,
    tastypie_fields.FloatField: ScalarSource,
    tastypie_fields.DecimalField: ScalarSource,
    tastypie_fields.BooleanField: ScalarSource,
    tastypie_fields.DateField: ScalarSource,
    tastypie_fields.DateTimeField: ScalarSource,
    tastypie_fields.TimeField: ScalarSource,
    tastypie_fields.FileField: FileSource,
    "to_one": ToOneKeySource,
    "to_many": ToManyKeySource,
}

#: The source of a ``full=True`` related field.
NESTED: dict[str, type[Source]] = {"to_one": NestedOneSource, "to_many": NestedManySource}

#: Field classes :data:`SOURCES` knows as scalars (a ``resource_uri`` with an attribute).
SCALARS = frozenset(kind for kind, source in SOURCES.items() if source is ScalarSource)


def source_for(plan: Plan, name: str, field: Any) -> Source:
    """The source of ``field`` (shown as ``name``) in ``plan``."""
    if name == "resource_uri":
        if field.attribute is not None and type(field) not in SCALARS:
            return ObjectSource(plan, name, field, f"resource_uri: {type(field).__name__}")
        source = ResourceUriSource(plan, name, field)
    else:
        kind = related_kind(field) or type(field)
        source_class = (NESTED if getattr(field, "full", False) else SOURCES).get(kind)
        if source_class is None:
            return ObjectSource(plan, name, field, f"{name}: {type(field).__name__}")
        source = source_class(plan, name, field)
    if source.declined is not None:
        return ObjectSource(plan, name, field, source.declined)
    return source


#: Tastypie's other spellings of the stock related fields, which add nothing to them.
ALIASES = (
    tastypie_fields.ForeignKey,
    tastypie_fields.OneToOneField,
    tastypie_fields.ManyToManyField,
    tastypie_fields.OneToManyField,
)


def related_kind(field: Any) -> str | None:
    """``"to_one"``/``"to_many"`` for a related field that behaves as Tastypie's own does.

    True of DjonyResource's related fields (their class says ``djony_kind``) and of what
    it made of Tastypie's aliases (``fields.ForeignKey(...)``, ``fields.ManyToManyField(...)``
    ...: classes that define nothing of their own); ``None`` for any other class (a
    subclass of yours: its methods decide).
    """
    for cls in type(field).__mro__:
        kind = vars(cls).get("djony_kind")
        if kind is not None:
            return kind
        if cls not in ALIASES and not vars(cls).get("djony_mixed", False):
            return None
    return None


def object_source(field: Any) -> Source:
    """The key source of a related field on the object path, built once per field."""
    source = field.__dict__.get("_djony_source")
    if source is None:
        resource = field._resource
        plan = Plan(resource=resource, base=object, for_list=True, simple=False)
        kind = ToManyKeySource if field.is_m2m else ToOneKeySource
        source = field.__dict__["_djony_source"] = kind(plan, field.instance_name, field)
    return source
