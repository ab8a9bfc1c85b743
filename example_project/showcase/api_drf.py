"""The same data through Django REST framework, for comparison.

Written the way a DRF user typically would: ``ModelSerializer`` and a
read-only viewset whose queryset uses ``prefetch_related`` (so no N+1).
The JSON mimics Tastypie's shape so the three APIs serve the same data:

- list bodies are ``{"meta": {limit, next, offset, previous, total_count},
  "objects": [...]}`` with Tastypie's paging rules (``limit`` defaults to 20,
  ``limit=0`` means "up to ``max_limit``", 1000);
- every object has a relative ``resource_uri``; ``user_permissions`` is a
  list of permission URIs; datetimes are naive ISO 8601 in ``TIME_ZONE``.

What stays different (see example_project/README.md): key order and
whitespace (DRF's renderer writes compact JSON in field order, Tastypie sorts
keys and puts a space after ``:`` and ``,``), no filtering, and error bodies
in DRF's own format.  ``compare`` checks that the *data* is equal.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Permission, User
from django.db import models
from django.utils import timezone
from rest_framework import pagination, routers, serializers, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response


class TastypieDateTimeField(serializers.DateTimeField):
    """A datetime as Tastypie writes it: naive, in the default time zone, ISO 8601."""

    def to_representation(self, value: Any) -> str | None:
        if not value:
            return None
        if timezone.is_aware(value):
            value = timezone.make_naive(value, timezone.get_default_timezone())
        return value.isoformat()


class RelativeLinkMixin:
    """Links without scheme and host (``/api/drf/...``), like Tastypie's URIs."""

    def get_url(self, obj: Any, view_name: str, request: Any, format: Any) -> str | None:
        return super().get_url(obj, view_name, None, None)  # type: ignore[misc]


class RelativeLinkField(RelativeLinkMixin, serializers.HyperlinkedRelatedField):
    pass


class RelativeIdentityField(RelativeLinkMixin, serializers.HyperlinkedIdentityField):
    pass


class TastypieLikeSerializer(serializers.ModelSerializer):
    """A ``ModelSerializer`` whose datetimes come out as Tastypie's do."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.DateTimeField: TastypieDateTimeField,
    }


class PermissionSerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name="drf-permission-detail")

    class Meta:
        model = Permission
        fields = ["codename", "id", "name", "resource_uri"]


class UserSerializer(TastypieLikeSerializer):
    resource_uri = RelativeIdentityField(view_name="drf-user-detail")
    user_permissions = RelativeLinkField(
        view_name="drf-permission-detail", many=True, read_only=True
    )

    class Meta:
        model = User
        fields = [
            "date_joined",
            "email",
            "first_name",
            "id",
            "is_active",
            "is_staff",
            "is_superuser",
            "last_login",
            "last_name",
            "password",
            "resource_uri",
            "user_permissions",
            "username",
        ]


class TastypiePagination(pagination.BasePagination):
    """Tastypie's ``limit``/``offset`` paging and its ``meta`` block."""

    default_limit = 20
    max_limit = 1000

    def _int_param(self, request: Any, name: str, default: int) -> int:
        raw = request.query_params.get(name, default)
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise ValidationError({"error": f"Invalid {name} '{raw}' provided."}) from None
        if value < 0:
            raise ValidationError({"error": f"Invalid {name} '{raw}' provided."})
        return value

    def _uri(self, request: Any, limit: int, offset: int) -> str:
        params = request.query_params.copy()
        params["limit"] = str(limit)
        params["offset"] = str(offset)
        return f"{request.path}?{params.urlencode()}"

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> list:
        limit = self._int_param(request, "limit", self.default_limit)
        if self.max_limit and (not limit or limit > self.max_limit):
            limit = self.max_limit
        offset = self._int_param(request, "offset", 0)
        count = queryset.count()
        self.meta = {
            "limit": limit,
            "next": self._uri(request, limit, offset + limit) if offset + limit < count else None,
            "offset": offset,
            "previous": self._uri(request, limit, offset - limit) if offset - limit >= 0 else None,
            "total_count": count,
        }
        return list(queryset[offset : offset + limit] if limit else queryset[offset:])

    def get_paginated_response(self, data: list) -> Response:
        return Response({"meta": self.meta, "objects": data})


class PermissionViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Permission.objects.all()
    serializer_class = PermissionSerializer
    pagination_class = TastypiePagination


class UserViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = User.objects.prefetch_related("user_permissions")
    serializer_class = UserSerializer
    pagination_class = TastypiePagination


router = routers.SimpleRouter()
router.register("auth/permission", PermissionViewSet, basename="drf-permission")
router.register("auth/user", UserViewSet, basename="drf-user")
