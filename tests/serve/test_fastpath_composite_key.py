"""A model with a ``CompositePrimaryKey`` (Django 5.2) is reported and left out; every other
model keeps its entity."""

import pytest
from django.apps import apps
from pony.orm import db_session, select

from djony.checks import check_mapping
from tests.zoo.models import Animal, Caretaker, Feeding

pytestmark = pytest.mark.django_db


def test_the_check_names_model_fields_and_what_to_do():
    messages = [m for m in check_mapping([apps.get_app_config("zoo")]) if m.id == "djony.W005"]
    assert len(messages) == 1
    (message,) = messages
    assert message.obj is Feeding
    assert "zoo.Feeding" in message.msg and "animal, keeper" in message.msg
    assert "ModelResource" in message.hint and "UniqueConstraint" in message.hint


def test_no_error_for_the_other_models():
    assert not [m for m in check_mapping() if m.id.startswith("djony.E")]


def test_other_models_keep_their_entities():
    keeper = Caretaker.objects.create(name="Ida")
    Animal.objects.create(name="Gnu", number=901, slug="gnu", keeper=keeper)
    with db_session:
        assert select(a.name for a in Animal.p if a.number == 901)[:] == ["Gnu"]
        assert Caretaker.p.get(id=keeper.pk).name == "Ida"


def test_the_composite_model_has_no_entity():
    with pytest.raises(LookupError, match="zoo.Feeding"):
        Feeding.p  # noqa: B018
