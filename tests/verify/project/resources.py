"""The project's resources: every related field Tastypie has, on both bases.

* ``ForeignKey``, ``OneToOneField`` (forward and reverse), ``ToOneField``;
  ``ToManyField`` (a reverse foreign key), ``ManyToManyField``;
* ``to`` given as a class, as ``'self'``, as a dotted path, as a callable that
  returns the resource, and as a plain ``Resource`` (no model behind it);
* ``attribute`` given as a callable;
* ``GenericForeignKeyField`` over two models (``Poem`` and ``Poet``), on a
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
from tests.verify.project.models import Biography, Imprint, Poem, Poet, Response, Theme

HERE = "tests.verify.project.resources"


class Shelfmark:
    """Where a poem stands on the shelf: an object no model is behind."""

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
        return [Shelfmark(pk) for pk in Poem.objects.values_list("pk", flat=True)]

    def obj_get(self, bundle, **kwargs):
        return Shelfmark(int(kwargs["pk"]))


class ImprintResource(ModelResource):
    class Meta:
        queryset = Imprint.objects.all()
        resource_name = "imprint"
        filtering = {"name": ALL}
        authorization = Authorization()


class PoetResource(ModelResource):
    imprint = fields.ForeignKey(ImprintResource, "imprint", null=True)
    mentor = fields.ToOneField("self", "mentor", null=True)
    biography = fields.OneToOneField(f"{HERE}.BiographyResource", "biography", null=True, full=True)
    poems = fields.ToManyField(f"{HERE}.PoemResource", "poems", null=True)

    class Meta:
        queryset = Poet.objects.all()
        resource_name = "poet"
        filtering = {"name": ALL, "imprint": ALL_WITH_RELATIONS, "mentor": ALL}
        ordering = ["name", "id"]
        authorization = Authorization()


class BiographyResource(DjonyResource):
    poet = fields.OneToOneField(PoetResource, "poet")

    class Meta:
        queryset = Biography.objects.all()
        resource_name = "biography"
        authorization = Authorization()


class ThemeResource(DjonyResource):
    class Meta:
        queryset = Theme.objects.all()
        resource_name = "theme"
        filtering = {"name": ALL}
        authorization = Authorization()


def theme_resource() -> ThemeResource:
    """A callable ``to``: Tastypie calls it for the related resource."""
    return ThemeResource()


class PoemResource(ModelResource):
    poet = fields.ToOneField(PoetResource, "poet", full=True)
    themes = fields.ManyToManyField(ThemeResource, "themes", null=True)
    theme_names = fields.ToManyField(
        theme_resource, attribute=lambda bundle: bundle.obj.themes.all(), null=True,
        readonly=True,
    )  # fmt: skip
    imprint = fields.ToOneField(
        ImprintResource, attribute=lambda bundle: bundle.obj.poet.imprint, null=True,
        readonly=True,
    )  # fmt: skip
    shelfmark = fields.ToOneField(
        ShelfmarkResource, attribute=lambda bundle: Shelfmark(bundle.obj.pk), readonly=True
    )

    class Meta:
        queryset = Poem.objects.all()
        resource_name = "poem"
        filtering = {"title": ALL, "poet": ALL_WITH_RELATIONS, "themes": ALL}
        ordering = ["title", "poet"]
        authorization = Authorization()


class ResponseResource(ModelResource):
    target = GenericForeignKeyField({Poem: PoemResource, Poet: PoetResource}, "target")

    class Meta:
        queryset = Response.objects.all()
        resource_name = "response"
        filtering = {"kind": ALL, "target": ALL_WITH_RELATIONS}
        authorization = Authorization()


class DjonyResponseResource(DjonyResource):
    """The same generic foreign key on a DjonyResource (its twin is a ModelResource)."""

    target = GenericForeignKeyField({Poem: PoemResource, Poet: PoetResource}, "target", full=True)

    class Meta:
        queryset = Response.objects.all()
        resource_name = "djonyresponse"
        authorization = Authorization()


class PoemCountResource(ModelResource):
    """``values()`` in ``Meta.queryset``: DjonyResource refuses it, so there is no twin."""

    class Meta:
        queryset = Poet.objects.values("name").annotate(poems_count=Count("poems"))
        resource_name = "poemcount"
