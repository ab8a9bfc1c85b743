"""A pin board's API, shaped like pinry's ``PinResource``.

Each pin nests its submitter (``full=True``, a ``dehydrate_gravatar`` reading the user)
and its image (``full=True``), which nests its thumbnail of each size (``full=True``
fields whose ``attribute`` calls the model's ``get_by_size``, a related manager's
``get()``, as pinry's do); its tags are a ``ListField`` filled by ``dehydrate_tags``
from ``bundle.obj.tags.all()``.  A custom ``Authorization`` hides private pins from
everyone but their submitter, in ``read_list`` and ``read_detail``; ``prepend_urls``
routes a detail to numeric keys only; ``submitter`` filters with relations and
``?tag=a,b`` becomes ``tags__name__in`` in ``build_filters``, as pinry's do.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Q
from django.urls import re_path
from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.bundle import Bundle
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.exceptions import Unauthorized

from example_project.showcase.realshapes.models import Image, Pin, Thumbnail


def _viewer(bundle: Bundle) -> Any:
    """The request's authenticated user, or ``None``."""
    user = getattr(bundle.request, "user", None)
    return user if user is not None and user.is_authenticated else None


class PinBoardAuthorization(Authorization):
    """Anyone reads public pins; a private pin only its submitter."""

    def read_list(self, object_list: Any, bundle: Bundle) -> Any:
        viewer = _viewer(bundle)
        if viewer is None:
            return object_list.filter(private=False)
        return object_list.filter(Q(private=False) | Q(submitter=viewer))

    def read_detail(self, object_list: Any, bundle: Bundle) -> bool:
        viewer = _viewer(bundle)
        if bundle.obj.private and (viewer is None or bundle.obj.submitter_id != viewer.pk):
            raise Unauthorized("This pin is private.")
        return True


def _thumbnail(size: str) -> Any:
    """A field's ``attribute``: the image's thumbnail of ``size``."""
    return lambda bundle: bundle.obj.get_by_size(size)


def pin_resources(base: type, prefetch: bool = False) -> list[Any]:
    """The pin board's resources on ``base`` (``prefetch``: the querysets a careful
    ModelResource author writes, pinry's own: ``select_related`` of the submitter and
    image, ``prefetch_related`` of the tags and the image's thumbnails)."""
    pins = Pin.objects.all()
    if prefetch:
        pins = pins.select_related("submitter", "image").prefetch_related(
            "image__thumbnail_set", "tags"
        )

    class SubmitterResource(base):
        gravatar = fields.CharField(readonly=True)

        class Meta:
            queryset = User.objects.all()
            resource_name = "submitter"
            fields = ["username"]
            list_allowed_methods = ["get"]
            filtering = {"username": ALL, "id": ALL}
            include_resource_uri = False

        def dehydrate_gravatar(self, bundle: Bundle) -> str:
            digest = hashlib.md5(bundle.obj.email.strip().lower().encode()).hexdigest()
            return f"https://www.gravatar.com/avatar/{digest}"

    class ThumbnailResource(base):
        class Meta:
            queryset = Thumbnail.objects.all()
            resource_name = "thumbnail"
            fields = ["image", "width", "height"]
            list_allowed_methods = ["get"]
            include_resource_uri = False

    class ImageResource(base):
        standard = fields.ToOneField(ThumbnailResource, attribute=_thumbnail("standard"), full=True)
        thumbnail = fields.ToOneField(
            ThumbnailResource, attribute=_thumbnail("thumbnail"), full=True
        )
        square = fields.ToOneField(ThumbnailResource, attribute=_thumbnail("square"), full=True)

        class Meta:
            queryset = Image.objects.all()
            resource_name = "image"
            fields = ["image", "width", "height"]
            include_resource_uri = False

    class PinResource(base):
        submitter = fields.ToOneField(SubmitterResource, "submitter", full=True)
        image = fields.ToOneField(ImageResource, "image", full=True)
        tags = fields.ListField()

        class Meta:
            queryset = pins
            resource_name = "pin"
            fields = ["id", "url", "origin", "description", "published"]
            ordering = ["id"]
            filtering = {"submitter": ALL_WITH_RELATIONS, "published": ALL}
            allowed_methods = ["get"]
            include_resource_uri = False
            authorization = PinBoardAuthorization()

        def prepend_urls(self) -> list:
            return [
                re_path(
                    rf"^(?P<resource_name>{self._meta.resource_name})/(?P<pk>\d+)/$",
                    self.wrap_view("dispatch_detail"),
                    name="api_dispatch_detail",
                ),
            ]

        def dehydrate_tags(self, bundle: Bundle) -> list[str]:
            return [tag.name for tag in bundle.obj.tags.all()]

        def build_filters(self, filters: Any = None, ignore_bad_filters: bool = False) -> dict:
            orm_filters = super().build_filters(filters, ignore_bad_filters)
            if filters and "tag" in filters:
                orm_filters["tags__name__in"] = filters["tag"].split(",")
            return orm_filters

    return [SubmitterResource(), ThumbnailResource(), ImageResource(), PinResource()]
