"""A learner's points, shaped like django-oppia's ``PointsResource``.

Behind ``ApiKeyAuthentication``; each user reads only their own points: the resource's
``authorized_read_list`` narrows the list to ``user=request.user`` and its
authorization refuses another user's detail.  Newest first (``order_by("-date")``);
``dehydrate()`` writes the date as oppia's clients read it and adds a computed key.
"""

from __future__ import annotations

from typing import Any

from tastypie.authentication import ApiKeyAuthentication
from tastypie.authorization import ReadOnlyAuthorization
from tastypie.bundle import Bundle
from tastypie.exceptions import Unauthorized

from example_project.showcase.realshapes.models import Points

#: Points at or above which an award counts as a bonus (the computed key).
BONUS = 50


class OwnPointsOnly(ReadOnlyAuthorization):
    """Read-only; a detail only for the user who earned it."""

    def read_detail(self, object_list: Any, bundle: Bundle) -> bool:
        if bundle.obj.user_id != bundle.request.user.pk:
            raise Unauthorized("Those are someone else's points.")
        return True


def points_resources(base: type, prefetch: bool = False) -> list[Any]:
    """The points resource on ``base`` (no relation is shown: ``prefetch`` changes nothing)."""

    class PointsResource(base):
        class Meta:
            queryset = Points.objects.all().order_by("-date")
            allowed_methods = ["get"]
            fields = ["id", "date", "description", "points", "type"]
            resource_name = "points"
            authentication = ApiKeyAuthentication()
            authorization = OwnPointsOnly()
            include_resource_uri = False
            always_return_data = True

        def authorized_read_list(self, object_list: Any, bundle: Bundle) -> Any:
            object_list = super().authorized_read_list(object_list, bundle)
            return object_list.filter(user=bundle.request.user)

        def dehydrate(self, bundle: Bundle) -> Bundle:
            bundle.data["date"] = bundle.data["date"].strftime("%Y-%m-%d %H:%M:%S")
            bundle.data["bonus"] = bundle.obj.points >= BONUS
            return bundle

    return [PointsResource()]
