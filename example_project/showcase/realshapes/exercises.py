"""An exercise wiki's API, shaped like wger's ``ExerciseResource``.

An exercise is known by its slug (``Meta.detail_uri_name = "slug"``, the detail routed
by ``prepend_urls``); its category is a ``ToOneField`` and its muscles a
``ToManyField``, both as URIs; ``dehydrate_description`` gives the description's
plain text, read from the object's column; ``category`` filters with relations, so
``?category__name__in=Arms,Legs`` works, as wger's filtering does.
"""

from __future__ import annotations

from typing import Any

from django.urls import re_path
from django.utils.html import strip_tags
from tastypie import fields
from tastypie.bundle import Bundle
from tastypie.constants import ALL, ALL_WITH_RELATIONS

from example_project.showcase.realshapes.models import Exercise, ExerciseCategory, Muscle


def exercise_resources(base: type, prefetch: bool = False) -> list[Any]:
    """The exercise wiki's resources on ``base`` (``prefetch``: with
    ``select_related("category")``, as Tastypie loads the category to write its URI, and
    ``prefetch_related("muscles")``)."""
    exercises = Exercise.objects.all()
    if prefetch:
        exercises = exercises.select_related("category").prefetch_related("muscles")

    class ExerciseCategoryResource(base):
        class Meta:
            queryset = ExerciseCategory.objects.all()
            resource_name = "exercisecategory"
            filtering = {"id": ALL, "name": ALL}
            allowed_methods = ["get"]

    class MuscleResource(base):
        class Meta:
            queryset = Muscle.objects.all()
            resource_name = "muscle"
            filtering = {"id": ALL, "name": ALL, "is_front": ALL}
            allowed_methods = ["get"]

    class ExerciseResource(base):
        category = fields.ToOneField(ExerciseCategoryResource, "category")
        muscles = fields.ToManyField(MuscleResource, "muscles")
        creation_date = fields.DateField(attribute="creation_date", null=True)

        class Meta:
            queryset = exercises
            resource_name = "exercise"
            detail_uri_name = "slug"
            allowed_methods = ["get"]
            filtering = {
                "id": ALL,
                "category": ALL_WITH_RELATIONS,
                "muscles": ALL_WITH_RELATIONS,
                "creation_date": ALL,
                "name": ALL,
                "slug": ALL,
            }

        def prepend_urls(self) -> list:
            return [
                re_path(
                    rf"^(?P<resource_name>{self._meta.resource_name})/(?P<slug>[\w-]+)/$",
                    self.wrap_view("dispatch_detail"),
                    name="api_dispatch_detail",
                ),
            ]

        def dehydrate_description(self, bundle: Bundle) -> str:
            return strip_tags(bundle.obj.description)

    return [ExerciseCategoryResource(), MuscleResource(), ExerciseResource()]
