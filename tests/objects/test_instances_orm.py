"""Objects djony hands out are model instances to Django's ORM.

Each check runs on the Django instance and on the entity object of the same row,
and both must give the same answer: ``isinstance``, lookups and assignments
(``filter(owner=obj)``, ``__in``, ``Q``, ``Model(owner=obj)``, ``get_or_create``),
``==``/hash, ``ContentType``, ``model_to_dict``, ``django.core.serializers``, pickle,
and a model method that hands ``self`` to another model's manager.
"""

from __future__ import annotations

import json
import pickle
from decimal import Decimal

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.db import models
from django.db.models import Q
from django.forms.models import model_to_dict
from django.utils.functional import SimpleLazyObject
from pony.orm import db_session

from djony.objects.identity import is_django_instance, is_entity_object
from tests.thirdparty.models import Address, Cafe, Place, Post, Product, WeightEntry, Workout

pytestmark = pytest.mark.django_db


@pytest.fixture
def user() -> User:
    ann = User.objects.create_user("ann", "ann@example.com", "x")
    WeightEntry.objects.create(owner=ann, kg=Decimal("70.5"))
    Workout.objects.create(owner=ann, title="legs")
    return ann


def both(user: User):
    """The Django instance and the entity object of ``user``'s row (in the current session)."""
    return [user, User.p[user.pk]]


@db_session
def test_isinstance(user: User) -> None:
    for obj in both(user):
        assert isinstance(obj, User) and isinstance(obj, AbstractUser)
        assert isinstance(obj, models.Model)
        assert not isinstance(obj, Place)
    entity = User.p[user.pk]
    assert is_entity_object(entity) and not is_django_instance(entity)
    assert is_django_instance(user) and not is_entity_object(user)
    for wrapped in (SimpleLazyObject(lambda: user), SimpleLazyObject(lambda: entity)):
        assert isinstance(wrapped, User) and isinstance(wrapped, models.Model)
        assert WeightEntry.objects.filter(owner__in=[wrapped]).count() == 1
    cafe = Cafe.objects.create(name="corner")
    assert isinstance(Cafe.p[cafe.pk], Place) and isinstance(Cafe.p[cafe.pk], Cafe)


@db_session
def test_lookups(user: User) -> None:
    answers = []
    for obj in both(user):
        answers.append(
            (
                WeightEntry.objects.filter(owner=obj).count(),
                WeightEntry.objects.filter(owner__in=[obj]).count(),
                Workout.objects.filter(Q(owner=obj) | Q(title="none")).count(),
                Workout.objects.exclude(owner=obj).count(),
                WeightEntry.objects.get_or_create(owner=obj, kg=Decimal("70.5"))[1],
            )
        )
    assert answers[0] == answers[1] == (1, 1, 1, 0, False)


@db_session
def test_assignments(user: User) -> None:
    for obj in both(user):
        entry = WeightEntry(owner=obj, kg=Decimal("1"))
        entry.save()
        assert WeightEntry.objects.get(pk=entry.pk).owner_id == user.pk
        address = Address(country="DE", city="Bonn")
        address.owner = obj
        address.save()
        assert Address.objects.get(pk=address.pk).owner == user


@db_session
def test_equality_and_hash(user: User) -> None:
    django, entity = both(user)
    assert django == entity and entity == django
    assert hash(django) == hash(entity)
    assert {django, entity} == {django}


@db_session
def test_content_types_forms_serializers(user: User) -> None:
    django, entity = both(user)
    assert ContentType.objects.get_for_model(entity) == ContentType.objects.get_for_model(django)
    assert model_to_dict(entity) == model_to_dict(django)
    assert serializers.serialize("json", [entity]) == serializers.serialize("json", [django])
    assert serializers.serialize("python", [entity]) == serializers.serialize("python", [django])


def test_pickle(user: User) -> None:
    with db_session:
        data = pickle.dumps(User.p[user.pk])
    with db_session:
        restored = pickle.loads(data)
        assert restored == user and isinstance(restored, User) and is_entity_object(restored)
    # Outside any session (a cache read in a plain view): a Django instance of the row.
    cached = pickle.loads(data)
    assert is_django_instance(cached) and cached == user
    assert (cached.username, cached._state.db) == ("ann", "default")
    assert WeightEntry.objects.filter(owner=cached).count() == 1


@db_session
def test_model_method_hands_self_to_the_orm(user: User) -> None:
    post = Post.objects.create(title="t", author=user)
    assert Post.p[post.pk].weight_entries() == post.weight_entries() == [Decimal("70.5")]


@db_session
def test_third_party_descriptors(user: User) -> None:
    from djmoney.money import Money

    address = Address.objects.create(owner=user, country="NZ", city="Wellington")
    product = Product.objects.create(name="mug", price=Money("9.50", "EUR"))
    entity_address, entity_product = Address.p[address.pk], Product.p[product.pk]
    assert entity_address.country == address.country
    assert entity_address.country.name == "New Zealand"
    assert entity_product.price == product.price == Money("9.50", "EUR")
    entity_product.price = Money("3", "USD")
    assert (entity_product.price_currency, entity_product.price) == ("USD", Money("3", "USD"))
    entity_address.country = "FR"
    assert entity_address.country.code == "FR"


def test_unmapped_column_is_served_through_django() -> None:
    """A field djony cannot map (djony.W001) reads as Django reads it, in a resource too."""
    from django.test import RequestFactory
    from tastypie.resources import ModelResource

    from tastypie_djony.resources import DjonyResource
    from tests.testapp.models import Landmark, Point

    Landmark.objects.create(name="Tower", location=Point(1.5, 2.5))
    Landmark.objects.create(name="Gate", location=None)
    bodies = []
    for base in (ModelResource, DjonyResource):

        class LandmarkResource(base):
            class Meta:
                queryset = Landmark.objects.all()
                resource_name = "landmark"

            def dehydrate_location(self, bundle):
                location = bundle.obj.location
                return None if location is None else [location.x, location.y]

        resource = LandmarkResource()
        bodies.append(
            [
                resource.get_list(RequestFactory().get("/?format=json")).content,
                resource.get_detail(RequestFactory().get("/?format=json"), pk=1).content,
            ]
        )
    assert bodies[0] == bodies[1]
    assert b"[1.5, 2.5]" in bodies[1][0]


@pytest.mark.django_db(transaction=True)
def test_a_hook_changing_the_object_writes_nothing() -> None:
    """``bundle.obj.name = ...`` in a read hook changes no row (as on a Django instance)."""
    from django.test import RequestFactory
    from tastypie.resources import ModelResource

    from tastypie_djony.resources import DjonyResource
    from tests.thirdparty.models import Exercise

    bodies = []
    for base in (ModelResource, DjonyResource):
        Exercise.objects.all().delete()
        Exercise.objects.create(name="squat")

        class ShoutingResource(base):
            class Meta:
                queryset = Exercise.objects.all()
                resource_name = "shouting"

            def dehydrate(self, bundle):
                bundle.obj.name = bundle.obj.name.upper()
                bundle.data["shown"] = bundle.obj.name
                return bundle

        # The general path: DJONY_VERIFY_FAST_PATH would render twice in one session,
        # the second time with the object the first render changed.
        ShoutingResource._meta.fast_path = False
        resource = ShoutingResource()
        response = resource.wrap_view("dispatch_list")(RequestFactory().get("/?format=json"))
        bodies.append(json.loads(response.content)["objects"][0]["shown"])
        assert list(Exercise.objects.values_list("name", flat=True)) == ["squat"], base
    assert bodies == ["SQUAT", "SQUAT"]
