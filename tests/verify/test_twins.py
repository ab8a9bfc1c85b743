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

from tastypie_djony.resources import DjonyResource
from tastypie_djony.verify import twins as twins_module
from tastypie_djony.verify.trouble import FieldTrouble
from tastypie_djony.verify.twins import TwinError, Twins
from tests.verify.project.models import Poem, Poet
from tests.verify.project.resources import (
    BiographyResource,
    DjonyResponseResource,
    ImprintResource,
    PoemCountResource,
    PoemResource,
    PoetResource,
    ResponseResource,
    ShelfmarkResource,
    ThemeResource,
)


def is_twin_of(cls: type, original: type) -> bool:
    return cls is not original and issubclass(cls, original) and cls.__name__ == original.__name__


def test_a_generic_foreign_key_points_at_the_twin_of_each_model_resource():
    found = Twins()
    twin = found.twin(ResponseResource)
    field = twin.base_fields["target"]
    assert type(field) is GenericForeignKeyField
    assert set(field.to) == {Poem, Poet}
    assert is_twin_of(field.to[Poem], PoemResource)
    assert is_twin_of(field.to[Poet], PoetResource)
    assert DjonyResource in field.to[Poem].__mro__
    # Its to_class is Tastypie's GenericResource over the twins (it resolves posted URIs).
    stand_in = field.to_class
    assert isinstance(stand_in, functools.partial) and stand_in.func is GenericResource
    assert set(stand_in.keywords["resources"]) == {field.to[Poem], field.to[Poet]}
    assert not [k for k in found.kept if k.resource == "ResponseResource"]
    # The original keeps its own.
    assert ResponseResource.base_fields["target"].to == {
        Poem: PoemResource,
        Poet: PoetResource,
    }


def test_a_generic_foreign_key_of_a_djony_resource_is_tastypies_on_its_twin():
    twin = Twins().twin(DjonyResponseResource)
    assert ModelResource in twin.__mro__ and DjonyResource not in twin.__mro__
    field = twin.base_fields["target"]
    assert is_twin_of(field.to[Poem], PoemResource)
    # Tastypie's own on both sides (it finds the related resource by type(obj)).
    assert type(twin().fields["target"]) is GenericForeignKeyField
    assert type(DjonyResponseResource().fields["target"]) is GenericForeignKeyField


def test_self_a_dotted_path_and_a_class_point_at_twins():
    found = Twins()
    twin = found.twin(PoetResource)
    instance = twin()
    assert instance.fields["mentor"].to_class is twin  # 'self'
    assert is_twin_of(twin.base_fields["biography"].to, BiographyResource)  # a dotted path
    assert is_twin_of(twin.base_fields["poems"].to, PoemResource)  # a dotted path, to-many
    assert is_twin_of(twin.base_fields["imprint"].to, ImprintResource)  # ForeignKey
    assert ModelResource in twin.base_fields["biography"].to.__mro__  # BiographyResource: Djony
    # Built once: the poem's poet is the same twin.
    poem = found.twin(PoemResource)
    assert poem.base_fields["poet"].to is twin
    assert is_twin_of(poem.base_fields["themes"].to, ThemeResource)  # ManyToManyField


def test_what_the_original_resolved_is_not_copied_into_the_twin():
    """The original's fields remember what they resolved (``to_class`` is memoized); the
    twin's look it up again, so ``'self'`` and paths give twins."""
    assert PoetResource.base_fields["mentor"].to_class is PoetResource
    assert PoetResource.base_fields["biography"].to_class is BiographyResource
    twin = Twins().twin(PoetResource)
    assert twin.base_fields["mentor"].to_class is twin
    assert is_twin_of(twin.base_fields["biography"].to_class, BiographyResource)


def test_a_plain_resource_and_a_callable_keep_the_original_and_say_why():
    found = Twins()
    twin = found.twin(PoemResource)
    assert twin.base_fields["shelfmark"].to is ShelfmarkResource
    assert twin.base_fields["theme_names"].to is PoemResource.base_fields["theme_names"].to
    kept = {(k.resource, k.field): str(k) for k in found.kept}
    assert kept == {
        ("PoemResource", "theme_names"): "PoemResource.theme_names: its related resource "
        "comes from a callable, which has no twin; the twin's field uses theme_resource as "
        "the original's does",
        ("PoemResource", "shelfmark"): "PoemResource.shelfmark: ShelfmarkResource is a "
        "plain Resource (neither ModelResource nor DjonyResource): it has no twin; the "
        "twin's field uses ShelfmarkResource as the original's does",
    }


class OddFieldsResource(ModelResource):
    """Related resources that cannot be twinned, and two that can in unusual spellings."""

    nowhere = fields.ToOneField("tests.verify.no_such_module.Resource", "poet", null=True)
    bare = fields.ToOneField("PoetResource", "poet", null=True)
    model = fields.ToOneField(Poet, "poet", null=True)
    refused = fields.ToOneField(PoemCountResource, "poet", null=True)
    partial = fields.ToOneField(functools.partial(PoetResource), "poet", null=True)
    generic = fields.ToOneField(
        functools.partial(GenericResource, resources=[PoetResource, ShelfmarkResource]),
        "poet",
        null=True,
    )

    class Meta:
        queryset = Poem.objects.all()
        resource_name = "odd"


def test_unusual_related_resources_are_twinned_or_kept_with_the_reason():
    found = Twins()
    twin = found.twin(OddFieldsResource)
    poet_twin = found.twin(PoetResource)
    fields_ = twin.base_fields
    assert fields_["partial"].to.func is poet_twin
    generic = fields_["generic"].to
    assert generic.func is GenericResource
    assert generic.keywords["resources"] == [poet_twin, ShelfmarkResource]
    kept = {k.field: k.reason for k in found.kept if k.resource == "OddFieldsResource"}
    assert kept["nowhere"] == (
        "'tests.verify.no_such_module.Resource' does not import (ModuleNotFoundError: No "
        "module named 'tests.verify.no_such_module')"
    )
    assert kept["bare"] == "'PoetResource' is not a dotted path (Tastypie imports module.Class)"
    assert kept["model"] == "Poet is not a Tastypie Resource"
    assert kept["refused"].startswith(
        "PoemCountResource on DjonyResource: ImproperlyConfigured: DjonyResource "
        "PoemCountResource: Meta.queryset uses values()/values_list()"
    )
    assert kept["generic"].startswith("ShelfmarkResource is a plain Resource")
    for name in ("nowhere", "bare", "model", "refused"):
        assert fields_[name].to is OddFieldsResource.base_fields[name].to


def test_a_resource_with_no_twin_of_its_own_is_a_twin_error():
    with pytest.raises(TwinError, match="PoemCountResource on DjonyResource: Improperly"):
        Twins().twin(PoemCountResource)
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
        Twins().twin(PoetResource)
    assert str(raised.value).startswith(
        "PoetResource.mentor: RuntimeError: cannot copy this one (raised at "
        "tests/verify/test_twins.py:"
    )
