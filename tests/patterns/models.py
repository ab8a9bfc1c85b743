"""Models of the pattern corpus: what real projects put behind their resources.

Methods and properties (some from an abstract parent and a mixin), choices,
a custom field with ``from_db_value``, a proxy, related models with their own
ordering and a default manager that hides rows, ownership by a user, generic
relations, columns that PATCH must leave alone, refused deletes, and keys of
every common shape (slug, UUID, multi-table inheritance, a self-reference).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models


# --- model behaviour -----------------------------------------------------------
class CommaSeparatedField(models.TextField):
    """A list of strings stored as ``a,b,c`` (``from_db_value`` gives the list)."""

    def from_db_value(self, value, expression, connection):
        return self.to_python(value)

    def to_python(self, value):
        if value is None or isinstance(value, list):
            return value
        return [item for item in value.split(",") if item]

    def get_prep_value(self, value):
        if isinstance(value, list | tuple):
            return ",".join(str(item) for item in value)
        return value


class Named(models.Model):
    """An abstract parent giving ``name``, ``__str__`` and a property."""

    name = models.CharField(max_length=100)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.name

    @property
    def initials(self) -> str:
        return "".join(word[0] for word in self.name.split() if word).upper()


class LinkMixin:
    """A plain mixin giving ``get_absolute_url`` from the model's slug."""

    url_prefix = "/people/"

    def get_absolute_url(self) -> str:
        return f"{self.url_prefix}{self.slug}/"


class Scribe(LinkMixin, Named):
    STATUSES = [("d", "Draft"), ("a", "Active"), ("r", "Retired")]

    slug = models.SlugField(unique=True)
    first_name = models.CharField(max_length=50)
    last_name = models.CharField(max_length=50)
    status = models.CharField(max_length=1, choices=STATUSES, default="d")
    keywords = CommaSeparatedField(blank=True, default="")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="writers",
    )

    class Meta:
        ordering = ["slug"]

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    def shout(self) -> str:
        return self.name.upper() + "!"


class ActiveScribe(Scribe):
    """A proxy with a method of its own (and its own permissions)."""

    class Meta:
        proxy = True

    def badge(self) -> str:
        return f"{self.name} ({self.get_status_display()})"


# --- related managers ----------------------------------------------------------
class Label(models.Model):
    name = models.CharField(max_length=50, unique=True)

    class Meta:
        ordering = ["-name"]  # descending: the related model's own ordering shows


class Novel(models.Model):
    title = models.CharField(max_length=200)
    year = models.IntegerField(default=2000)
    writer = models.ForeignKey(Scribe, on_delete=models.CASCADE)  # writer.novel_set
    labels = models.ManyToManyField(Label, blank=True, related_name="novels")

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


class PublishedManager(models.Manager):
    """The default manager of :class:`Critique`: unpublished rows are hidden."""

    def get_queryset(self):
        return super().get_queryset().filter(published=True)


class Critique(models.Model):
    novel = models.ForeignKey(Novel, on_delete=models.CASCADE)  # novel.critique_set
    text = models.CharField(max_length=200)
    published = models.BooleanField(default=True)

    objects = PublishedManager()
    everything = models.Manager()

    class Meta:
        ordering = ["-id"]


class Article(models.Model):
    """Tastypie's authorization test app: ``article.authors.all()``."""

    title = models.CharField(max_length=200)
    authors = models.ManyToManyField(Scribe, related_name="articles")

    def __str__(self) -> str:
        return self.title


# --- ownership -------------------------------------------------------------------
class Jotting(models.Model):
    title = models.CharField(max_length=100)
    body = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pattern_notes"
    )

    def __str__(self) -> str:
        return self.title


# --- writes ------------------------------------------------------------------------
class PictureField(models.ImageField):
    """An ImageField without Pillow: no dimension fields, so Pillow is never needed
    (Django's check asks for it all the same)."""

    def check(self, **kwargs):
        return [e for e in super().check(**kwargs) if e.id != "fields.E210"]


class Document(models.Model):
    title = models.CharField(max_length=100)
    summary = models.CharField(max_length=100, blank=True)
    data = models.JSONField(null=True, blank=True)
    attachment = models.FileField(upload_to="docs", blank=True)
    picture = PictureField(upload_to="pictures", blank=True)
    blob = models.BinaryField(null=True, blank=True)
    price = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    remark = models.CharField(max_length=100, null=True, blank=True)

    def __str__(self) -> str:
        return self.title


class Account(models.Model):
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name


class AccountProfile(models.Model):
    account = models.OneToOneField(Account, on_delete=models.CASCADE, related_name="profile")
    bio = models.CharField(max_length=200, blank=True)


class Invoice(models.Model):
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="invoices")
    amount = models.DecimalField(max_digits=8, decimal_places=2)


class Shelf(models.Model):
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name


class Keeper(models.Model):
    shelf = models.ForeignKey(Shelf, on_delete=models.PROTECT, related_name="keepers")
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name


class Lender(models.Model):
    shelf = models.ForeignKey(Shelf, on_delete=models.RESTRICT, related_name="lenders")
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name


# --- keys of every shape -------------------------------------------------------------
class Topic(models.Model):
    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=100)


class Token(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    label = models.CharField(max_length=100)


class Venue(models.Model):
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name


class Cafe(Venue):
    seats = models.IntegerField(default=0)


class Category(models.Model):
    name = models.CharField(max_length=100)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )

    class Meta:
        ordering = ["name"]


# --- generic relations (Tastypie's content_gfk app) -------------------------------------
class Rating(models.Model):
    RATINGS = [(x, str(x)) for x in range(1, 6)]

    rating = models.PositiveIntegerField(choices=RATINGS, default=3)
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveIntegerField()
    content_object = GenericForeignKey("content_type", "object_id")

    class Meta:
        ordering = ["id"]


class Quote(models.Model):
    byline = models.CharField(max_length=100)
    content = models.TextField()
    ratings = GenericRelation(Rating)

    def __str__(self) -> str:
        return self.byline


class Memo(models.Model):
    title = models.CharField(max_length=100)
    content = models.TextField(blank=True)
