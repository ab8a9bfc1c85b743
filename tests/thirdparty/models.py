"""One model per third-party field or manager (see the package's docstring).

Written the way projects write them: model methods that query other models with
``self``, a ``save()`` with logic, default managers of the third-party app.
"""

import contextvars

from django.contrib.auth.models import User
from django.db import models
from django_countries.fields import CountryField
from djmoney.models.fields import MoneyField
from model_utils import Choices
from model_utils.fields import StatusField
from model_utils.managers import InheritanceManager
from model_utils.models import TimeStampedModel
from mptt.models import MPTTModel, TreeForeignKey
from polymorphic.models import PolymorphicModel
from sortedm2m.fields import SortedManyToManyField
from taggit.managers import TaggableManager


class Pin(models.Model):
    """pinry's pin: taggit tags, an owner."""

    submitter = models.ForeignKey(User, on_delete=models.CASCADE, related_name="pins")
    url = models.CharField(max_length=200)
    tags = TaggableManager(blank=True)

    def __str__(self):
        return self.url

    def same_submitter(self):
        """Other pins of this pin's submitter: ``self.submitter`` handed to a filter."""
        return Pin.objects.filter(submitter=self.submitter).exclude(pk=self.pk).count()


class Exercise(models.Model):
    name = models.CharField(max_length=50)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Workout(models.Model):
    """wger's workout set: exercises in the user's order (sortedm2m)."""

    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="workouts")
    title = models.CharField(max_length=50)
    exercises = SortedManyToManyField(Exercise, blank=True)

    def __str__(self):
        return self.title


class SubmissionQuerySet(models.QuerySet):
    """wger's: a queryset class that only adds methods."""

    def accepted(self):
        return self.filter(accepted=True)


class SubmissionManager(models.Manager):
    """wger's: ``get_queryset`` of its own, returning everything (hints dropped)."""

    def get_queryset(self):
        return SubmissionQuerySet(self.model, using=self._db)


class AcceptedManager(models.Manager):
    """A default manager that leaves rows out: a related manager's query filters too."""

    def get_queryset(self):
        return super().get_queryset().filter(accepted=True)


class Move(models.Model):
    """A sortedm2m target behind wger's ``SubmissionManager``."""

    name = models.CharField(max_length=50)
    accepted = models.BooleanField(default=True)
    objects = SubmissionManager()

    class Meta:
        ordering = ["name"]


class Drill(models.Model):
    """A sortedm2m target whose default manager filters."""

    name = models.CharField(max_length=50)
    accepted = models.BooleanField(default=True)
    objects = AcceptedManager()
    everything = models.Manager()


class Routine(models.Model):
    """Sorted and plain many-to-many relations over default managers of a project's own."""

    title = models.CharField(max_length=50)
    moves = SortedManyToManyField(Move, blank=True)
    drills = SortedManyToManyField(Drill, blank=True)
    warmups = models.ManyToManyField(Move, blank=True, related_name="warmup_routines")
    cooldowns = models.ManyToManyField(Drill, blank=True, related_name="cooldown_routines")

    def reps_of(self, kind):
        """The routine's repetitions of ``kind``: a related ``get()`` with ``self``."""
        return self.reps.get(kind=kind)


#: Whether the request being served hides what was not accepted (a per-request scope).
HIDING_UNACCEPTED = contextvars.ContextVar("hiding_unaccepted", default=False)


class ScopedSubmissionManager(models.Manager):
    """wger's ``SubmissionManager`` scoped per request: everything, unless the request
    hides what was not accepted (then a related manager's query filters too)."""

    def get_queryset(self):
        queryset = SubmissionQuerySet(self.model, using=self._db)
        return queryset.filter(accepted=True) if HIDING_UNACCEPTED.get() else queryset


class Rep(models.Model):
    """A routine's repetitions of one kind (wger's settings of a set), behind a manager of
    the project's own."""

    routine = models.ForeignKey(Routine, on_delete=models.CASCADE, related_name="reps")
    kind = models.CharField(max_length=20)
    count = models.IntegerField()
    accepted = models.BooleanField(default=True)
    objects = ScopedSubmissionManager()

    class Meta:
        ordering = ["kind", "pk"]

    def __str__(self):
        return f"{self.count} {self.kind}"


class WeightEntry(models.Model):
    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="weights")
    kg = models.DecimalField(max_digits=5, decimal_places=1)

    class Meta:
        ordering = ["pk"]


class Category(MPTTModel):
    name = models.CharField(max_length=50)
    parent = TreeForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )

    class MPTTMeta:
        order_insertion_by = ["name"]

    def __str__(self):
        return self.name


class Project(PolymorphicModel):
    topic = models.CharField(max_length=50)

    def __str__(self):
        return self.topic


class ArtProject(Project):
    artist = models.CharField(max_length=50)


class Post(TimeStampedModel):
    STATUS = Choices("draft", "published")

    title = models.CharField(max_length=50)
    status = StatusField()
    author = models.ForeignKey(User, on_delete=models.CASCADE, related_name="posts")

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return self.title

    def weight_entries(self):
        """A method handing ``self.author`` to another model's manager (wger's pattern)."""
        return list(WeightEntry.objects.filter(owner=self.author).values_list("kg", flat=True))


class Place(models.Model):
    name = models.CharField(max_length=50)
    objects = InheritanceManager()

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return self.name


class Cafe(Place):
    espresso = models.BooleanField(default=True)


class Product(models.Model):
    name = models.CharField(max_length=50)
    price = MoneyField(max_digits=10, decimal_places=2, default_currency="EUR")

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return self.name


class Address(models.Model):
    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="addresses")
    country = CountryField()
    city = models.CharField(max_length=50)

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return self.city
