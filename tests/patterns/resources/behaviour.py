"""Model behaviour seen through a resource: methods and properties (an abstract
parent's and a mixin's too), ``get_FOO_display``, ``get_absolute_url``, a
custom field's ``from_db_value``, attnames and ``pk``, and a proxy model
behind ``DjangoAuthorization``."""

from __future__ import annotations

from tastypie import fields
from tastypie.authorization import Authorization, DjangoAuthorization
from tastypie.constants import ALL

from tests.patterns.models import ActiveScribe, Scribe


def build(base: type) -> list[type]:
    class WriterResource(base):
        """Fields whose ``attribute`` is a property, a display method, ``__str__``."""

        full_name = fields.CharField(attribute="full_name", readonly=True)
        status_display = fields.CharField(attribute="get_status_display", readonly=True)
        # Tastypie splits an attribute on "__": "__str__" walks '', 'str', '' and
        # finds nothing (null), on ModelResource too; a callable reaches __str__.
        label = fields.CharField(attribute="__str__", readonly=True, null=True)
        text = fields.CharField(attribute=lambda bundle: str(bundle.obj), readonly=True)
        keywords = fields.ListField(attribute="keywords", default=list)
        owner_id = fields.IntegerField(attribute="owner_id", null=True, readonly=True)
        shout = fields.CharField(readonly=True, null=True)

        class Meta:
            queryset = Scribe.objects.all()
            resource_name = "writer"
            include_absolute_url = True
            authorization = Authorization()
            filtering = {"slug": ALL, "status": ALL}
            ordering = ["slug", "name"]

        def dehydrate_shout(self, bundle):
            return bundle.obj.shout()

        def dehydrate(self, bundle):
            obj = bundle.obj
            bundle.data["initials"] = obj.initials  # the abstract parent's property
            bundle.data["link"] = obj.get_absolute_url()  # the mixin's method
            bundle.data["pk"] = obj.pk
            bundle.data["repr"] = repr(obj)
            bundle.data["keyword_count"] = len(obj.keywords)
            bundle.data["status_is_active"] = obj.get_status_display() == "Active"
            return bundle

    class ActiveWriterResource(base):
        """A proxy model: DjangoAuthorization checks the proxy's own permissions."""

        badge = fields.CharField(attribute="badge", readonly=True)

        class Meta:
            queryset = ActiveScribe.objects.all()
            resource_name = "activewriter"
            fields = ["id", "name", "slug", "first_name", "last_name", "status"]
            authorization = DjangoAuthorization()

    class ProxyWriterResource(base):
        """A proxy model anyone may write: POST must create the concrete row."""

        badge = fields.CharField(attribute="badge", readonly=True)

        class Meta:
            queryset = ActiveScribe.objects.all()
            resource_name = "proxywriter"
            fields = ["id", "name", "slug", "first_name", "last_name", "status"]
            authorization = Authorization()

    return [WriterResource, ActiveWriterResource, ProxyWriterResource]
