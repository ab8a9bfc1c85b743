""":mod:`tastypie_djony.nulls`: what a field shows when its value is not there, held to what
Tastypie's own fields do with the same object."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
from tastypie import fields
from tastypie.bundle import Bundle
from tastypie.exceptions import ApiFieldError

from tastypie_djony.declines import Fallback
from tastypie_djony.nulls import (
    empty_attribute,
    no_primary_key,
    related_may_be_absent,
    scalar_when_absent,
)
from tests.serve.unit_api import TagResource


def missing() -> Bundle:
    """A bundle whose object has ``None`` at the fields' attribute ``x``."""
    return Bundle(obj=SimpleNamespace(pk=1, x=None))


@pytest.mark.parametrize(
    "field",
    [
        fields.CharField(attribute="x", null=True),
        fields.CharField(attribute="x", null=True, default="ignored"),
        fields.CharField(attribute="x", default="given"),
        fields.IntegerField(attribute="x", default=0),
        fields.BooleanField(attribute="x", default=False),
        fields.CharField(attribute="x", default=lambda: "made"),
    ],
    ids=["null", "null-before-default", "default", "zero", "false", "callable"],
)
def test_a_missing_scalar_starts_from_what_tastypie_s_dehydrate_starts_from(field) -> None:
    """``None`` for a ``null`` field (before its default), else its default (called when
    callable): converted, what Tastypie's ``dehydrate`` answers for a ``None`` attribute."""
    absent = scalar_when_absent(field)
    value = absent()
    assert (None if value is None else field.convert(value)) == field.dehydrate(missing())


def test_a_callable_default_is_called_each_time() -> None:
    """A callable default gives a fresh value for every missing value, as Tastypie calls it."""
    counter = itertools.count(1)
    field = fields.IntegerField(attribute="x", default=lambda: next(counter))
    absent = scalar_when_absent(field)
    assert [absent(), absent()] == [1, 2]
    assert field.dehydrate(missing()) == 3


def test_a_missing_scalar_without_null_or_default_declines() -> None:
    """Where Tastypie raises ``ApiFieldError`` (no ``null``, no default), the rule raises
    ``Fallback``: the general path raises Tastypie's own error."""
    field = fields.CharField(attribute="x")
    absent = scalar_when_absent(field)
    with pytest.raises(ApiFieldError):
        field.dehydrate(missing())
    with pytest.raises(Fallback):
        absent()


@pytest.mark.parametrize("null", [True, False])
@pytest.mark.parametrize("field_class", [fields.ToOneField, fields.ToManyField])
def test_a_related_field_may_be_absent_when_null(field_class, null) -> None:
    """A related field shows ``None`` (to-one) or ``[]`` (to-many) for a missing relation
    exactly when it is ``null``, whatever its default, as Tastypie's do."""
    field = field_class(TagResource, "x", null=null, default="ignored")
    assert related_may_be_absent(field) is null
    if null:
        assert field.dehydrate(missing()) in (None, [])
    else:
        with pytest.raises(ApiFieldError):
            field.dehydrate(missing())


@pytest.mark.parametrize("field_class", [fields.ToOneField, fields.ToManyField])
def test_the_empty_attribute_error_is_tastypie_s(field_class) -> None:
    """The error for a non-null related field without a value is word for word the one
    Tastypie's to-one and to-many fields raise for the same object."""
    bundle = missing()
    with pytest.raises(ApiFieldError) as tastypies:
        field_class(TagResource, "x").dehydrate(bundle)
    assert str(empty_attribute(bundle.obj, "x")) == str(tastypies.value)


def test_the_no_primary_key_error_is_tastypie_s() -> None:
    """The error for a to-many field of an object without a primary key is word for word
    Tastypie's ``ToManyField``'s."""
    obj = SimpleNamespace(pk=None)
    with pytest.raises(ApiFieldError) as tastypies:
        fields.ToManyField(TagResource, "x").dehydrate(Bundle(obj=obj))
    assert str(no_primary_key(obj)) == str(tastypies.value)
