"""The zoo's resources, built once per kind of base class.

``build_zoo_api(api_name, kind)`` returns a ``tastypie.api.Api`` whose resources differ
only in their base class:

``model``
    ``ModelResource`` (the reference);
``fast``
    ``DjonyResource``, the fast path on (the default);
``general``
    ``DjonyResource`` with ``Meta.fast_path = False``: every request on the general path.

Each resource is one configuration under which the row-built JSON path once answered
differently from ModelResource.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization, ReadOnlyAuthorization
from tastypie.bundle import Bundle
from tastypie.exceptions import ImmediateHttpResponse, Unauthorized
from tastypie.http import HttpForbidden
from tastypie.paginator import Paginator
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.zoo.models import (
    Animal,
    Badge,
    Bird,
    Caretaker,
    Enclosure,
    Habitat,
    Pet,
    Scribble,
    Zone,
)

KINDS = {"zm": "model", "zf": "fast", "zg": "general"}
REFERENCE = "zm"


class StampedPaginator(Paginator):
    """Puts a datetime into ``meta``: serialised with Tastypie's ``to_simple``."""

    def page(self):
        page = super().page()
        page["meta"]["generated"] = datetime.datetime(
            2021, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc
        )
        page["meta"]["day"] = datetime.date(2021, 3, 4)
        return page


def base_for(kind: str) -> type:
    return ModelResource if kind == "model" else DjonyResource


def meta_for(kind: str, queryset, **options) -> type:
    """A ``Meta`` with ``queryset``, ``options`` and, for ``general``, no fast path."""
    attrs = {"queryset": queryset, "authorization": ReadOnlyAuthorization(), **options}
    if kind == "general":
        attrs["fast_path"] = False
    return type("Meta", (), attrs)


def build_zoo_api(api_name: str, kind: str) -> tuple[Api, Api]:
    base = base_for(kind)

    def meta(queryset, **options) -> type:
        return meta_for(kind, queryset, **options)

    class CaretakerResource(base):
        Meta = meta(Caretaker.objects.all(), resource_name="keeper")

    class LabelResource(base):
        Meta = meta(Badge.objects.all(), resource_name="label")

    class NoteResource(base):
        Meta = meta(Scribble.objects.all(), resource_name="note", excludes=["content_type"])

    class AnimalBySlugResource(base):
        keeper = fields.ToOneField(CaretakerResource, "keeper", null=True)
        mother = fields.ToOneField("self", "mother", null=True)
        labels = fields.ToManyField(LabelResource, "labels", null=True)

        Meta = meta(Animal.objects.all(), resource_name="animal_by_slug", detail_uri_name="slug")

    class AnimalByNumberResource(base):
        mother = fields.ToOneField("self", "mother", null=True)
        young = fields.ToManyField("self", "young", null=True)

        Meta = meta(
            Animal.objects.all(), resource_name="animal_by_number", detail_uri_name="number"
        )

    class HabitatResource(base):
        animals = fields.ToManyField(AnimalBySlugResource, "animals", null=True)

        Meta = meta(Habitat.objects.all(), resource_name="habitat")

    class AnimalResource(base):
        keeper = fields.ToOneField(CaretakerResource, "keeper", null=True)
        mother = fields.ToOneField("self", "mother", null=True)
        young = fields.ToManyField("self", "young", null=True)
        labels = fields.ToManyField(LabelResource, "labels", null=True)
        habitats = fields.ToManyField(HabitatResource, "habitats", null=True)
        notes = fields.ToManyField(NoteResource, "notes", null=True)

        Meta = meta(Animal.objects.all(), resource_name="animal")

    class KeeperAnimalsResource(base):
        """A reverse ForeignKey under Django's default accessor; a reverse many-to-many."""

        animals = fields.ToManyField(AnimalResource, "animal_set", null=True)
        favourites = fields.ToManyField(AnimalByNumberResource, "favourites", null=True)

        Meta = meta(Caretaker.objects.all(), resource_name="keeper_animals")

    class PetResource(base):
        keeper = fields.ToOneField(CaretakerResource, "keeper", null=True)

        Meta = meta(Pet.objects.all(), resource_name="pet")

    class BirdResource(base):
        keeper = fields.ToOneField(CaretakerResource, "keeper", null=True)
        labels = fields.ToManyField(LabelResource, "labels", null=True)

        Meta = meta(Bird.objects.all(), resource_name="bird")

    class ZoneResource(base):
        Meta = meta(Zone.objects.all(), resource_name="zone")

    class EnclosureResource(base):
        zone = fields.ToOneField(ZoneResource, "zone")
        warden = fields.ToOneField(CaretakerResource, "warden", null=True)
        zone_mates = fields.ToManyField("self", "zone__enclosures", null=True)

        Meta = meta(Enclosure.objects.all(), resource_name="enclosure", excludes=["guard"])

    class GuardedEnclosureResource(base):
        guard = fields.ToOneField(CaretakerResource, "guard")

        Meta = meta(Enclosure.objects.all(), resource_name="guarded_enclosure")

    class ZoneEnclosuresResource(base):
        """A reverse to-many over ``ForeignKey(to_field="code")``."""

        enclosures = fields.ToManyField(EnclosureResource, "enclosures", null=True)

        Meta = meta(Zone.objects.all(), resource_name="zone_enclosures")

    # -- authorization hooks -------------------------------------------------------
    class OddDeniedResource(base):
        """Stock ``Authorization``; the detail hook refuses animals with an odd number."""

        Meta = meta(Animal.objects.all(), resource_name="odd_denied", authorization=Authorization())

        def authorized_read_detail(self, object_list, bundle):
            if bundle.obj.number % 2:
                self.unauthorized_result(Unauthorized("odd"))
            return super().authorized_read_detail(object_list, bundle)

    class ForbiddenDetailResource(base):
        """Stock ``ReadOnlyAuthorization``; the detail hook always answers 403."""

        Meta = meta(Animal.objects.all(), resource_name="forbidden_detail")

        def authorized_read_detail(self, object_list, bundle):
            raise ImmediateHttpResponse(response=HttpForbidden())

    class NarrowListResource(base):
        """Stock ``ReadOnlyAuthorization``; the list hook keeps small numbers only."""

        Meta = meta(Animal.objects.all(), resource_name="narrow_list")

        def authorized_read_list(self, object_list, bundle):
            return super().authorized_read_list(object_list.filter(number__lt=30), bundle)

    class DeniedListResource(base):
        """Stock ``Authorization``; the list hook refuses everyone."""

        Meta = meta(
            Animal.objects.all(), resource_name="denied_list", authorization=Authorization()
        )

        def authorized_read_list(self, object_list, bundle):
            self.unauthorized_result(Unauthorized("no lists"))

    # -- URIs built another way --------------------------------------------------
    class NamespacedKeeperResource(base):
        Meta = meta(
            Caretaker.objects.all(), resource_name="keeper", urlconf_namespace=f"zoo-{api_name}"
        )

        def _build_reverse_url(self, name, args=None, kwargs=None):
            from django.urls import reverse

            return reverse(f"{self._meta.urlconf_namespace}:{name}", args=args, kwargs=kwargs)

    class NamespacedAnimalResource(base):
        keeper = fields.ToOneField(NamespacedKeeperResource, "keeper", null=True)

        Meta = meta(
            Animal.objects.all(), resource_name="animal", urlconf_namespace=f"zoo-{api_name}"
        )

        def _build_reverse_url(self, name, args=None, kwargs=None):
            from django.urls import reverse

            return reverse(f"{self._meta.urlconf_namespace}:{name}", args=args, kwargs=kwargs)

    class TaggedKeeperResource(base):
        """Overrides ``get_resource_uri`` and ``detail_uri_kwargs``."""

        Meta = meta(Caretaker.objects.all(), resource_name="tagged_keeper")

        def detail_uri_kwargs(self, bundle_or_obj):
            obj = getattr(bundle_or_obj, "obj", bundle_or_obj)
            return {"pk": obj.pk}

        def get_resource_uri(self, bundle_or_obj=None, url_name="api_dispatch_list"):
            uri = super().get_resource_uri(bundle_or_obj, url_name)
            return uri + "?tagged=1" if bundle_or_obj is not None else uri

    class KwargsAnimalResource(base):
        """Overrides ``resource_uri_kwargs``; to-ones point at resources with overrides."""

        keeper = fields.ToOneField(TaggedKeeperResource, "keeper", null=True)

        Meta = meta(Animal.objects.all(), resource_name="kwargs_animal")

        def resource_uri_kwargs(self, bundle_or_obj=None):
            kwargs = super().resource_uri_kwargs(bundle_or_obj)
            if "pk" in kwargs:
                kwargs["pk"] = f"{kwargs['pk']}-x"
            return kwargs

    class ModelKeeperResource(ModelResource):
        """Always a ModelResource: the related resource of a migration in progress."""

        Meta = meta(Caretaker.objects.all(), resource_name="model_keeper")

    class MixedAnimalResource(base):
        keeper = fields.ToOneField(ModelKeeperResource, "keeper", null=True)

        Meta = meta(Animal.objects.all(), resource_name="mixed_animal")

    # -- fields and pages ------------------------------------------------------------
    class DefaultsAnimalResource(base):
        """Explicit nullable fields with defaults (Tastypie checks ``null`` first)."""

        nickname = fields.CharField("nickname", null=True, default="anon")
        remarks = fields.CharField("remarks", null=True, default="")
        weight = fields.DecimalField("weight", null=True, default="1.5")
        born = fields.DateTimeField("born", null=True, default=None)

        Meta = meta(Animal.objects.all(), resource_name="defaults_animal", fields=["name"])

    class DistinctAnimalResource(base):
        Meta = meta(
            Animal.objects.filter(labels__text__startswith="l").distinct(),
            resource_name="distinct_animal",
            fields=["alive"],
            include_resource_uri=False,
        )

    class StampedAnimalResource(base):
        Meta = meta(
            Animal.objects.all(),
            resource_name="stamped_animal",
            paginator_class=StampedPaginator,
            fields=["name"],
        )

    class UriAttributeAnimalResource(base):
        resource_uri = fields.CharField(attribute="slug", readonly=True)

        Meta = meta(Animal.objects.all(), resource_name="uri_attribute_animal", fields=["name"])

    class AbsoluteAnimalResource(base):
        Meta = meta(
            Animal.objects.all(),
            resource_name="absolute_animal",
            include_absolute_url=True,
            fields=["name"],
        )

    # -- hooks (served by the bundle plan, tastypie_djony.serve.plans) --------------------
    class HookedAnimalResource(base):
        """Hooks as real resources write them; each shows what it saw in ``bundle.data``."""

        keeper = fields.ToOneField(CaretakerResource, "keeper", null=True)
        labels = fields.ToManyField(LabelResource, "labels", null=True)
        # asked with the bundle: which fields were filled before it
        shy = fields.CharField("slug", use_in=lambda bundle: "labels" in bundle.data)

        Meta = meta(
            Animal.objects.all(),
            resource_name="hooked_animal",
            filtering={"number": ("gt", "in")},
            ordering=["name"],
        )

        def dehydrate_name(self, bundle):
            return f"{bundle.data['name']}:{'/'.join(bundle.data)}"

        def dehydrate_born(self, bundle):
            born = bundle.data["born"]  # a datetime (as convert leaves it) or None
            return born if born is None else born.replace(year=2000)

        def dehydrate_weight(self, bundle):
            weight = bundle.data["weight"]  # a Decimal or None
            return weight if weight is None else weight * 2

        def dehydrate(self, bundle):
            bundle.data["seen"] = list(bundle.data)
            if bundle.data["labels"] is not None:  # in place: each bundle's list is its own
                bundle.data["labels"].append("(hooked)")
            if bundle.data["number"] % 2:  # only some rows read their object
                animal = bundle.obj
                bundle.data["object"] = repr(animal)
                bundle.data["keeper_name"] = animal.keeper.name if animal.keeper else None
                bundle.data["label_count"] = animal.labels.count()
                bundle.data["url"] = animal.get_absolute_url()
            bundle.data["extras"] = {
                "pair": (1, "a"),
                "day": datetime.date(2020, 1, 2),
                "when": datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
                "price": Decimal("1.50"),
                "nothing": None,
                "ratio": 0.25,
            }
            return bundle

        def alter_list_data_to_serialize(self, request, data):
            data["meta"]["hooked"] = [type(item).__name__ == "dict" for item in data["objects"]]
            return data

    class FullHookedAnimalResource(base):
        """``full=True`` to-one and to-many with hooks reading the nested bundles."""

        keeper = fields.ToOneField(CaretakerResource, "keeper", null=True, full=True)
        labels = fields.ToManyField(LabelResource, "labels", null=True, full=True)
        mother = fields.ToOneField("self", "mother", null=True)

        Meta = meta(
            Animal.objects.all(),
            resource_name="full_hooked_animal",
            fields=["name"],
            filtering={"name": ("exact",)},
        )

        def dehydrate_labels(self, bundle):
            seen = "/".join(bundle.data)  # the fields filled before it
            return [seen, *(label.data["text"].upper() for label in bundle.data["labels"])]

        def dehydrate(self, bundle):
            keeper = bundle.data["keeper"]
            bundle.data["keeper_repr"] = None if keeper is None else repr(keeper.obj)
            return bundle

    class HookedKeeperResource(base):
        """Nested with ``full=True``: its hooks run per owner, in detail mode (Tastypie's)."""

        favourites = fields.ToManyField(
            AnimalByNumberResource, "favourites", null=True, full=True, use_in="detail"
        )

        Meta = meta(Caretaker.objects.all(), resource_name="hooked_keeper")

        def dehydrate_name(self, bundle):
            return f"{bundle.data['name']}:{'/'.join(bundle.data)}"

        def dehydrate(self, bundle):
            bundle.data["animal_count"] = bundle.obj.animal_set.count()
            return bundle

    class NestingAnimalResource(base):
        """``full=True`` two levels deep; ``full_list=False``: URIs in lists only."""

        keeper = fields.ToOneField(HookedKeeperResource, "keeper", null=True, full=True)
        habitats = fields.ToManyField(HabitatResource, "habitats", null=True, full=True)
        labels = fields.ToManyField(LabelResource, "labels", null=True, full=True, full_list=False)

        Meta = meta(Animal.objects.all(), resource_name="nesting_animal", fields=["name", "number"])

        def dehydrate(self, bundle):
            bundle.data["habitat_names"] = [h.data["name"] for h in bundle.data["habitats"]]
            return bundle

    class ReplacingAnimalResource(base):
        """``dehydrate()`` returns another bundle; ``bundle.obj`` is assigned."""

        Meta = meta(Animal.objects.all(), resource_name="replacing_animal", fields=["name"])

        def dehydrate(self, bundle):
            other = Bundle(obj=bundle.obj, data={"only": bundle.data["name"]})
            other.obj = bundle.obj.mother
            other.data["mother"] = repr(other.obj)
            return other

    resources = [
        HookedAnimalResource,
        FullHookedAnimalResource,
        HookedKeeperResource,
        NestingAnimalResource,
        ReplacingAnimalResource,
        AbsoluteAnimalResource,
        CaretakerResource,
        LabelResource,
        NoteResource,
        HabitatResource,
        AnimalResource,
        AnimalBySlugResource,
        AnimalByNumberResource,
        PetResource,
        BirdResource,
        KeeperAnimalsResource,
        ZoneResource,
        EnclosureResource,
        ZoneEnclosuresResource,
        GuardedEnclosureResource,
        OddDeniedResource,
        ForbiddenDetailResource,
        NarrowListResource,
        DeniedListResource,
        TaggedKeeperResource,
        KwargsAnimalResource,
        ModelKeeperResource,
        MixedAnimalResource,
        DefaultsAnimalResource,
        DistinctAnimalResource,
        StampedAnimalResource,
        UriAttributeAnimalResource,
    ]
    api = Api(api_name=api_name)
    for resource in resources:
        api.register(resource())
    namespaced = Api(api_name=api_name)
    namespaced.register(NamespacedKeeperResource())
    namespaced.register(NamespacedAnimalResource())
    return api, namespaced
