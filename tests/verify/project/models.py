"""The project's models: a foreign key, a self-reference, a one-to-one, a many-to-many
and a generic foreign key over two models."""

from __future__ import annotations

from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models


class Reaction(models.Model):
    """A reaction to a story or to a writer (a ``GenericForeignKey`` over both)."""

    kind = models.CharField(max_length=20)
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveIntegerField()
    target = GenericForeignKey("content_type", "object_id")

    class Meta:
        ordering = ["id"]


class Publisher(models.Model):
    name = models.CharField(max_length=60)

    class Meta:
        ordering = ["id"]


class Writer(models.Model):
    name = models.CharField(max_length=60)
    publisher = models.ForeignKey(
        Publisher, null=True, blank=True, on_delete=models.SET_NULL, related_name="writers"
    )
    mentor = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="pupils"
    )
    reactions = GenericRelation(Reaction)

    class Meta:
        ordering = ["id"]


class Profile(models.Model):
    writer = models.OneToOneField(Writer, on_delete=models.CASCADE, related_name="profile")
    bio = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]


class Genre(models.Model):
    name = models.CharField(max_length=30)

    class Meta:
        ordering = ["name"]


class Story(models.Model):
    title = models.CharField(max_length=100)
    writer = models.ForeignKey(Writer, on_delete=models.CASCADE, related_name="stories")
    genres = models.ManyToManyField(Genre, blank=True, related_name="stories")
    reactions = GenericRelation(Reaction)

    class Meta:
        ordering = ["id"]
