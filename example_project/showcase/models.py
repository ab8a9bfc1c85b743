"""The model of Tastypie's tutorial: a blog ``Entry`` by a Django user.

Copied from Tastypie's tutorial (``myapp/models.py``), with its ``save()`` that
fills the slug from the title.  The example's second comparison
(:mod:`example_project.showcase.tutorial`) serves it as the tutorial teaches.  The
models of the real-world shapes (:mod:`example_project.showcase.realshapes.models`) are
imported at the end, so the app registry finds them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.text import slugify
from django.utils.timezone import now


class Entry(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    pub_date = models.DateTimeField(default=now)
    title = models.CharField(max_length=200)
    slug = models.SlugField(null=True, blank=True)
    body = models.TextField()

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs) -> None:
        # For automatic slug generation (the tutorial's).
        if not self.slug:
            self.slug = slugify(self.title)[:50]
        return super().save(*args, **kwargs)


from example_project.showcase.realshapes.models import (  # noqa: E402
    Exercise,
    ExerciseCategory,
    Image,
    Muscle,
    Pin,
    Points,
    Tag,
)

__all__ = ["Entry", "Exercise", "ExerciseCategory", "Image", "Muscle", "Pin", "Points", "Tag"]
