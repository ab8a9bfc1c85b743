"""``Meta.cache = SimpleCache()``: details are cached, so objects are pickled."""

from __future__ import annotations

from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.cache import SimpleCache

from tests.patterns.models import Novel, Scribe


def build(base: type) -> list[type]:
    class CachedWriterResource(base):
        full_name = fields.CharField(attribute="full_name", readonly=True)

        class Meta:
            queryset = Scribe.objects.all()
            resource_name = "cachedwriter"
            fields = ["id", "name", "slug", "status"]
            authorization = Authorization()
            cache = SimpleCache(timeout=60)

    class CachedNovelResource(base):
        writer = fields.ToOneField(CachedWriterResource, "writer", full=True)

        class Meta:
            queryset = Novel.objects.all()
            resource_name = "cachednovel"
            authorization = Authorization()
            cache = SimpleCache(timeout=60)

    return [CachedWriterResource, CachedNovelResource]
