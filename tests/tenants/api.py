"""The tenant app's API, once per base class: ``tenants/v2`` (ModelResource) and
``tenants/v3`` (DjonyResource), the same resource code on both.

The authentication sets the thread's current tenant from the user named by the
``X-User`` header (and clears it for anyone else), as tenant middleware does.
Resources: ``note`` (stock authorization: the row-built path), ``hnote`` (a
``dehydrate`` hook: the bundle path), ``unote`` (``get_object_list`` by user),
``anote`` (an authorization filtering the list and checking each object),
``tenant`` (a plain manager whose ``notes`` come through the tenant manager),
``tag`` and ``comment`` (related resources, tenant-scoped), ``dnote``/``hdnote``
(a ``distinct()`` list without ``Meta.ordering``), ``label`` (a CharField key), ``vnote``
(a hook that updates the row it reads, then reads a related manager), ``rnote`` (a hook
that retags the tenant's other notes while the page is read).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import F
from tastypie import fields
from tastypie.api import Api
from tastypie.authentication import Authentication
from tastypie.authorization import Authorization
from tastypie.exceptions import Unauthorized
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.tenants.current import set_tenant
from tests.tenants.models import Tenant, TenantComment, TenantLabel, TenantNote, TenantTag


class TenantAuthentication(Authentication):
    """Anyone may read; ``X-User: <username>`` makes that user's tenant current."""

    def is_authenticated(self, request, **kwargs):
        username = request.META.get("HTTP_X_USER")
        user = User.objects.filter(username=username).select_related("tenant_member").first()
        member = getattr(user, "tenant_member", None) if user is not None else None
        set_tenant(member.tenant_id if member is not None else None)
        if user is not None:
            request.user = user
        return True


class OwnerAuthorization(Authorization):
    """The user's own notes: the list filtered, each object checked."""

    def read_list(self, object_list, bundle):
        return object_list.filter(owner__pk=getattr(bundle.request.user, "pk", None))

    def read_detail(self, object_list, bundle):
        if bundle.obj.owner_id != getattr(bundle.request.user, "pk", None):
            raise Unauthorized("Not yours.")
        return True


def build_api(api_name: str, base: type) -> Api:
    class TenantMeta:
        authentication = TenantAuthentication()
        authorization = Authorization()

    class TagResource(base):
        class Meta(TenantMeta):
            queryset = TenantTag.objects.all()
            resource_name = "tag"
            filtering = {"name": "exact"}

    class CommentResource(base):
        class Meta(TenantMeta):
            queryset = TenantComment.objects.all()
            resource_name = "comment"

    class NoteResource(base):
        tags = fields.ToManyField(TagResource, "tags", null=True)
        comments = fields.ToManyField(CommentResource, "comments", null=True)

        class Meta(TenantMeta):
            queryset = TenantNote.objects.all()
            resource_name = "note"
            fields = ["id", "title", "secret", "views", "score", "price"]
            filtering = {
                "title": "exact",
                "views": ("exact", "range", "gt"),
                "score": ("exact", "range"),
                "price": ("exact", "range"),
            }
            ordering = ["title", "views"]

    class HookedNoteResource(NoteResource):
        class Meta(NoteResource.Meta):
            resource_name = "hnote"

        def dehydrate(self, bundle):
            bundle.data["shout"] = bundle.obj.title.upper()
            return bundle

    class UserNoteResource(NoteResource):
        class Meta(NoteResource.Meta):
            resource_name = "unote"

        def get_object_list(self, request):
            return (
                super().get_object_list(request).filter(owner__pk=getattr(request.user, "pk", None))
            )

    class OwnNoteResource(NoteResource):
        class Meta(NoteResource.Meta):
            resource_name = "anote"
            authorization = OwnerAuthorization()

    class FullNoteResource(NoteResource):
        tags = fields.ToManyField(TagResource, "tags", null=True, full=True)

        class Meta(NoteResource.Meta):
            resource_name = "fnote"

    class DistinctNoteResource(base):
        """A distinct() list of a model without Meta.ordering: the database decides its order."""

        class Meta(TenantMeta):
            queryset = TenantNote.objects.filter(tags__name__contains="-").distinct()
            resource_name = "dnote"
            fields = ["title", "secret", "views"]
            filtering = {"views": "exact"}

    class HookedDistinctNoteResource(DistinctNoteResource):
        class Meta(DistinctNoteResource.Meta):
            resource_name = "hdnote"

        def dehydrate(self, bundle):
            bundle.data["shout"] = bundle.obj.title.upper()
            return bundle

    class LabelResource(base):
        class Meta(TenantMeta):
            queryset = TenantLabel.objects.all()
            resource_name = "label"

    class TenantResource(base):
        notes = fields.ToManyField(NoteResource, "notes", null=True)

        class Meta(TenantMeta):
            queryset = Tenant.objects.all()
            resource_name = "tenant"

    class ViewedNoteResource(NoteResource):
        class Meta(NoteResource.Meta):
            resource_name = "vnote"

        def dehydrate(self, bundle):
            bundle.data["seen"] = [bundle.obj.views, bundle.obj.title]
            TenantNote.objects.filter(pk=bundle.obj.pk).update(views=F("views") + 1)
            owner = bundle.obj.owner
            notes = owner.tenant_notes.all() if owner is not None else []
            bundle.data["owner_notes"] = [[n.pk, n.views] for n in notes]
            bundle.data["comment_count"] = bundle.obj.comments.count()
            return bundle

    class RetaggingNoteResource(FullNoteResource):
        """The tenant's first note's hook tags the tenant's other notes with a tag it
        creates through the tenant manager (``get_or_create``), and untags their own."""

        class Meta(FullNoteResource.Meta):
            resource_name = "rnote"
            fields = [*FullNoteResource.Meta.fields, "tags"]

        def dehydrate_title(self, bundle):
            note = bundle.obj
            first = TenantNote.objects.order_by("pk").first()
            if first is not None and note.pk == first.pk:
                seen, _ = TenantTag.objects.get_or_create(tenant_id=note.tenant_id, name="seen")
                for other in TenantNote.objects.exclude(pk=note.pk):
                    other.tags.add(seen)
                    other.tags.remove(*other.tags.exclude(pk=seen.pk))
            return note.title

        def dehydrate(self, bundle):
            bundle.data["tag_names"] = [tag.name for tag in bundle.obj.tags.all()]
            return bundle

    api = Api(api_name=api_name)
    for resource in (
        RetaggingNoteResource,
        TagResource,
        CommentResource,
        NoteResource,
        HookedNoteResource,
        UserNoteResource,
        OwnNoteResource,
        FullNoteResource,
        DistinctNoteResource,
        HookedDistinctNoteResource,
        TenantResource,
        LabelResource,
        ViewedNoteResource,
    ):
        api.register(resource())
    return api


REFERENCE = "tenants/v2"
TARGET = "tenants/v3"
APIS = {REFERENCE: build_api(REFERENCE, ModelResource), TARGET: build_api(TARGET, DjonyResource)}
