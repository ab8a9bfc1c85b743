"""Keys of every common shape: a slug ``detail_uri_name``, a UUID primary key,
multi-table inheritance, a self-referential foreign key."""

from __future__ import annotations

from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.constants import ALL, ALL_WITH_RELATIONS

from tests.patterns.models import Cafe, Category, Token, Topic, Venue


def build(base: type) -> list[type]:
    class TopicResource(base):
        class Meta:
            queryset = Topic.objects.all()
            resource_name = "topic"
            detail_uri_name = "slug"
            authorization = Authorization()

    class TokenResource(base):
        class Meta:
            queryset = Token.objects.all()
            resource_name = "token"
            authorization = Authorization()

    class VenueResource(base):
        class Meta:
            queryset = Venue.objects.all()
            resource_name = "venue"
            authorization = Authorization()

    class CafeResource(base):
        class Meta:
            queryset = Cafe.objects.all()
            resource_name = "cafe"
            authorization = Authorization()

    class CategoryResource(base):
        parent = fields.ToOneField("self", "parent", null=True)
        children = fields.ToManyField("self", "children", null=True, readonly=True)

        class Meta:
            queryset = Category.objects.all()
            resource_name = "category"
            authorization = Authorization()
            filtering = {"name": ALL, "parent": ALL_WITH_RELATIONS}

        def dehydrate(self, bundle):
            parent = bundle.obj.parent
            bundle.data["parent_name"] = parent.name if parent else None
            bundle.data["child_names"] = [c.name for c in bundle.obj.children.all()]
            return bundle

    return [TopicResource, TokenResource, VenueResource, CafeResource, CategoryResource]
