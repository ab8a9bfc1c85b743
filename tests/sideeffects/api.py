"""The side-effects API, built twice: ``/se2/`` on ModelResource, ``/se3/`` on DjonyResource.

The resources are written as projects write them: ``full=True`` related
resources that nested bodies create, ``always_return_data`` on some, a
``dehydrate`` hook that calls a model method querying another model with
``self``, an ``obj_create`` override that writes a row of its own before
saving, a hook that writes a row and then refuses the request, hooks that
fail where :mod:`tests.sideeffects.failing` says, and read hooks that write
(``TouchedStoryResource``, ``PostingBloggerResource``).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.urls import include, path
from tastypie import fields, http
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.exceptions import ImmediateHttpResponse
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.sideeffects import failing
from tests.sideeffects import models as m

#: api_name -> base class; ``se2`` is the reference.
APIS = {"se2": ModelResource, "se3": DjonyResource}


def build_api(api_name: str, base: type) -> Api:
    def meta(model, **options):
        options.setdefault("authorization", Authorization())
        options.setdefault("queryset", model.objects.all())
        options.setdefault("resource_name", model._meta.model_name)
        options.setdefault("filtering", {"id": ("exact", "in"), "name": ("exact",)})
        return type("Meta", (), options)

    class BloggerResource(base):
        Meta = meta(m.Blogger, always_return_data=True)

    class KeywordResource(base):
        Meta = meta(m.Keyword)

    class BloggerNameResource(base):
        """Fewer fields than the model has: the rows' columns alone would be an index's."""

        Meta = meta(m.Blogger, resource_name="blogger_name", fields=["name"])

    class StoryResource(base):
        author = fields.ForeignKey(BloggerResource, "author", full=True)
        tags = fields.ManyToManyField(KeywordResource, "tags", full=True, null=True, blank=True)

        Meta = meta(m.Story, always_return_data=True, excludes=["edited"])

        def dehydrate(self, bundle):
            bundle.data["others_by_author"] = bundle.obj.others_by_author()
            bundle.data["is_post"] = isinstance(bundle.obj, m.Story)
            return bundle

    class FeaturedStoryResource(base):
        author = fields.ForeignKey(BloggerResource, "author")
        tags = fields.ManyToManyField(KeywordResource, "tags", null=True, blank=True)

        Meta = meta(m.FeaturedStory, excludes=["edited"])

    class ScribbleResource(base):
        Meta = meta(m.Memento, filtering={"text": ("exact", "startswith")})

    class EateryResource(base):
        Meta = meta(m.Eatery, always_return_data=True)

    class AuditedAuthorResource(base):
        """An ``obj_create`` that writes a row of its own, then saves (which may be refused)."""

        Meta = meta(m.Blogger, resource_name="audited_author")

        def obj_create(self, bundle, **kwargs):
            m.AuditRecord.objects.create(event="requested", model="author", detail=str(bundle.data))
            return super().obj_create(bundle, **kwargs)

    class GuardedTagResource(base):
        """A hydrate hook that writes a row and then refuses the request (401)."""

        Meta = meta(m.Keyword, resource_name="guarded_tag")

        def hydrate(self, bundle):
            m.AuditRecord.objects.create(event="refused", model="tag", detail=bundle.data["name"])
            if bundle.data["name"].startswith("x"):
                raise ImmediateHttpResponse(response=http.HttpUnauthorized())
            return bundle

    class ParcelResource(base):
        """Hooks where real projects have them, failing as :data:`failing.PLAN` says."""

        keywords = fields.ManyToManyField(KeywordResource, "keywords", null=True, blank=True)

        Meta = meta(m.Parcel, always_return_data=True, filtering={"id": ("exact", "in")})

        def hydrate(self, bundle):
            failing.trip("hydrate")
            return bundle

        def save_m2m(self, bundle):
            super().save_m2m(bundle)
            failing.trip("save_m2m")

        def dehydrate(self, bundle):
            failing.trip("dehydrate")
            return bundle

    class ArticleResource(base):
        """Hooks that use the object as a Django instance: it saves, refreshes, has ``_state``."""

        writer = fields.ForeignKey(BloggerResource, "writer", null=True)

        Meta = meta(m.Article)

        def dehydrate(self, bundle):
            article = bundle.obj
            bundle.data["exact_class"] = type(article) is m.Article
            bundle.data["state"] = [article._state.adding, article._state.db]
            bundle.data["views_now"] = article.bump()
            article.refresh_from_db()
            bundle.data["views_stored"] = article.views
            bundle.data["names"] = [
                article.set(),
                article.load(),
                article.flush(),
                article.to_dict(),
                article.get_pk(),
            ]
            bundle.data["same_row"] = article == m.Article.objects.get(pk=article.pk)
            return bundle

        def authorized_read_detail(self, object_list, bundle):
            if type(bundle.obj) is not m.Article:
                raise RuntimeError("the object authorization sees is not the model's instance")
            return super().authorized_read_detail(object_list, bundle)

    class FirstKeywordsResource(base):
        """A ``get_object_list()`` returning a sliced queryset: its details fail (its bug)."""

        Meta = meta(m.Keyword, resource_name="first_keywords")

        def get_object_list(self, request):
            return m.Keyword.objects.order_by("id")[:2]

    class NumberedKeywordResource(base):
        """A field whose value fails to convert (a name read as an integer): its 500."""

        name = fields.IntegerField(attribute="name")

        Meta = meta(m.Keyword, resource_name="numbered_keyword")

    class ReadingStoryResource(base):
        """A hook that reads the relations its full=True fields show, through the object."""

        author = fields.ForeignKey(BloggerResource, "author", full=True)
        tags = fields.ManyToManyField(KeywordResource, "tags", full=True, null=True)

        Meta = meta(m.Story, resource_name="reading_story", excludes=["edited"])

        def dehydrate(self, bundle):
            bundle.data["by"] = bundle.obj.author.name
            bundle.data["tag_names"] = [tag.name for tag in bundle.obj.tags.all()]
            bundle.data["tag_count"] = bundle.obj.tags.count()
            return bundle

    class TouchedStoryResource(base):
        """Read hooks that write, through the model: a ``dehydrate_title`` that saves the
        object (its ``save()`` counts a revision, receivers strip the title and audit), and a
        ``dehydrate()`` that retags another story, posts a new story by the same blogger (its
        ``save()`` bumps the blogger's counter by an ``UPDATE``), tries a duplicate keyword
        inside ``atomic()`` and catches the ``IntegrityError``, then reads back what changed.
        """

        author = fields.ForeignKey(BloggerResource, "author", full=True)
        tags = fields.ManyToManyField(KeywordResource, "tags", full=True, null=True)

        Meta = meta(m.Story, resource_name="touched_story", excludes=["edited"])

        def dehydrate_title(self, bundle):
            if bundle.obj.revision < 3:
                bundle.obj.title = f" {bundle.obj.title} "
                bundle.obj.save()
            return bundle.obj.title

        def dehydrate(self, bundle):
            story = bundle.obj
            if story.pk == 1:
                seen, _ = m.Keyword.objects.get_or_create(name="seen")
                # (one tag each: a story's tags come in the database's order, unordered)
                m.Story.objects.get(pk=2).tags.set([seen])
                m.Story.objects.create(author=story.author, title=f"Reply to {story.pk}")
            try:
                with transaction.atomic():
                    m.Keyword.objects.create(name="red")
                bundle.data["duplicate"] = "stored"
            except IntegrityError:
                bundle.data["duplicate"] = "refused"
            bundle.data["tag_names"] = [tag.name for tag in story.tags.all()]
            bundle.data["author_posts"] = story.author.posts_count
            bundle.data["stored_posts"] = m.Blogger.objects.get(pk=story.author_id).posts_count
            return bundle

    class GeneralTouchedStoryResource(TouchedStoryResource):
        """The same hooks on Tastypie's general path (no plan serves it)."""

        Meta = meta(
            m.Story, resource_name="general_touched_story", excludes=["edited"], fast_path=False
        )

    class PostingBloggerResource(base):
        """A blogger with their stories nested; a ``dehydrate_name`` that posts for "ben"."""

        posts = fields.ToManyField(StoryResource, "posts", full=True, null=True)

        Meta = meta(
            m.Blogger, resource_name="posting_blogger", queryset=m.Blogger.objects.order_by("pk")
        )

        def dehydrate_name(self, bundle):
            if bundle.obj.name == "ann":
                ben = m.Blogger.objects.get(name="ben")
                m.Story.objects.create(author=ben, title="Guest post")
            return bundle.obj.name

        def dehydrate(self, bundle):
            bundle.data["count"] = bundle.obj.posts.count()
            return bundle

    api = Api(api_name=api_name)
    for resource in (
        BloggerResource,
        KeywordResource,
        StoryResource,
        FeaturedStoryResource,
        ScribbleResource,
        EateryResource,
        AuditedAuthorResource,
        GuardedTagResource,
        ParcelResource,
        ArticleResource,
        BloggerNameResource,
        FirstKeywordsResource,
        NumberedKeywordResource,
        ReadingStoryResource,
        TouchedStoryResource,
        GeneralTouchedStoryResource,
        PostingBloggerResource,
    ):
        api.register(resource())
    return api


urlpatterns = [path("", include(build_api(name, base).urls)) for name, base in APIS.items()]
