"""The project's resources: every related field Tastypie has, on both bases.

* ``ForeignKey``, ``OneToOneField`` (forward and reverse), ``ToOneField``;
  ``ToManyField`` (a reverse foreign key), ``ManyToManyField``;
* ``to`` given as a class, as ``'self'``, as a dotted path, as a callable that
  returns the resource, and as a plain ``Resource`` (no model behind it);
* ``attribute`` given as a callable;
* ``GenericForeignKeyField`` over two models (``Story`` and ``Writer``), on a
  ``ModelResource`` and on a ``DjonyResource``; its ``to_class`` is a
  ``functools.partial`` of Tastypie's ``GenericResource``;
* a ``ModelResource`` whose ``Meta.queryset`` DjonyResource refuses
  (``values()``), so its twin cannot be built.
"""

from __future__ import annotations

from django.db.models import Count
from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.contrib.contenttypes.fields import GenericForeignKeyField
from tastypie.resources import ModelResource, Resource

from tastypie_djony.resources import DjonyResource
from tests.verify.project.models import Genre, Profile, Publisher, Reaction, Story, Writer

HERE = "tests.verify.project.resources"


class Shelfmark:
    """Where a story stands on the shelf: an object no model is behind."""

    def __init__(self, pk: int) -> None:
        self.pk = pk
        self.code = f"S-{pk:04d}"


class ShelfmarkResource(Resource):
    """A plain ``Resource``: it has no twin, and a field pointing at it keeps it."""

    code = fields.CharField(attribute="code")

    class Meta:
        resource_name = "shelfmark"
        object_class = Shelfmark
        allowed_methods = ["get"]

    def obj_get_list(self, bundle, **kwargs):
        return [Shelfmark(pk) for pk in Story.objects.values_list("pk", flat=True)]

    def obj_get(self, bundle, **kwargs):
        return Shelfmark(int(kwargs["pk"]))


class PublisherResource(ModelResource):
    class Meta:
        queryset = Publisher.objects.all()
        resource_name = "publisher"
        filtering = {"name": ALL}
        authorization = Authorization()


class WriterResource(ModelResource):
    publisher = fields.ForeignKey(PublisherResource, "publisher", null=True)
    mentor = fields.ToOneField("self", "mentor", null=True)
    profile = fields.OneToOneField(f"{HERE}.ProfileResource", "profile", null=True, full=True)
    stories = fields.ToManyField(f"{HERE}.StoryResource", "stories", null=True)

    class Meta:
        queryset = Writer.objects.all()
        resource_name = "writer"
        filtering = {"name": ALL, "publisher": ALL_WITH_RELATIONS, "mentor": ALL}
        ordering = ["name", "id"]
        authorization = Authorization()


class ProfileResource(DjonyResource):
    writer = fields.OneToOneField(WriterResource, "writer")

    class Meta:
        queryset = Profile.objects.all()
        resource_name = "profile"
        authorization = Authorization()


class GenreResource(DjonyResource):
    class Meta:
        queryset = Genre.objects.all()
        resource_name = "genre"
        filtering = {"name": ALL}
        authorization = Authorization()


def genre_resource() -> GenreResource:
    """A callable ``to``: Tastypie calls it for the related resource."""
    return GenreResource()


class StoryResource(ModelResource):
    writer = fields.ToOneField(WriterResource, "writer", full=True)
    genres = fields.ManyToManyField(GenreResource, "genres", null=True)
    genre_names = fields.ToManyField(
        genre_resource, attribute=lambda bundle: bundle.obj.genres.all(), null=True,
        readonly=True,
    )  # fmt: skip
    publisher = fields.ToOneField(
        PublisherResource, attribute=lambda bundle: bundle.obj.writer.publisher, null=True,
        readonly=True,
    )  # fmt: skip
    shelfmark = fields.ToOneField(
        ShelfmarkResource, attribute=lambda bundle: Shelfmark(bundle.obj.pk), readonly=True
    )

    class Meta:
        queryset = Story.objects.all()
        resource_name = "story"
        filtering = {"title": ALL, "writer": ALL_WITH_RELATIONS, "genres": ALL}
        ordering = ["title", "writer"]
        authorization = Authorization()


class ReactionResource(ModelResource):
    target = GenericForeignKeyField({Story: StoryResource, Writer: WriterResource}, "target")

    class Meta:
        queryset = Reaction.objects.all()
        resource_name = "reaction"
        filtering = {"kind": ALL, "target": ALL_WITH_RELATIONS}
        authorization = Authorization()


class DjonyReactionResource(DjonyResource):
    """The same generic foreign key on a DjonyResource (its twin is a ModelResource)."""

    target = GenericForeignKeyField(
        {Story: StoryResource, Writer: WriterResource}, "target", full=True
    )

    class Meta:
        queryset = Reaction.objects.all()
        resource_name = "djonyreaction"
        authorization = Authorization()


class StoryCountResource(ModelResource):
    """``values()`` in ``Meta.queryset``: DjonyResource refuses it, so there is no twin."""

    class Meta:
        queryset = Writer.objects.values("name").annotate(stories_count=Count("stories"))
        resource_name = "storycount"
