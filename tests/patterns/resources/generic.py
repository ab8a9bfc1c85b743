"""Generic relations, as Tastypie's ``content_gfk`` test app has them:
``GenericForeignKeyField`` (read, write, schema) and a model with a
``GenericRelation`` exposed as a to-many field."""

from __future__ import annotations

from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.contrib.contenttypes.fields import GenericForeignKeyField

from tests.patterns.models import Memo, Quote, Rating


def build(base: type) -> list[type]:
    class MemoResource(base):
        class Meta:
            queryset = Memo.objects.all()
            resource_name = "memo"
            authorization = Authorization()

    class QuoteResource(base):
        class Meta:
            queryset = Quote.objects.all()
            resource_name = "quote"
            authorization = Authorization()

    class RatingResource(base):
        content_object = GenericForeignKeyField(
            {Quote: QuoteResource, Memo: MemoResource}, "content_object"
        )

        class Meta:
            queryset = Rating.objects.all()
            resource_name = "rating"
            authorization = Authorization()

    class RatedQuoteResource(base):
        ratings = fields.ToManyField(RatingResource, "ratings", null=True, full=True)

        class Meta:
            queryset = Quote.objects.all()
            resource_name = "ratedquote"
            authorization = Authorization()

        def dehydrate(self, bundle):
            bundle.data["average"] = (
                sum(r.rating for r in bundle.obj.ratings.all()) / bundle.obj.ratings.count()
                if bundle.obj.ratings.exists()
                else None
            )
            return bundle

    return [MemoResource, QuoteResource, RatingResource, RatedQuoteResource]
