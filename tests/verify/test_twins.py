"""The twin of a resource points each related field at the related resource's twin, for every
way Tastypie lets a field name its related resource; one without a twin keeps the original
and is listed with the field and the reason."""

from __future__ import annotations

import functools

import pytest
from tastypie import fields
from tastypie.contrib.contenttypes.fields import GenericForeignKeyField
from tastypie.contrib.contenttypes.resources import GenericResource
from tastypie.resources import ModelResource

from tastypie_djony.contenttypes import DjonyGenericForeignKeyField
from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify import twins as twins_module
from tastypie_djony.verify.trouble import FieldTrouble
from tastypie_djony.verify.twins import TwinError, Twins
from tests.verify.project.models import Story, Writer
from tests.verify.project.resources import (
    DjonyReactionResource,
    GenreResource,
    ProfileResource,
    PublisherResource,
    ReactionResource,
    ShelfmarkResource,
    StoryCountResource,
    StoryResource,
    WriterResource,
)


def is_twin_of(cls: type, original: type) -> bool:
    return cls is not original and issubclass(cls, original) and cls.__name__ == original.__name__


def test_a_generic_foreign_key_points_at_the_twin_of_each_model_resource():
    found = Twins()
    twin = found.twin(ReactionResource)
    field = twin.base_fields["target"]
    assert type(field) is GenericForeignKeyField
    assert set(field.to) == {Story, Writer}
    assert is_twin_of(field.to[Story], StoryResource)
    assert is_twin_of(field.to[Writer], WriterResource)
    assert DjonyResource in field.to[Story].__mro__
    # Its to_class is Tastypie's GenericResource over the twins (it resolves posted URIs).
    stand_in = field.to_class
    assert isinstance(stand_in, functools.partial) and stand_in.func is GenericResource
    assert set(stand_in.keywords["resources"]) == {field.to[Story], field.to[Writer]}
    assert not [k for k in found.kept if k.resource == "ReactionResource"]
    # The original keeps its own.
    assert ReactionResource.base_fields["target"].to == {
        Story: StoryResource,
        Writer: WriterResource,
    }


def test_a_generic_foreign_key_of_a_djony_resource_is_tastypies_on_its_twin():
    twin = Twins().twin(DjonyReactionResource)
    assert ModelResource in twin.__mro__ and DjonyResource not in twin.__mro__
    field = twin.base_fields["target"]
    assert is_twin_of(field.to[Story], StoryResource)
    # On the DjonyResource side the instance's field is djony's; the ModelResource twin's
    # stays Tastypie's own.
    assert type(twin().fields["target"]) is GenericForeignKeyField
    assert isinstance(DjonyReactionResource().fields["target"], DjonyGenericForeignKeyField)


def test_self_a_dotted_path_and_a_class_point_at_twins():
    found = Twins()
    twin = found.twin(WriterResource)
    instance = twin()
    assert instance.fields["mentor"].to_class is twin  # 'self'
    assert is_twin_of(twin.base_fields["profile"].to, ProfileResource)  # a dotted path
    assert is_twin_of(twin.base_fields["stories"].to, StoryResource)  # a dotted path, to-many
    assert is_twin_of(twin.base_fields["publisher"].to, PublisherResource)  # ForeignKey
    assert ModelResource in twin.base_fields["profile"].to.__mro__  # ProfileResource: Djony
    # Built once: the story's writer is the same twin.
    story = found.twin(StoryResource)
    assert story.base_fields["writer"].to is twin
    assert is_twin_of(story.base_fields["genres"].to, GenreResource)  # ManyToManyField


def test_what_the_original_resolved_is_not_copied_into_the_twin():
    """The original's fields remember what they resolved (``to_class`` is memoized); the
    twin's look it up again, so ``'self'`` and paths give twins."""
    assert WriterResource.base_fields["mentor"].to_class is WriterResource
    assert WriterResource.base_fields["profile"].to_class is ProfileResource
    twin = Twins().twin(WriterResource)
    assert twin.base_fields["mentor"].to_class is twin
    assert is_twin_of(twin.base_fields["profile"].to_class, ProfileResource)


def test_a_plain_resource_and_a_callable_keep_the_original_and_say_why():
    found = Twins()
    twin = found.twin(StoryResource)
    assert twin.base_fields["shelfmark"].to is ShelfmarkResource
    assert twin.base_fields["genre_names"].to is StoryResource.base_fields["genre_names"].to
    kept = {(k.resource, k.field): str(k) for k in found.kept}
    assert kept == {
        ("StoryResource", "genre_names"): "StoryResource.genre_names: its related resource "
        "comes from a callable, which has no twin; the twin's field uses genre_resource as "
        "the original's does",
        ("StoryResource", "shelfmark"): "StoryResource.shelfmark: ShelfmarkResource is a "
        "plain Resource (neither ModelResource nor DjonyResource): it has no twin; the "
        "twin's field uses ShelfmarkResource as the original's does",
    }


class OddFieldsResource(ModelResource):
    """Related resources that cannot be twinned, and two that can in unusual spellings."""

    nowhere = fields.ToOneField("tests.verify.no_such_module.Resource", "writer", null=True)
    bare = fields.ToOneField("WriterResource", "writer", null=True)
    model = fields.ToOneField(Writer, "writer", null=True)
    refused = fields.ToOneField(StoryCountResource, "writer", null=True)
    partial = fields.ToOneField(functools.partial(WriterResource), "writer", null=True)
    generic = fields.ToOneField(
        functools.partial(GenericResource, resources=[WriterResource, ShelfmarkResource]),
        "writer",
        null=True,
    )

    class Meta:
        queryset = Story.objects.all()
        resource_name = "odd"


def test_unusual_related_resources_are_twinned_or_kept_with_the_reason():
    found = Twins()
    twin = found.twin(OddFieldsResource)
    writer_twin = found.twin(WriterResource)
    fields_ = twin.base_fields
    assert fields_["partial"].to.func is writer_twin
    generic = fields_["generic"].to
    assert generic.func is GenericResource
    assert generic.keywords["resources"] == [writer_twin, ShelfmarkResource]
    kept = {k.field: k.reason for k in found.kept if k.resource == "OddFieldsResource"}
    assert kept["nowhere"] == (
        "'tests.verify.no_such_module.Resource' does not import (ModuleNotFoundError: No "
        "module named 'tests.verify.no_such_module')"
    )
    assert kept["bare"] == "'WriterResource' is not a dotted path (Tastypie imports module.Class)"
    assert kept["model"] == "Writer is not a Tastypie Resource"
    assert kept["refused"].startswith(
        "StoryCountResource on DjonyResource: ImproperlyConfigured: DjonyResource "
        "StoryCountResource: Meta.queryset uses values()/values_list()"
    )
    assert kept["generic"].startswith("ShelfmarkResource is a plain Resource")
    for name in ("nowhere", "bare", "model", "refused"):
        assert fields_[name].to is OddFieldsResource.base_fields[name].to


def test_a_resource_with_no_twin_of_its_own_is_a_twin_error():
    with pytest.raises(TwinError, match="StoryCountResource on DjonyResource: Improperly"):
        Twins().twin(StoryCountResource)
    with pytest.raises(TwinError, match="is neither a ModelResource nor a DjonyResource"):
        Twins().twin(ShelfmarkResource)
    with pytest.raises(TwinError, match="is a GenericResource"):
        Twins().twin(GenericResource)


def test_an_error_while_copying_a_field_names_the_resource_and_the_field(monkeypatch):
    copy = twins_module.deepcopy

    def failing_copy(value):
        if getattr(value, "attribute", None) == "mentor":
            raise RuntimeError("cannot copy this one")
        return copy(value)

    monkeypatch.setattr(twins_module, "deepcopy", failing_copy)
    with pytest.raises(FieldTrouble) as raised:
        Twins().twin(WriterResource)
    assert str(raised.value).startswith(
        "WriterResource.mentor: RuntimeError: cannot copy this one (raised at "
        "tests/verify/test_twins.py:"
    )
