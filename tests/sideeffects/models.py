"""Models with logic, the way real projects write them: the writes' side effects suite.

``Story.save()`` fills the slug from the title, counts revisions and keeps the
blogger's story counter; ``Story.delete()`` leaves an epitaph; ``Memento.delete()``
soft-deletes; ``Eatery`` is a multi-table child of ``Spot``; ``FeaturedStory``
is a proxy with receivers of its own; the receivers in :mod:`tests.sideeffects.receivers`
change a field before a save, write audit rows after it (another model) and log
every signal Django sends for this app, in order, with its arguments.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F
from django.utils.text import slugify


class Blogger(models.Model):
    name = models.CharField(max_length=50, unique=True)
    posts_count = models.IntegerField(default=0)

    def __str__(self) -> str:
        return self.name


class Keyword(models.Model):
    name = models.CharField(max_length=30, unique=True)

    def __str__(self) -> str:
        return self.name


class Story(models.Model):
    author = models.ForeignKey(Blogger, on_delete=models.CASCADE, related_name="posts")
    title = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, blank=True, default="")
    revision = models.IntegerField(default=0)
    tags = models.ManyToManyField(Keyword, blank=True, related_name="posts")
    edited = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.title)
        self.revision += 1
        created = self._state.adding
        super().save(*args, **kwargs)
        if created:
            Blogger.objects.filter(pk=self.author_id).update(posts_count=F("posts_count") + 1)

    def delete(self, *args, **kwargs):
        Epitaph.objects.create(model="post", key=self.pk, title=self.title)
        Blogger.objects.filter(pk=self.author_id).update(posts_count=F("posts_count") - 1)
        return super().delete(*args, **kwargs)

    def others_by_author(self) -> int:
        """A model method that queries another model with ``self``."""
        return Story.objects.filter(author=self.author).exclude(pk=self.pk).count()


class FeaturedStory(Story):
    class Meta:
        proxy = True


class Epitaph(models.Model):
    model = models.CharField(max_length=20)
    key = models.IntegerField()
    title = models.CharField(max_length=100)


class AuditRecord(models.Model):
    """Written by receivers (an audit trail, as django-auditlog keeps one)."""

    event = models.CharField(max_length=40)
    model = models.CharField(max_length=40)
    key = models.CharField(max_length=40, null=True)
    detail = models.CharField(max_length=200, blank=True, default="")


class Memento(models.Model):
    """Deleted softly: ``delete()`` marks the row."""

    text = models.CharField(max_length=100)
    hidden = models.BooleanField(default=False)

    class Meta:
        # Without an order the database picks a list's order (PostgreSQL lists an
        # updated row last): tests/serve/test_unordered.py is about that order, this
        # suite is about writes.
        ordering = ["id"]

    def delete(self, using=None, keep_parents=False):
        self.hidden = True
        self.save(update_fields=["hidden"])
        return 0, {}


class Spot(models.Model):
    name = models.CharField(max_length=50)


class Eatery(Spot):
    serves_pizza = models.BooleanField(default=False)


class Parcel(models.Model):
    """A model whose writes meet the failures of :mod:`tests.sideeffects.failing`."""

    label = models.CharField(max_length=50, unique=True)
    weight = models.IntegerField(default=1)
    keywords = models.ManyToManyField(Keyword, blank=True, related_name="parcels")

    class Meta:
        ordering = ["id"]

    def delete(self, *args, **kwargs):
        from tests.sideeffects import failing

        result = super().delete(*args, **kwargs)
        failing.trip("delete")
        return result


class Article(models.Model):
    """Methods with the names Pony's objects have, and a view counter a read writes."""

    title = models.CharField(max_length=100)
    views = models.IntegerField(default=0)
    writer = models.ForeignKey(Blogger, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["id"]

    def bump(self) -> int:
        """A view counter: the read request saves the object it shows."""
        self.views += 1
        self.save(update_fields=["views"])
        return self.views

    def set(self) -> str:
        return f"set {self.title}"

    def load(self) -> str:
        return f"load {self.pk}"

    def flush(self) -> str:
        return "flushed"

    def to_dict(self) -> dict:
        return {"title": self.title}

    def get_pk(self) -> str:
        return f"pk={self.pk}"
