"""``get_object_list`` overrides returning ``super().get_object_list(request)``
refined: ``filter()``, ``select_related()``, ``prefetch_related()`` and
``annotate()``."""

from __future__ import annotations

from django.db.models import Count
from tastypie import fields
from tastypie.authorization import Authorization

from tests.patterns.models import Novel


def build(base: type) -> list[type]:
    class NovelBase(base):
        writer_name = fields.CharField(attribute="writer__name", readonly=True)

        class Meta:
            queryset = Novel.objects.all()
            authorization = Authorization()

    class RecentNovelResource(NovelBase):
        class Meta(NovelBase.Meta):
            resource_name = "recentnovel"

        def get_object_list(self, request):
            return super().get_object_list(request).filter(year__gte=2010)

    class JoinedNovelResource(NovelBase):
        class Meta(NovelBase.Meta):
            resource_name = "joinednovel"

        def get_object_list(self, request):
            return super().get_object_list(request).select_related("writer")

    class PrefetchedNovelResource(NovelBase):
        label_names = fields.ListField(readonly=True, null=True)

        class Meta(NovelBase.Meta):
            resource_name = "prefetchednovel"

        def get_object_list(self, request):
            return super().get_object_list(request).prefetch_related("labels")

        def dehydrate_label_names(self, bundle):
            return [label.name for label in bundle.obj.labels.all()]

    class CountedNovelResource(NovelBase):
        label_count = fields.IntegerField(attribute="label_count", readonly=True)

        class Meta(NovelBase.Meta):
            resource_name = "countednovel"

        def get_object_list(self, request):
            return super().get_object_list(request).annotate(label_count=Count("labels"))

    return [
        RecentNovelResource,
        JoinedNovelResource,
        PrefetchedNovelResource,
        CountedNovelResource,
    ]
