"""Models covering what a resource may sit on: nullable and defaulted columns, slug, UUID and
composite keys, proxy and multi-table inheritance, generic and self relations, a reverse
ForeignKey without ``related_name``, ``to_field`` and ``db_constraint=False`` keys, and
related models with and without ``Meta.ordering``."""

import uuid

from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models


class Caretaker(models.Model):
    """No ``Meta.ordering``: related lists of keepers come out in the database's order."""

    name = models.CharField(max_length=40)


class Badge(models.Model):
    """UUID-keyed, no ``Meta.ordering``."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    text = models.CharField(max_length=40)


class LivingManager(models.Manager):
    """The default manager: related managers of animals leave the dead out."""

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(alive=True)


class Scribble(models.Model):
    """Attached to anything through a GenericForeignKey."""

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveIntegerField()
    target = GenericForeignKey("content_type", "object_id")
    text = models.CharField(max_length=40)

    class Meta:
        ordering = ["text"]


class Animal(models.Model):
    name = models.CharField(max_length=40)
    nickname = models.CharField(max_length=40, null=True, default="anon")
    remarks = models.TextField(null=True)  # Tastypie gives it a default of ''
    born = models.DateTimeField(null=True)
    number = models.IntegerField(unique=True)  # a non-key integer detail_uri_name
    slug = models.SlugField(unique=True)
    alive = models.BooleanField(default=True)
    weight = models.DecimalField(max_digits=6, decimal_places=2, null=True)
    keeper = models.ForeignKey(Caretaker, null=True, on_delete=models.SET_NULL)  # keeper.animal_set
    mother = models.ForeignKey("self", null=True, on_delete=models.SET_NULL, related_name="young")
    labels = models.ManyToManyField(Badge, blank=True)
    keepers = models.ManyToManyField(Caretaker, blank=True, related_name="favourites")
    notes = GenericRelation(Scribble)

    objects = LivingManager()
    everyone = models.Manager()

    class Meta:
        ordering = ["number"]
        base_manager_name = "everyone"

    def get_absolute_url(self) -> str:
        return f"/zoo/animals/{self.slug}/"


class Pet(Animal):
    """A proxy: its resource reads the animals' table."""

    class Meta:
        proxy = True
        ordering = ["-number"]


class Bird(Animal):
    """Multi-table inheritance: a bird's row joins its animal's."""

    wingspan = models.IntegerField(default=0)


class Habitat(models.Model):
    """Slug-keyed."""

    code = models.SlugField(primary_key=True)
    name = models.CharField(max_length=40)
    animals = models.ManyToManyField(Animal, blank=True, related_name="habitats")

    class Meta:
        ordering = ["name"]


class Zone(models.Model):
    code = models.CharField(max_length=10, unique=True)
    name = models.CharField(max_length=40)


class Enclosure(models.Model):
    """``to_field`` and ``db_constraint=False`` keys."""

    name = models.CharField(max_length=40)
    zone = models.ForeignKey(
        Zone, to_field="code", on_delete=models.CASCADE, related_name="enclosures"
    )
    warden = models.ForeignKey(
        Caretaker, null=True, db_constraint=False, on_delete=models.DO_NOTHING, related_name="+"
    )
    guard = models.ForeignKey(
        Caretaker, db_constraint=False, on_delete=models.DO_NOTHING, related_name="guarded"
    )

    class Meta:
        ordering = ["-name"]


class Feeding(models.Model):
    """A composite primary key: djony leaves the model out and says so (``djony.W005``)."""

    pk = models.CompositePrimaryKey("animal_id", "keeper_id")
    animal = models.ForeignKey(Animal, on_delete=models.CASCADE, related_name="+")
    keeper = models.ForeignKey(Caretaker, on_delete=models.CASCADE, related_name="+")
    grams = models.IntegerField(default=0)
