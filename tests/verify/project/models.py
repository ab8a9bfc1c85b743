"""The project's models: a foreign key, a self-reference, a one-to-one, a many-to-many
and a generic foreign key over two models."""

from __future__ import annotations

from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models


class Response(models.Model):
    """A response to a poem or to a poet (a ``GenericForeignKey`` over both)."""

    kind = models.CharField(max_length=20)
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveIntegerField()
    target = GenericForeignKey("content_type", "object_id")

    class Meta:
        ordering = ["id"]


class Imprint(models.Model):
    name = models.CharField(max_length=60)

    class Meta:
        ordering = ["id"]


class Poet(models.Model):
    name = models.CharField(max_length=60)
    imprint = models.ForeignKey(
        Imprint, null=True, blank=True, on_delete=models.SET_NULL, related_name="poets"
    )
    mentor = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="pupils"
    )
    responses = GenericRelation(Response)

    class Meta:
        ordering = ["id"]


class Biography(models.Model):
    poet = models.OneToOneField(Poet, on_delete=models.CASCADE, related_name="biography")
    bio = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]


class Theme(models.Model):
    name = models.CharField(max_length=30)

    class Meta:
        ordering = ["name"]


class Poem(models.Model):
    title = models.CharField(max_length=100)
    poet = models.ForeignKey(Poet, on_delete=models.CASCADE, related_name="poems")
    themes = models.ManyToManyField(Theme, blank=True, related_name="poems")
    responses = GenericRelation(Response)

    class Meta:
        ordering = ["id"]
