"""Related managers in hooks and authorization: the QuerySet API on
``bundle.obj.labels`` and ``bundle.obj.novel_set`` (Django's default
accessor), a related model with ``Meta.ordering`` (labels, descending) and
one whose default manager hides rows (critiques), and Tastypie's documented
``bundle.obj.authors.all()`` in an authorization class."""

from __future__ import annotations

from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.constants import ALL
from tastypie.exceptions import Unauthorized

from tests.patterns.models import Article, Critique, Label, Novel, Scribe


class AuthorsOnly(Authorization):
    """Anyone reads and creates; only an author's owner updates or deletes
    (Tastypie's ``PerUserAuthorization`` test idiom)."""

    def _is_author(self, obj, bundle) -> bool:
        return any(author.owner == bundle.request.user for author in obj.authors.all())

    def update_list(self, object_list, bundle):
        return [obj for obj in object_list if self._is_author(obj, bundle)]

    def update_detail(self, object_list, bundle):
        if self._is_author(bundle.obj, bundle):
            return True
        raise Unauthorized("Only an author may change this article.")

    def delete_list(self, object_list, bundle):
        return self.update_list(object_list, bundle)

    def delete_detail(self, object_list, bundle):
        return self.update_detail(object_list, bundle)


def label_summary(labels) -> dict:
    """What hook code asks of a related manager (each call its own query)."""
    first, last = labels.first(), labels.last()
    return {
        "count": labels.count(),
        "exists": labels.exists(),
        "first": first.name if first else None,
        "last": last.name if last else None,
        "all": [label.name for label in labels.all()],
        "pks": [label.pk for label in labels.all()],
        "len": len(labels.all()),
        "top2": [label.name for label in labels.all()[:2]],
        "filtered": [label.name for label in labels.filter(name__startswith="s")],
        "excluded": [label.name for label in labels.exclude(name="space")],
        "by_name": [label.name for label in labels.order_by("name")],
        "values": list(labels.values("name")),
        "values_list": list(labels.values_list("pk", flat=True)),
        "get": labels.get(pk=first.pk).name if first else None,
    }


def build(base: type) -> list[type]:
    class LabelResource(base):
        class Meta:
            queryset = Label.objects.all()
            resource_name = "label"
            authorization = Authorization()
            filtering = {"name": ALL}

    class CritiqueResource(base):
        """Through the default manager: unpublished critiques are not there."""

        novel_id = fields.IntegerField(attribute="novel_id")

        class Meta:
            queryset = Critique.objects.all()
            resource_name = "critique"
            authorization = Authorization()

    class NovelResource(base):
        labels = fields.ToManyField(LabelResource, "labels", null=True)
        critiques = fields.ToManyField(CritiqueResource, "critique_set", null=True, readonly=True)
        writer_id = fields.IntegerField(attribute="writer_id")
        writer_name = fields.CharField(attribute="writer__name", readonly=True)

        class Meta:
            queryset = Novel.objects.all()
            resource_name = "novel"
            authorization = Authorization()
            filtering = {"title": ALL, "year": ALL}

        def dehydrate(self, bundle):
            bundle.data["label_summary"] = label_summary(bundle.obj.labels)
            bundle.data["critique_texts"] = [c.text for c in bundle.obj.critique_set.all()]
            bundle.data["critique_count"] = bundle.obj.critique_set.count()
            return bundle

    class NovelistResource(base):
        """A writer with the novels of Django's default reverse accessor."""

        novels = fields.ToManyField(NovelResource, "novel_set", null=True, full=True)

        class Meta:
            queryset = Scribe.objects.all()
            resource_name = "novelist"
            fields = ["id", "name", "slug"]
            authorization = Authorization()

        def dehydrate(self, bundle):
            novels = bundle.obj.novel_set
            newest = novels.order_by("-year").first()
            bundle.data["novel_titles"] = [novel.title for novel in novels.all()]
            bundle.data["newest"] = newest.title if newest else None
            bundle.data["since_2014"] = novels.filter(year__gte=2014).count()
            bundle.data["critiques"] = sum(n.critique_set.count() for n in novels.all())
            bundle.data["years"] = list(novels.values_list("year", flat=True))
            return bundle

    class ArticleResource(base):
        authors = fields.ToManyField(NovelistResource, "authors")

        class Meta:
            queryset = Article.objects.all()
            resource_name = "article"
            authorization = AuthorsOnly()

        def dehydrate(self, bundle):
            bundle.data["author_names"] = [a.name for a in bundle.obj.authors.all()]
            return bundle

    return [LabelResource, CritiqueResource, NovelResource, NovelistResource, ArticleResource]
