"""DRF twins of the real-world shapes' resources (:mod:`example_project.showcase.realshapes`).

Written as a DRF user would: ``ModelSerializer`` subclasses, nested serializers for
``full=True``, ``SerializerMethodField`` for ``dehydrate_<field>``, ``to_representation``
for ``dehydrate()``, the filters of Tastypie's ``Meta.filtering`` in ``get_queryset``,
``select_related`` / ``prefetch_related`` querysets, the ``ApiKey`` header on the points.
Served at ``/api/shapes-drf/``; the benchmark checks their data equals ModelResource's
before timing.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils.html import strip_tags
from rest_framework import permissions, routers, serializers, viewsets
from rest_framework.renderers import JSONRenderer
from rest_framework_xml.renderers import XMLRenderer

from benchmarks.drf_variants import TastypieApiKeyAuthentication
from example_project.showcase.api_drf import (
    RelativeIdentityField,
    RelativeLinkField,
    TastypieLikeSerializer,
    TastypiePagination,
)
from example_project.showcase.realshapes.models import (
    Exercise,
    ExerciseCategory,
    Image,
    Muscle,
    Pin,
    Points,
    Thumbnail,
)
from example_project.showcase.realshapes.points import BONUS

NAME = "shapes-drf"


class SubmitterSerializer(TastypieLikeSerializer):
    gravatar = serializers.SerializerMethodField()

    class Meta:
        model = User
        fields = ["gravatar", "username"]

    def get_gravatar(self, user: User) -> str:
        digest = hashlib.md5(user.email.strip().lower().encode()).hexdigest()
        return f"https://www.gravatar.com/avatar/{digest}"


class ThumbnailSerializer(TastypieLikeSerializer):
    class Meta:
        model = Thumbnail
        fields = ["height", "image", "width"]


class ImageSerializer(TastypieLikeSerializer):
    square = serializers.SerializerMethodField()
    standard = serializers.SerializerMethodField()
    thumbnail = serializers.SerializerMethodField()

    class Meta:
        model = Image
        fields = ["height", "image", "square", "standard", "thumbnail", "width"]

    def _of(self, image: Image, size: str) -> dict:
        return ThumbnailSerializer(image.get_by_size(size)).data

    def get_square(self, image: Image) -> dict:
        return self._of(image, "square")

    def get_standard(self, image: Image) -> dict:
        return self._of(image, "standard")

    def get_thumbnail(self, image: Image) -> dict:
        return self._of(image, "thumbnail")


class PinSerializer(TastypieLikeSerializer):
    submitter = SubmitterSerializer(read_only=True)
    image = ImageSerializer(read_only=True)
    tags = serializers.SerializerMethodField()

    class Meta:
        model = Pin
        fields = ["description", "id", "image", "origin", "published", "submitter", "tags", "url"]

    def get_tags(self, pin: Pin) -> list[str]:
        return [tag.name for tag in pin.tags.all()]


class ExerciseSerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-exercise-detail", lookup_field="slug")
    category = RelativeLinkField(view_name=f"{NAME}-exercisecategory-detail", read_only=True)
    muscles = RelativeLinkField(view_name=f"{NAME}-muscle-detail", many=True, read_only=True)
    description = serializers.SerializerMethodField()

    class Meta:
        model = Exercise
        fields = [
            "category", "creation_date", "description", "id", "license_author", "muscles",
            "name", "resource_uri", "slug",
        ]  # fmt: skip

    def get_description(self, exercise: Exercise) -> str:
        return strip_tags(exercise.description)


class ExerciseCategorySerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-exercisecategory-detail")

    class Meta:
        model = ExerciseCategory
        fields = ["id", "name", "resource_uri"]


class MuscleSerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name=f"{NAME}-muscle-detail")

    class Meta:
        model = Muscle
        fields = ["id", "is_front", "name", "resource_uri"]


class PointsSerializer(TastypieLikeSerializer):
    class Meta:
        model = Points
        fields = ["date", "description", "id", "points", "type"]

    def to_representation(self, instance: Points) -> dict:
        data = super().to_representation(instance)
        data["date"] = instance.date.strftime("%Y-%m-%d %H:%M:%S")
        data["bonus"] = instance.points >= BONUS
        return data


def _in(request: Any, name: str) -> list[str] | None:
    value = request.query_params.get(name)
    return value.split(",") if value is not None else None


class PinViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = PinSerializer
    pagination_class = TastypiePagination

    def get_queryset(self) -> Any:
        pins = Pin.objects.select_related("submitter", "image").prefetch_related(
            "image__thumbnail_set", "tags"
        )
        user = self.request.user
        if user is not None and user.is_authenticated:
            pins = pins.filter(Q(private=False) | Q(submitter=user))
        else:
            pins = pins.filter(private=False)
        submitters = _in(self.request, "submitter__in")
        if submitters is not None:
            pins = pins.filter(submitter__in=submitters)
        tags = _in(self.request, "tag")
        if tags is not None:
            pins = pins.filter(tags__name__in=tags)
        return pins


class ExerciseViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ExerciseSerializer
    pagination_class = TastypiePagination
    lookup_field = "slug"
    renderer_classes = [JSONRenderer, XMLRenderer]  # ?format=xml as Tastypie's

    def get_queryset(self) -> Any:
        exercises = Exercise.objects.prefetch_related("muscles")
        categories = _in(self.request, "category__name__in")
        if categories is not None:
            exercises = exercises.filter(category__name__in=categories)
        search = self.request.query_params.get("name__icontains")
        if search is not None:
            exercises = exercises.filter(name__icontains=search)
        return exercises


class PointsViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = PointsSerializer
    pagination_class = TastypiePagination
    authentication_classes = [TastypieApiKeyAuthentication]
    permission_classes = [permissions.IsAuthenticated]

    def get_queryset(self) -> Any:
        return Points.objects.filter(user=self.request.user).order_by("-date")


class ExerciseCategoryViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = ExerciseCategory.objects.all()
    serializer_class = ExerciseCategorySerializer
    pagination_class = TastypiePagination


class MuscleViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Muscle.objects.all()
    serializer_class = MuscleSerializer
    pagination_class = TastypiePagination


router = routers.SimpleRouter()
for prefix, viewset in (
    ("pin", PinViewSet),
    ("exercise", ExerciseViewSet),
    ("exercisecategory", ExerciseCategoryViewSet),
    ("muscle", MuscleViewSet),
    ("points", PointsViewSet),
):
    router.register(prefix, viewset, basename=f"{NAME}-{prefix}")
