"""Models covering every field type and relation kind djony maps."""

import uuid

from django.db import models
from django.utils import timezone


def default_code() -> str:
    return uuid.uuid4().hex[:8]


class AllTypes(models.Model):
    """One column of every built-in concrete field type."""

    char = models.CharField(max_length=100, blank=True, help_text="Some text")
    text = models.TextField(blank=True)
    slug = models.SlugField(blank=True)
    email = models.EmailField(blank=True)
    url = models.URLField(blank=True)
    file_path = models.FilePathField(path="/tmp", blank=True)
    file = models.FileField(blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    integer = models.IntegerField(default=0)
    big = models.BigIntegerField(null=True)
    small = models.SmallIntegerField(null=True)
    positive = models.PositiveIntegerField(null=True)
    positive_small = models.PositiveSmallIntegerField(null=True)
    positive_big = models.PositiveBigIntegerField(null=True)
    floating = models.FloatField(null=True)
    amount = models.DecimalField(max_digits=12, decimal_places=4, null=True)
    whole = models.DecimalField(max_digits=10, decimal_places=0, null=True)
    flag = models.BooleanField(default=False)
    maybe = models.BooleanField(null=True)
    day = models.DateField(null=True)
    moment = models.DateTimeField(null=True)
    clock = models.TimeField(null=True)
    span = models.DurationField(null=True)
    uid = models.UUIDField(null=True)
    blob = models.BinaryField(null=True)
    data = models.JSONField(null=True)
    code = models.CharField(max_length=8, default=default_code, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    custom_column = models.IntegerField(db_column="CustomCol", null=True)
    label = models.CharField(max_length=20, db_default="unset")
    rank = models.IntegerField(db_default=7)

    class Meta:
        db_table = "djony_all_types"


class Country(models.Model):
    code = models.CharField(max_length=2, unique=True)
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Tag(models.Model):
    name = models.CharField(max_length=50, unique=True)

    class Meta:
        ordering = ["name"]


class Author(models.Model):
    name = models.CharField(max_length=100)
    email = models.EmailField(blank=True)
    born = models.DateField(null=True)
    country = models.ForeignKey(
        Country, null=True, on_delete=models.SET_NULL, related_name="authors"
    )
    country_by_code = models.ForeignKey(
        Country,
        to_field="code",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_column="country_code",
    )
    mentor = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="mentees"
    )
    friends = models.ManyToManyField("self", blank=True)
    follows = models.ManyToManyField(
        "self", symmetrical=False, blank=True, related_name="followers"
    )

    class Meta:
        ordering = ["id"]


class Publisher(models.Model):
    name = models.CharField(max_length=100)
    uid = models.UUIDField(primary_key=True, default=uuid.uuid4)


class Book(models.Model):
    title = models.CharField(max_length=200)
    isbn = models.CharField(max_length=13, unique=True, null=True, blank=True)
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
    editor = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.PROTECT, related_name="edited_books"
    )
    publisher = models.ForeignKey(Publisher, null=True, blank=True, on_delete=models.RESTRICT)
    tags = models.ManyToManyField(Tag, blank=True, related_name="books")
    price = models.DecimalField(max_digits=8, decimal_places=2, default="9.99")
    pages = models.PositiveIntegerField(default=100)
    published = models.DateTimeField(default=timezone.now)
    in_print = models.BooleanField(default=True)
    rating = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["title"]


class BookDetail(models.Model):
    book = models.OneToOneField(Book, on_delete=models.CASCADE, related_name="detail")
    summary = models.TextField(blank=True)


class Review(models.Model):
    book = models.ForeignKey(Book, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(
        Author, on_delete=models.SET_DEFAULT, default=None, null=True, related_name="+"
    )
    stars = models.SmallIntegerField(default=3)
    body = models.TextField(blank=True)


class Membership(models.Model):
    """An explicit through model."""

    author = models.ForeignKey(Author, on_delete=models.CASCADE)
    club = models.ForeignKey("Club", on_delete=models.CASCADE)
    since = models.DateField(null=True)


class Club(models.Model):
    name = models.CharField(max_length=50)
    members = models.ManyToManyField(Author, through=Membership, related_name="clubs")


class Place(models.Model):
    name = models.CharField(max_length=50)
    address = models.CharField(max_length=80, blank=True)


class Restaurant(Place):
    """Multi-table inheritance."""

    serves_pizza = models.BooleanField(default=False)


class Pizzeria(Restaurant):
    ovens = models.IntegerField(default=1)


class ProxyAuthor(Author):
    class Meta:
        proxy = True


class AbstractThing(models.Model):
    label = models.CharField(max_length=10)

    class Meta:
        abstract = True


class ConcreteThing(AbstractThing):
    weight = models.IntegerField(default=0)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class PointField(models.Field):
    """A custom field with an internal type djony does not know."""

    def get_internal_type(self):
        return "PointField"

    def db_type(self, connection):
        return "varchar(40)"

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        x, y = value.split(",")
        return Point(float(x), float(y))

    def get_prep_value(self, value):
        if value is None:
            return None
        return f"{value.x},{value.y}"


class Landmark(models.Model):
    name = models.CharField(max_length=50)
    location = PointField(null=True)


class Protected(models.Model):
    country = models.ForeignKey(Country, on_delete=models.PROTECT, related_name="protected_rows")


def placeholder_author():
    """The author a ``Loan`` falls back to (``on_delete=SET(...)`` with a callable)."""
    return Author.objects.get_or_create(name="(placeholder)")[0]


def clear_keeper(collector, field, sub_objs, using):
    """A custom ``on_delete`` function (what SET_NULL does, written by hand)."""
    collector.add_field_update(field, None, sub_objs)


class Loan(models.Model):
    """The on_delete rules the other models do not use."""

    book = models.ForeignKey(
        Book, on_delete=models.DO_NOTHING, db_constraint=False, related_name="loans"
    )
    borrower = models.ForeignKey(
        Author, on_delete=models.SET(placeholder_author), related_name="loans"
    )
    branch = models.ForeignKey(
        Country,
        to_field="code",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="loans",
    )
    keeper = models.ForeignKey(
        Author, on_delete=clear_keeper, null=True, blank=True, related_name="kept_loans"
    )


class Chapter(models.Model):
    """RESTRICT that a cascade can satisfy: deleting the book's author deletes the chapter too."""

    book = models.ForeignKey(Book, on_delete=models.CASCADE, related_name="chapters")
    writer = models.ForeignKey(Author, on_delete=models.RESTRICT, related_name="chapters")


class MeasuredImageField(models.ImageField):
    """An ImageField with dimension fields, checked without Pillow (an empty one never
    needs it): Django connects its ``update_dimension_fields`` to ``post_init``."""

    def check(self, **kwargs):
        return [e for e in super().check(**kwargs) if e.id != "fields.E210"]


class Photo(models.Model):
    """A picture with its size, as django-images' ``Image`` and ``Thumbnail`` store it."""

    title = models.CharField(max_length=50, blank=True)
    image = MeasuredImageField(
        upload_to="photos", height_field="height", width_field="width", blank=True
    )
    height = models.PositiveIntegerField(default=0, editable=False)
    width = models.PositiveIntegerField(default=0, editable=False)
