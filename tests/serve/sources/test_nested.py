"""The sources of ``full=True`` related fields (:mod:`tastypie_djony.sources.nested`): which
ones a nested plan of the related resource serves, the columns they read, and the reason
each other one declines."""

from __future__ import annotations

from typing import Any

import pytest
from tastypie import fields

from tastypie_djony.declines import Declined
from tastypie_djony.related import MAX_DEPTH
from tastypie_djony.sources.nested import NestedManySource, NestedOneSource
from tests.serve.sources.helpers import NestedStub, plan_of, source_of
from tests.serve.unit_api import BookResource, TagResource, UnplannedTagResource


def declining_plans(related: Any, depth: int) -> Declined:
    return Declined(f"{type(related).__name__} overrides dehydrate")


def test_a_full_to_one_over_a_plain_foreign_key_reads_the_key_its_row_holds() -> None:
    """``full=True`` over a ForeignKey to the primary key with its constraint: the owner's row
    gives the related key, so the source reads it with the owner's key, and the related
    row's columns through the relation (a join: no query of its own)."""
    source = source_of(plan_of(BookResource, nested_plan=NestedStub), "author_full")
    assert type(source) is NestedOneSource and source.needs_pk
    author = BookResource._meta.object_class._meta.get_field("author").related_model
    joined = [f"author__{field.attname}" for field in author._meta.concrete_fields]
    assert source.columns() == ["pk", "author_id", *joined]
    assert source.nested.needed == ["pk"]


def test_a_full_to_many_reads_the_owner_s_key() -> None:
    """``full=True`` over a to-many: the owner's key, its related keys read for the page."""
    source = source_of(plan_of(BookResource, nested_plan=NestedStub), "tags_full")
    assert type(source) is NestedManySource and source.needs_pk
    assert source.relation.target is TagResource._meta.object_class


def test_full_decided_per_bundle_is_declined_only_where_it_is_a_callable() -> None:
    """``full_list`` a callable: the list page leaves the field to its own ``dehydrate``; the
    detail page, whose ``full_detail`` is Tastypie's plain ``True``, serves it."""
    name = "tags_full_per_bundle"
    listed = plan_of(BookResource, nested_plan=NestedStub, for_list=True)
    detail = plan_of(BookResource, nested_plan=NestedStub, for_list=False)
    assert NestedManySource(listed, name, listed.resource.fields[name]).declined == (
        f"{name}: full is decided per bundle"
    )
    assert NestedManySource(detail, name, detail.resource.fields[name]).declined is None


@pytest.mark.parametrize(
    "options, name, field, reason",
    [
        ({}, "author_full", None, "author_full: full=True (not served from rows here)"),
        (
            {"nested_plan": NestedStub, "depth": MAX_DEPTH},
            "tags_full",
            None,
            f"tags_full: nested deeper than {MAX_DEPTH}",
        ),
        (
            {"nested_plan": NestedStub},
            "x",
            fields.ToManyField(TagResource, lambda bundle: bundle.obj.tags.all(), full=True),
            "x: not a plain relation",
        ),
        (
            {"nested_plan": NestedStub},
            "x",
            fields.ToManyField(UnplannedTagResource, "tags", full=True),
            "x: its related resource is not served by plans",
        ),
        (
            {"nested_plan": declining_plans},
            "tags_full",
            None,
            "tags_full: TagResource overrides dehydrate",
        ),
    ],
    ids=["no-nested-plans", "too-deep", "callable", "unplanned", "nested-plan-declined"],
)
def test_a_full_field_no_nested_plan_serves_is_declined_with_the_reason(
    options, name, field, reason
) -> None:
    """Without nested plans, too deep, over no plain relation, to a resource no plan serves or
    whose nested plan declines: the field is left to its own ``dehydrate``, saying why."""
    plan = plan_of(BookResource, **options)
    field = field or plan.resource.fields[name]
    assert NestedManySource(plan, name, field).declined == reason
