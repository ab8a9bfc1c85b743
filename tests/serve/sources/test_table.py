"""The table of :mod:`tastypie_djony.sources`: which source serves a field (``source_for``),
which related fields behave as Tastypie's own (``related_kind``), and the object path's key
source of a related field (``object_source``)."""

from __future__ import annotations

import pytest
from tastypie import fields

from tastypie_djony.fields import DjonyToOneField, SetField, as_set_field, as_to_one_field
from tastypie_djony.sources import ObjectSource, object_source, related_kind, source_for
from tastypie_djony.sources.nested import NestedManySource, NestedOneSource
from tastypie_djony.sources.related import ToManyKeySource, ToOneKeySource
from tastypie_djony.sources.scalar import FileSource, ResourceUriSource, ScalarSource
from tests.serve.sources.helpers import NestedStub, plan_of, source_of
from tests.serve.unit_api import AllTypesResource, BookResource, TagResource, resource


@pytest.mark.parametrize(
    "resource_class, name, source_class",
    [
        (BookResource, "resource_uri", ResourceUriSource),
        (BookResource, "heading", ScalarSource),
        (BookResource, "rated", ScalarSource),
        (BookResource, "length", ScalarSource),
        (BookResource, "issued", ScalarSource),
        (AllTypesResource, "amount", ScalarSource),
        (AllTypesResource, "flag", ScalarSource),
        (AllTypesResource, "day", ScalarSource),
        (AllTypesResource, "clock", ScalarSource),
        (AllTypesResource, "file", FileSource),
        (BookResource, "author", ToOneKeySource),
        (BookResource, "tags", ToManyKeySource),
        (BookResource, "author_full", NestedOneSource),
        (BookResource, "tags_full", NestedManySource),
    ],
)
def test_each_field_class_has_its_source(resource_class, name, source_class) -> None:
    """The table gives each field class its source, which serves it from rows."""
    plan = plan_of(resource_class, nested_plan=NestedStub)
    source = source_of(plan, name)
    assert type(source) is source_class
    assert source.declined is None
    assert (source.plan, source.name, source.field) == (plan, name, plan.resource.fields[name])


@pytest.mark.parametrize("name, kind", [("extras", "DictField"), ("listed", "ListField")])
def test_a_field_class_the_table_does_not_know_is_its_own_dehydrate(name, kind) -> None:
    """A field class outside the table is an ObjectSource declining with the field's name and
    class: the bundle plan calls its ``dehydrate`` on the object."""
    source = source_of(plan_of(BookResource), name)
    assert type(source) is ObjectSource
    assert source.declined == f"{name}: {kind}"


def test_a_declining_source_becomes_an_object_source_with_its_reason() -> None:
    """A source of the table that cannot serve its field leaves it, with its reason, to an
    ObjectSource, which serves no rows."""
    plan = plan_of(BookResource)
    source = source_of(plan, "author_key")
    assert type(source) is ObjectSource
    assert source.declined == "author_key reads a relation"
    with pytest.raises(NotImplementedError, match="author_key reads a relation"):
        source.value((1,), None)


def test_a_resource_uri_over_an_attribute_reads_that_attribute_and_the_key() -> None:
    """``resource_uri`` with an attribute of a scalar class: the URI source also reads (and so
    checks) the attribute's column; of any other class: the field's own ``dehydrate``."""
    plan = plan_of(BookResource)
    checked = source_for(plan, "resource_uri", fields.CharField(attribute="title"))
    assert type(checked) is ResourceUriSource
    assert checked.columns() == ["title", "pk"]
    other = source_for(plan, "resource_uri", fields.DictField(attribute="title"))
    assert type(other) is ObjectSource
    assert other.declined == "resource_uri: DictField"


def test_a_nested_source_asks_the_nested_plan_of_its_related_resource() -> None:
    """A ``full=True`` source builds the related resource's nested plan one level deeper and
    has it select the related key."""
    plan = plan_of(BookResource, nested_plan=NestedStub, depth=1)
    nested = source_of(plan, "tags_full").nested
    assert isinstance(nested.related, TagResource) and nested.depth == 2
    assert nested.needed == ["pk"]


class OwnToOneField(fields.ToOneField):
    """A to-one field of a user's own: its methods decide."""

    def dehydrate(self, bundle, for_list=True):
        return super().dehydrate(bundle, for_list=for_list)


@pytest.mark.parametrize(
    "field, kind",
    [
        pytest.param(SetField(TagResource, "tags"), "to_many", id="SetField"),
        pytest.param(DjonyToOneField(TagResource, "tag"), "to_one", id="DjonyToOneField"),
        pytest.param(
            as_set_field(fields.ToManyField(TagResource, "tags")),
            "to_many",
            id="swapped-ToManyField",
        ),
        pytest.param(
            as_to_one_field(fields.ToOneField(TagResource, "tag")),
            "to_one",
            id="swapped-ToOneField",
        ),
        pytest.param(
            as_to_one_field(fields.ForeignKey(TagResource, "tag")), "to_one", id="alias-ForeignKey"
        ),
        pytest.param(
            as_to_one_field(fields.OneToOneField(TagResource, "tag")),
            "to_one",
            id="alias-OneToOneField",
        ),
        pytest.param(
            as_set_field(fields.ManyToManyField(TagResource, "tags")),
            "to_many",
            id="alias-ManyToManyField",
        ),
        pytest.param(
            as_set_field(fields.OneToManyField(TagResource, "tags")),
            "to_many",
            id="alias-OneToManyField",
        ),
        pytest.param(fields.ToOneField(TagResource, "tag"), None, id="stock-ToOneField"),
        pytest.param(fields.ToManyField(TagResource, "tags"), None, id="stock-ToManyField"),
        pytest.param(as_to_one_field(OwnToOneField(TagResource, "tag")), None, id="own-subclass"),
        pytest.param(fields.CharField(attribute="name"), None, id="CharField"),
    ],
)
def test_related_kind(field, kind) -> None:
    """DjonyResource's related fields, and Tastypie's aliases made into them, are to-one or
    to-many; Tastypie's own classes (a ModelResource's fields) and a subclass of the user's
    are no kind of djony's."""
    assert related_kind(field) == kind


def test_a_resource_declares_its_related_fields_as_djony_kinds() -> None:
    """The fields of a DjonyResource instance are the related kinds the table knows."""
    book = resource(BookResource)
    assert related_kind(book.fields["author"]) == "to_one"
    assert related_kind(book.fields["tags"]) == "to_many"


def test_object_source_is_built_once_per_field_by_its_kind() -> None:
    """The object path's source of a related field is one key source per field: to-many or
    to-one by the field, for a list page, from ``convert``'s values."""
    book = resource(BookResource)
    tags, author = book.fields["tags"], book.fields["author"]
    source = object_source(tags)
    assert object_source(tags) is source
    assert type(source) is ToManyKeySource and type(object_source(author)) is ToOneKeySource
    assert (source.name, source.field) == ("tags", tags)
    assert source.plan.for_list and not source.plan.simple
    assert source.plan.resource is tags._resource
    assert object_source(resource(BookResource).fields["tags"]) is not source
