"""Per-user objects, as Tastypie's authorization docs write them: the list
narrowed to ``owner=bundle.request.user``, details checked with
``bundle.obj.owner == bundle.request.user``, the owner assigned in
``hydrate()``; and an error message that quotes an object's ``repr()``."""

from __future__ import annotations

from django.contrib.auth.models import User
from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.exceptions import ApiFieldError, Unauthorized

from tests.patterns.models import Jotting


class UserObjectsOnlyAuthorization(Authorization):
    """The docs' ``UserObjectsOnlyAuthorization``."""

    def read_list(self, object_list, bundle):
        return object_list.filter(owner=bundle.request.user)

    def read_detail(self, object_list, bundle):
        return bundle.obj.owner == bundle.request.user

    def create_list(self, object_list, bundle):
        return object_list

    def create_detail(self, object_list, bundle):
        return bundle.obj.owner == bundle.request.user

    def update_list(self, object_list, bundle):
        return [obj for obj in object_list if obj.owner == bundle.request.user]

    def update_detail(self, object_list, bundle):
        return bundle.obj.owner == bundle.request.user

    def delete_list(self, object_list, bundle):
        return self.update_list(object_list, bundle)

    def delete_detail(self, object_list, bundle):
        if bundle.obj.owner != bundle.request.user:
            raise Unauthorized("Not yours.")
        return True


def build(base: type) -> list[type]:
    class MemberResource(base):
        class Meta:
            queryset = User.objects.all()
            resource_name = "member"
            fields = ["id", "username", "first_name"]
            authorization = Authorization()

    class NoteResource(base):
        owner = fields.ToOneField(MemberResource, "owner", readonly=True)

        class Meta:
            queryset = Jotting.objects.all()
            resource_name = "note"
            authorization = UserObjectsOnlyAuthorization()
            always_return_data = True

        def hydrate(self, bundle):
            """Every note belongs to whoever writes it."""
            bundle.obj.owner = bundle.request.user
            return bundle

        def hydrate_body(self, bundle):
            if bundle.data.get("body") == "forbidden":
                raise ApiFieldError(f"{bundle.obj!r} may not say that.")
            return bundle

        def dehydrate(self, bundle):
            bundle.data["owner_id"] = bundle.obj.owner_id
            bundle.data["mine"] = bundle.obj.owner == bundle.request.user
            bundle.data["reversed"] = bundle.request.user == bundle.obj.owner
            bundle.data["owner_name"] = bundle.obj.owner.username
            return bundle

    return [MemberResource, NoteResource]
