"""The models of the benchmark's real-world shapes: a pin board, an exercise wiki, points.

Written after the models the resources of three public Tastypie projects serve, in the
smallest form that keeps their APIs' shape (:mod:`example_project.showcase.realshapes`):

* a pin board (pinry): a :class:`Pin` by a submitting user, of an :class:`Image` with its
  :class:`Thumbnail` of each size (found by ``Image.get_by_size``, a related manager's
  ``get()``, as pinry's is), with :class:`Tag` names (a plain many-to-many, no
  django-taggit), some pins private;
* an exercise wiki (wger): an :class:`Exercise` known by its slug, in an
  :class:`ExerciseCategory`, working some :class:`Muscle` objects;
* points (django-oppia): :class:`Points` a user earned, each of a type.

Every model is ordered by a unique column, so each API lists the same rows in the same
order (tags by name: a pin's tags come out alike everywhere).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Image(models.Model):
    image = models.CharField(max_length=255)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.image

    def get_by_size(self, size: str) -> Thumbnail:
        """The thumbnail of ``size`` (pinry's: one query per call on Django)."""
        return self.thumbnail_set.get(size=size)


class Thumbnail(models.Model):
    original = models.ForeignKey(Image, on_delete=models.CASCADE)
    image = models.CharField(max_length=255)
    size = models.CharField(max_length=100)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]
        unique_together = [("original", "size")]

    def __str__(self) -> str:
        return self.image


class Tag(models.Model):
    name = models.CharField(max_length=100, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Pin(models.Model):
    submitter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="pins")
    url = models.CharField(max_length=2048, blank=True)
    origin = models.CharField(max_length=2048, blank=True)
    description = models.TextField(blank=True)
    private = models.BooleanField(default=False)
    published = models.DateTimeField()
    tags = models.ManyToManyField(Tag, related_name="pins", blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"pin {self.pk}"


class ExerciseCategory(models.Model):
    name = models.CharField(max_length=100, unique=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "exercise categories"

    def __str__(self) -> str:
        return self.name


class Muscle(models.Model):
    name = models.CharField(max_length=50)
    is_front = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Exercise(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    description = models.TextField()
    category = models.ForeignKey(ExerciseCategory, on_delete=models.PROTECT)
    muscles = models.ManyToManyField(Muscle, related_name="exercises", blank=True)
    creation_date = models.DateField()
    license_author = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Points(models.Model):
    TYPES = [
        ("signup", "Registration"),
        ("activitycompleted", "Activity completed"),
        ("quizattempt", "Quiz attempt"),
        ("coursedownloaded", "Course downloaded"),
    ]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    type = models.CharField(max_length=20, choices=TYPES)
    description = models.TextField()
    points = models.IntegerField()
    date = models.DateTimeField()

    class Meta:
        ordering = ["-date", "id"]
        verbose_name_plural = "points"

    def __str__(self) -> str:
        return f"{self.points} points for {self.user_id}"
