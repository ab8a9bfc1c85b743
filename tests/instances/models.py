"""Models whose instances carry behaviour: what djony's entity objects must reproduce."""

from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.urls import reverse
from django.utils.functional import cached_property


class Labelled:
    """A plain Python mixin (not a model)."""

    label_prefix = "#"

    def label(self):
        return f"{self.label_prefix}{self.pk}"


class Timestamped(models.Model):
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    def __str__(self):
        return f"timestamped {self.pk}"

    def describe(self):
        return f"{type(self).__name__.lower()}:{self}"


class VisibleManager(models.Manager):
    """A default manager that hides rows."""

    def get_queryset(self):
        return super().get_queryset().filter(hidden=False)


class Writer(Timestamped, Labelled):
    STATUSES = [("d", "Draft"), ("p", "Published")]

    first_name = models.CharField(max_length=50)
    last_name = models.CharField(max_length=50)
    status = models.CharField(max_length=1, choices=STATUSES, default="d")
    mentor = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)
    comments = GenericRelation("Comment")

    def __str__(self):
        return self.full_name

    def describe(self):
        return "writer " + super().describe()

    @property
    def full_name(self):
        return f"{self.first_name} {self.last_name}"

    @full_name.setter
    def full_name(self, value):
        self.first_name, self.last_name = value.split(" ", 1)

    @cached_property
    def initials(self):
        return f"{self.first_name[:1]}{self.last_name[:1]}"

    def get_absolute_url(self):
        return reverse("writer-page", args=[self.pk])

    @classmethod
    def kind(cls):
        return "person"

    @staticmethod
    def shout(text):
        return text.upper()


class Note(models.Model):
    writer = models.ForeignKey(Writer, on_delete=models.CASCADE)  # reverse: note_set
    text = models.CharField(max_length=50)
    rank = models.IntegerField(default=0)
    hidden = models.BooleanField(default=False)

    objects = VisibleManager()
    everything = models.Manager()

    class Meta:
        ordering = ["-rank", "id"]

    def __str__(self):
        return self.text


class Comment(models.Model):
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveIntegerField()
    target = GenericForeignKey("content_type", "object_id")
    body = models.CharField(max_length=50)

    class Meta:
        ordering = ["id"]


class CommaSeparatedField(models.TextField):
    """A custom field on a known column type that converts its values (a list of words)."""

    def from_db_value(self, value, expression, connection):
        return None if value is None else [word for word in value.split(",") if word]

    def to_python(self, value):
        if isinstance(value, list) or value is None:
            return value
        return [word for word in value.split(",") if word]

    def get_prep_value(self, value):
        return None if value is None else ",".join(value)


class Tagged(models.Model):
    words = CommaSeparatedField(null=True, blank=True)
