"""A writable Tastypie API, built once per spelling, for the write tests.

``build_write_api(api_name, spelling)`` returns a ``tastypie.api.Api`` with
``Authorization()`` (every write allowed) whose resources differ only in what
the spelling asks for (the same three spellings as :mod:`tests.api`):

``model``
    ``ModelResource`` + ``ToManyField``: the reference (``/v2/``).
``djony``
    ``DjonyResource`` with ``Meta.queryset``: the drop-in (``/v3/``).
``djony2013``
    ``DjonyResource`` with ``Meta.object_model`` + ``SetField`` (``/v3o/``).

Each build has its own ``api_name`` (Tastypie reverses URLs by api_name +
resource_name, so equal names would make ``reverse()`` pick one prefix for
all three).  :mod:`tests.write.urls` mounts them.

The second half of the module is the database side of the write tests:
:func:`reset` puts the test tables back to the seed rows (:data:`SEED`) with
every auto-increment counter at :data:`FIRST_NEW_ID`, so a row created by a
request gets the same primary key whichever API created it, and
:func:`snapshot` reads every row of every table of the test app.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable
from decimal import Decimal

from django import forms
from django.apps import apps
from django.db import connection, models, transaction
from tastypie import fields
from tastypie.api import Api
from tastypie.authorization import Authorization
from tastypie.constants import ALL, ALL_WITH_RELATIONS
from tastypie.exceptions import BadRequest
from tastypie.resources import ModelResource
from tastypie.validation import CleanedDataFormValidation, FormValidation

from tastypie_djony.fields import SetField
from tastypie_djony.resources import DjonyResource
from tests.testapp.models import (
    AllTypes,
    Author,
    Book,
    BookDetail,
    Chapter,
    Club,
    Country,
    Loan,
    Membership,
    Pizzeria,
    Place,
    Protected,
    ProxyAuthor,
    Publisher,
    Restaurant,
    Review,
    Tag,
)

SPELLINGS = ("model", "djony", "djony2013")

#: A ``threading.Barrier`` that ``GatedAuthorResource.hydrate`` waits at, if set.
GATE = None

#: api_name -> spelling; ``v2`` is the reference.
APIS = {"v2": "model", "v3": "djony", "v3o": "djony2013"}


# --- forms for validation ----------------------------------------------------
class CountryForm(forms.Form):
    code = forms.CharField(min_length=2, max_length=2)
    name = forms.CharField(max_length=100)

    def clean_code(self):
        code = self.cleaned_data["code"]
        if not code.isupper():
            raise forms.ValidationError("Use an upper-case ISO code.")
        return code


class TagForm(forms.Form):
    name = forms.CharField(max_length=50)

    def clean_name(self):
        return self.cleaned_data["name"].strip().lower()


class HookError(RuntimeError):
    """Raised by a hydrate hook on purpose (a plain exception: 500)."""


def build_write_api(api_name: str, spelling: str) -> Api:
    """The write API in ``spelling``, mounted under ``/<api_name>/``."""
    if spelling not in SPELLINGS:
        raise ValueError(f"spelling={spelling!r}: use one of {SPELLINGS}.")
    base = ModelResource if spelling == "model" else DjonyResource
    to_many = SetField if spelling == "djony2013" else fields.ToManyField

    def meta(model, **options) -> type:
        if spelling == "djony2013":
            options["object_model"] = model
        else:
            options["queryset"] = model.objects.all()
        options.setdefault("authorization", Authorization())
        return type("Meta", (), options)

    book_path = f"{__name__}.{api_name}_WriteBookResource"

    class CountryResource(base):
        Meta = meta(
            Country,
            resource_name="country",
            always_return_data=True,
            filtering={"id": ALL, "code": ALL, "name": ALL},
        )

    class TagResource(base):
        Meta = meta(Tag, resource_name="tag", filtering={"id": ALL, "name": ALL})

    class PublisherResource(base):
        Meta = meta(Publisher, resource_name="publisher", always_return_data=True)

    class AuthorResource(base):
        country = fields.ToOneField(CountryResource, "country", null=True)
        country_by_code = fields.ToOneField(CountryResource, "country_by_code", null=True)
        mentor = fields.ToOneField("self", "mentor", null=True)
        books = to_many(book_path, "books", related_name="author", null=True)
        follows = to_many("self", "follows", null=True)
        Meta = meta(
            Author,
            resource_name="author",
            always_return_data=True,
            filtering={"id": ALL, "name": ALL, "country": ALL_WITH_RELATIONS},
        )

    class AuthorFullResource(base):
        """``country`` in full (nested output of a nested create or update)."""

        country = fields.ToOneField(CountryResource, "country", null=True, full=True)
        mentor = fields.ToOneField(AuthorResource, "mentor", null=True, full=True)
        Meta = meta(
            Author,
            resource_name="authorfull",
            always_return_data=True,
            fields=["id", "name", "email", "born"],
        )

    class BookResource(base):
        author = fields.ToOneField(AuthorResource, "author")
        editor = fields.ToOneField(AuthorResource, "editor", null=True)
        publisher = fields.ToOneField(PublisherResource, "publisher", null=True)
        tags = to_many(TagResource, "tags", null=True)
        Meta = meta(
            Book,
            resource_name="book",
            filtering={"id": ALL, "title": ALL, "pages": ALL, "author": ALL_WITH_RELATIONS},
        )

    class BookFullResource(base):
        """``always_return_data`` with related resources in full."""

        author = fields.ToOneField(AuthorResource, "author", full=True)
        editor = fields.ToOneField(AuthorResource, "editor", null=True)
        publisher = fields.ToOneField(PublisherResource, "publisher", null=True, full=True)
        tags = to_many(TagResource, "tags", null=True, full=True)
        Meta = meta(Book, resource_name="bookfull", always_return_data=True)

    class BookStrictResource(base):
        """``tags`` is required (no ``null=True``)."""

        author = fields.ToOneField(AuthorResource, "author")
        tags = to_many(TagResource, "tags")
        Meta = meta(Book, resource_name="bookstrict", fields=["id", "title", "isbn", "pages"])

    class BookDetailResource(base):
        book = fields.ToOneField(BookResource, "book")
        Meta = meta(BookDetail, resource_name="bookdetail", always_return_data=True)

    class AllTypesResource(base):
        """Every field type but ``blob`` (ModelResource renders it with ``str()``)."""

        Meta = meta(AllTypes, resource_name="alltypes", excludes=["blob"], always_return_data=True)

    class RestaurantResource(base):
        Meta = meta(
            Restaurant,
            resource_name="restaurant",
            always_return_data=True,
            filtering={"name": ALL, "serves_pizza": ALL},
        )

    class PizzeriaResource(base):
        Meta = meta(Pizzeria, resource_name="pizzeria")

    class ValidatedCountryResource(base):
        """``FormValidation``: checks ``bundle.data``, changes nothing."""

        Meta = meta(
            Country,
            resource_name="validcountry",
            validation=FormValidation(form_class=CountryForm),
        )

    class CleanedTagResource(base):
        """``CleanedDataFormValidation``: the form's cleaned data is saved."""

        Meta = meta(
            Tag,
            resource_name="cleantag",
            always_return_data=True,
            validation=CleanedDataFormValidation(form_class=TagForm),
        )

    class HookedAuthorResource(base):
        """``hydrate`` and ``hydrate_<field>`` hooks that change the data."""

        country = fields.ToOneField(CountryResource, "country", null=True)
        Meta = meta(
            Author, resource_name="hooked", always_return_data=True, fields=["id", "name", "email"]
        )

        def hydrate(self, bundle):
            nick = bundle.data.pop("nick", None)
            if nick:
                bundle.data["name"] = f"{bundle.data.get('name', '')} ({nick})".strip()
            return bundle

        def hydrate_name(self, bundle):
            if "name" in bundle.data:
                bundle.data["name"] = bundle.data["name"].strip().title()
            return bundle

        def hydrate_email(self, bundle):
            if bundle.data.get("email"):
                bundle.data["email"] = bundle.data["email"].lower()
            elif bundle.data.get("name"):
                bundle.data["email"] = bundle.data["name"].split()[0].lower() + "@example.org"
            return bundle

    class ExplodingBookResource(base):
        """Hooks that fail: ``hydrate_title`` before anything is written,
        ``hydrate_tags`` after the book row was written (Tastypie calls it
        again from ``hydrate_m2m``, once the object has a primary key)."""

        author = fields.ToOneField(AuthorResource, "author")
        tags = to_many(TagResource, "tags", null=True)
        Meta = meta(Book, resource_name="explode", fields=["id", "title", "pages"])

        def hydrate_title(self, bundle):
            if bundle.data.get("title") == "boom":
                raise HookError("hydrate_title exploded")
            if bundle.data.get("title") == "bad request":
                raise BadRequest("hydrate_title refuses this title")
            return bundle

        def hydrate_tags(self, bundle):
            saved = getattr(bundle.obj, "pk", None) is not None
            title = bundle.data.get("title") or ""
            if saved and title == "late boom":
                raise HookError("hydrate_tags exploded after the book was saved")
            if saved and title == "late bad request":
                raise BadRequest("hydrate_tags refuses this book after it was saved")
            return bundle

    class DjangoWritesTagResource(base):
        """``Meta.writes = "django"``: saves through ``Tag.save()`` (signals run)."""

        Meta = meta(Tag, resource_name="tagdj", always_return_data=True, writes="django")

    class AllTypesEveryFieldResource(base):
        """Every field, ``blob`` too, and no ``always_return_data`` (a PATCH writes
        back what it read only where ModelResource would: nowhere)."""

        Meta = meta(AllTypes, resource_name="alltypesall")

    class ShoutingCountryResource(base):
        """``dehydrate_name`` changes what a client reads (not what is stored)."""

        Meta = meta(Country, resource_name="shout", always_return_data=True)

        def dehydrate_name(self, bundle):
            return bundle.data["name"].upper()

    class BookWithDetailResource(base):
        """A reverse one-to-one in full, optional (Tastypie's ``TagResource.extradata``)."""

        author = fields.ToOneField(AuthorResource, "author")
        detail = fields.ToOneField(BookDetailResource, "detail", null=True, blank=True, full=True)
        Meta = meta(Book, resource_name="bookwithdetail", fields=["id", "title"])

    class BookDetailOfResource(base):
        """``book`` may come from the parent that nests it (``PaymentResource.job``)."""

        book = fields.ToOneField(BookResource, "book", null=True)
        Meta = meta(BookDetail, resource_name="detailof")

    class BookAndDetailResource(base):
        """A reverse one-to-one saved through ``related_name`` (``JobResource.payment``)."""

        author = fields.ToOneField(AuthorResource, "author")
        detail = fields.ToOneField(BookDetailOfResource, "detail", related_name="book")
        Meta = meta(Book, resource_name="bookanddetail", fields=["id", "title"])

    back_path = f"{__name__}.{api_name}_WriteBookAndDetailBackResource"

    class DetailBackResource(base):
        """``book`` names the resource that nests this one (``PaymentResource.job``)."""

        book = fields.ToOneField(back_path, "book", null=True)
        Meta = meta(BookDetail, resource_name="detailback")

    class BookAndDetailBackResource(base):
        """``JobResource``: a required reverse one-to-one saved through ``related_name``.

        Hydrating the nested detail dehydrates this resource's object (its
        ``book``), whose ``detail`` must read back the detail being saved.
        """

        author = fields.ToOneField(AuthorResource, "author")
        detail = fields.ToOneField(DetailBackResource, "detail", related_name="book")
        Meta = meta(Book, resource_name="bookanddetailback", fields=["id", "title"])

    class ProxyAuthorResource(base):
        """A proxy model's resource."""

        Meta = meta(ProxyAuthor, resource_name="proxyauthor", fields=["id", "name", "email"])

    class PlacedAuthorResource(base):
        """``hydrate()`` assigns Django instances to relations (``obj.owner = request.user``)."""

        Meta = meta(Author, resource_name="placed", always_return_data=True, fields=["id", "name"])

        def hydrate(self, bundle):
            bundle.obj.country = Country.objects.get(code=bundle.data.get("home", "FR"))
            bundle.obj.mentor = Author.objects.get(pk=1)
            return bundle

    class CodedAuthorResource(base):
        """``hydrate()`` sets a raw foreign key column (``obj.country_by_code_id``)."""

        Meta = meta(Author, resource_name="coded", fields=["id", "name"])

        def hydrate(self, bundle):
            if "country_code" in bundle.data:
                bundle.obj.country_by_code_id = bundle.data["country_code"]
            return bundle

    class GatedAuthorResource(base):
        """``hydrate()`` waits at :data:`GATE` when a test sets one (concurrent PATCHes)."""

        Meta = meta(Author, resource_name="gated", fields=["id", "name", "email", "born"])

        def hydrate(self, bundle):
            if GATE is not None:
                GATE.wait()
            return bundle

    resources = [
        GatedAuthorResource,
        AllTypesEveryFieldResource,
        ShoutingCountryResource,
        BookWithDetailResource,
        BookDetailOfResource,
        BookAndDetailResource,
        DetailBackResource,
        BookAndDetailBackResource,
        ProxyAuthorResource,
        PlacedAuthorResource,
        CodedAuthorResource,
        CountryResource,
        TagResource,
        PublisherResource,
        AuthorResource,
        AuthorFullResource,
        BookResource,
        BookFullResource,
        BookStrictResource,
        BookDetailResource,
        AllTypesResource,
        RestaurantResource,
        PizzeriaResource,
        ValidatedCountryResource,
        CleanedTagResource,
        HookedAuthorResource,
        ExplodingBookResource,
        DjangoWritesTagResource,
    ]
    # AuthorResource.books names BookResource by dotted path (the two refer
    # to each other); this is where Tastypie looks it up.
    globals()[f"{api_name}_WriteBookResource"] = BookResource
    globals()[f"{api_name}_WriteBookAndDetailBackResource"] = BookAndDetailBackResource

    api = Api(api_name=api_name)
    for resource in resources:
        api.register(resource())
    return api


# =============================================================================
# The database side: seed rows, reset, snapshot
# =============================================================================

#: The first primary key a request-created row gets (on every backend).
FIRST_NEW_ID = 100

UTC = datetime.timezone.utc
PUB_PENGUIN = uuid.UUID("11111111-1111-4111-8111-111111111111")
PUB_ORBIT = uuid.UUID("22222222-2222-4222-8222-222222222222")
SEED_CODES = ("seed0001", "seed0002")


def _dt(year, month, day, hour=12) -> datetime.datetime:
    return datetime.datetime(year, month, day, hour, 0, tzinfo=UTC)


def _seed_rows() -> list[tuple[type[models.Model], list[dict]]]:
    """The seed rows, in insertion order (parents before children)."""
    return [
        (
            Country,
            [
                dict(id=1, code="DE", name="Deutschland"),
                dict(id=2, code="FR", name="France"),
                dict(id=3, code="IT", name="Italia"),
                dict(id=4, code="JP", name="日本"),
            ],
        ),
        (Tag, [dict(id=1, name="scifi"), dict(id=2, name="classic"), dict(id=3, name="poetry")]),
        (
            Author,
            [
                dict(
                    id=1,
                    name="Ann",
                    email="ann@example.com",
                    born=datetime.date(1970, 1, 1),
                    country_id=1,
                    country_by_code_id="DE",
                ),
                dict(id=2, name="Bob", email="", born=None, country_id=2, mentor_id=1),
                dict(
                    id=3,
                    name="Cid",
                    email="cid@example.com",
                    born=datetime.date(1980, 5, 5),
                    mentor_id=2,
                ),
                dict(id=4, name="Dot", email="", born=None, country_id=4, country_by_code_id="JP"),
            ],
        ),
        (Publisher, [dict(uid=PUB_PENGUIN, name="Penguin"), dict(uid=PUB_ORBIT, name="Orbit")]),
        (
            Book,
            [
                dict(
                    id=1,
                    title="Dune",
                    isbn="9780000000001",
                    author_id=1,
                    editor_id=2,
                    publisher_id=PUB_PENGUIN,
                    price=Decimal("12.50"),
                    pages=412,
                    published=_dt(2001, 3, 4),
                    in_print=True,
                    rating=4.5,
                ),
                dict(
                    id=2,
                    title="Emma",
                    isbn=None,
                    author_id=2,
                    editor_id=None,
                    publisher_id=None,
                    price=Decimal("7.00"),
                    pages=320,
                    published=_dt(1999, 12, 31),
                    in_print=False,
                    rating=None,
                ),
                dict(
                    id=3,
                    title="Odes",
                    isbn="9780000000003",
                    author_id=3,
                    editor_id=1,
                    publisher_id=PUB_ORBIT,
                    price=Decimal("3.25"),
                    pages=80,
                    published=_dt(2010, 7, 1),
                    in_print=True,
                    rating=3.0,
                ),
                dict(
                    id=4,
                    title="Zen",
                    isbn=None,
                    author_id=4,
                    editor_id=None,
                    publisher_id=None,
                    price=Decimal("20.00"),
                    pages=150,
                    published=_dt(2015, 1, 1),
                    in_print=True,
                    rating=None,
                ),
            ],
        ),
        (
            Book.tags.through,
            [
                dict(id=1, book_id=1, tag_id=1),
                dict(id=2, book_id=1, tag_id=2),
                dict(id=3, book_id=2, tag_id=2),
                dict(id=4, book_id=3, tag_id=3),
            ],
        ),
        (
            Author.friends.through,
            [
                dict(id=1, from_author_id=1, to_author_id=2),
                dict(id=2, from_author_id=2, to_author_id=1),
            ],
        ),
        (
            Author.follows.through,
            [
                dict(id=1, from_author_id=2, to_author_id=1),
                dict(id=2, from_author_id=3, to_author_id=1),
            ],
        ),
        (
            BookDetail,
            [dict(id=1, book_id=1, summary="Sand."), dict(id=2, book_id=3, summary="Verse.")],
        ),
        (
            Review,
            [
                dict(id=1, book_id=1, reviewer_id=2, stars=5, body="Great"),
                dict(id=2, book_id=2, reviewer_id=3, stars=2, body="Meh"),
                dict(id=3, book_id=3, reviewer_id=4, stars=4, body="Nice"),
            ],
        ),
        (Club, [dict(id=1, name="Readers")]),
        (
            Membership,
            [
                dict(id=1, author_id=1, club_id=1, since=datetime.date(2020, 1, 1)),
                dict(id=2, author_id=3, club_id=1, since=None),
            ],
        ),
        (
            Place,
            [
                dict(id=1, name="Corner", address="1 Main St"),
                dict(id=2, name="Luigi", address="2 Main St"),
                dict(id=3, name="Napoli", address=""),
            ],
        ),
        (
            Restaurant,
            [dict(place_ptr_id=2, serves_pizza=True), dict(place_ptr_id=3, serves_pizza=True)],
        ),
        (Pizzeria, [dict(restaurant_ptr_id=3, ovens=2)]),
        (Protected, [dict(id=1, country_id=3)]),
        (Loan, [dict(id=1, book_id=3, borrower_id=3, branch_id="FR")]),
        (Chapter, [dict(id=1, book_id=3, writer_id=3), dict(id=2, book_id=4, writer_id=4)]),
        (
            AllTypes,
            [
                dict(
                    id=1,
                    char="seed",
                    text="long text",
                    slug="seed-row",
                    email="a@example.com",
                    url="https://example.com/",
                    file_path="",
                    file="",
                    ip="10.0.0.1",
                    integer=7,
                    big=2**40,
                    small=-3,
                    positive=5,
                    positive_small=6,
                    positive_big=2**50,
                    floating=1.5,
                    amount=Decimal("12.3456"),
                    whole=Decimal("42"),
                    flag=True,
                    maybe=None,
                    day=datetime.date(2020, 2, 29),
                    moment=_dt(2020, 2, 29),
                    clock=datetime.time(13, 14, 15),
                    span=datetime.timedelta(days=1, seconds=5),
                    uid=uuid.UUID("33333333-3333-4333-8333-333333333333"),
                    blob=b"\x00\x01",
                    data={"a": [1, 2]},
                    code="seed0001",
                    created=_dt(2020, 1, 1),
                    updated=_dt(2020, 1, 2),
                    custom_column=9,
                    label="unset",  # the db_default, spelled out
                    rank=7,
                ),
            ],
        ),
    ]


def all_tables(app_label: str = "testapp") -> list[type[models.Model]]:
    """Every table of a test app: models and auto-created M2M tables."""
    config = apps.get_app_config(app_label)
    return [
        m
        for m in config.get_models(include_auto_created=True)
        if not m._meta.proxy and m._meta.managed
    ]


def _has_sequence(model: type[models.Model]) -> bool:
    return model._meta.pk.get_internal_type() in ("AutoField", "BigAutoField", "SmallAutoField")


def _column_field(model, key: str) -> models.Field:
    for f in model._meta.local_concrete_fields:
        if key in (f.name, f.attname):
            return f
    raise LookupError(f"{model.__name__} has no column {key!r}")


def _raw_insert(model, rows: list[dict]) -> None:
    """Insert rows into ``model``'s own table (an MTI child without its parents)."""
    if not rows:
        return
    keys = list(dict.fromkeys(key for row in rows for key in row))
    fields_ = [_column_field(model, key) for key in keys]
    qn = connection.ops.quote_name
    columns = ", ".join(qn(f.column) for f in fields_)
    placeholders = ", ".join(["%s"] * len(fields_))
    sql = f"INSERT INTO {qn(model._meta.db_table)} ({columns}) VALUES ({placeholders})"
    params = [
        [f.get_db_prep_save(row.get(key), connection) for f, key in zip(fields_, keys, strict=True)]
        for row in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _local_rows(model, rows):
    """``rows`` restricted to the columns of ``model``'s own table."""
    own = {f.attname for f in model._meta.local_concrete_fields} | {
        f.name for f in model._meta.local_concrete_fields
    }
    return [{k: v for k, v in row.items() if k in own} for row in rows]


def reset(
    next_id: int = FIRST_NEW_ID,
    seed: bool = True,
    app_label: str = "testapp",
    seed_rows: Callable[[], list[tuple[type[models.Model], list[dict]]]] | None = None,
    fresh_pages: bool = False,
) -> None:
    """Empty every table of ``app_label``, write its seed rows, put every counter at ``next_id``.

    Runs outside any transaction (the write tests run in autocommit, as a
    server without ATOMIC_REQUESTS does, so partial writes stay visible).
    ``seed_rows`` gives the seed (default: this module's, for ``testapp``).

    ``fresh_pages``: on PostgreSQL, empty the tables with ``TRUNCATE`` (new, empty
    files) instead of ``DELETE``, for tests that compare two runs' reads without an
    ORDER BY.  After a ``DELETE`` the rows written next land in whichever pages
    PostgreSQL finds room in, which depends on what autovacuum has freed by then, so
    the same query may list them in another order in the next run; after a
    ``TRUNCATE`` they are laid out in the order they are written, every run.  It costs
    about 30 ms a reset, so only the tests that need it ask for it.
    """
    assert not connection.in_atomic_block, "reset() must run in autocommit mode"
    tables = all_tables(app_label)
    qn = connection.ops.quote_name
    vendor = connection.vendor
    with transaction.atomic():
        with connection.cursor() as cursor:
            if vendor == "mysql":
                cursor.execute("SET FOREIGN_KEY_CHECKS = 0")
            try:
                if fresh_pages and vendor == "postgresql":
                    names = ", ".join(qn(model._meta.db_table) for model in tables)
                    cursor.execute(f"TRUNCATE {names}")
                else:
                    for model in tables:
                        cursor.execute(f"DELETE FROM {qn(model._meta.db_table)}")
                if seed:
                    for model, rows in (seed_rows or _seed_rows)():
                        _raw_insert(model, _local_rows(model, rows))
            finally:
                if vendor == "mysql":
                    cursor.execute("SET FOREIGN_KEY_CHECKS = 1")
            if vendor == "sqlite":
                names = [m._meta.db_table for m in tables if _has_sequence(m)]
                cursor.execute("DELETE FROM sqlite_sequence")
                cursor.executemany(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)",
                    [(name, next_id - 1) for name in names],
                )
            elif vendor == "postgresql":
                calls = ", ".join(
                    f"setval(pg_get_serial_sequence('{qn(m._meta.db_table)}', "
                    f"'{m._meta.pk.column}'), {next_id}, false)"
                    for m in tables
                    if _has_sequence(m)
                )
                cursor.execute(f"SELECT {calls}")
    if vendor == "mysql":  # ALTER TABLE commits: outside the transaction, and only where needed
        names = {m._meta.db_table for m in tables if _has_sequence(m)}
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES "
                "WHERE TABLE_SCHEMA = DATABASE()"
            )
            for name, counter in cursor.fetchall():
                if name in names and counter != next_id:
                    cursor.execute(f"ALTER TABLE {qn(name)} AUTO_INCREMENT = {next_id}")


def _plain(value):
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def snapshot(app_label: str = "testapp") -> dict[str, list[tuple]]:
    """Every row of every table of ``app_label``, ordered, as ``{table: [row, ...]}``.

    Rows are dicts of column (attname) -> Python value.  The ``id`` of an
    auto-created M2M table is left out: which link rows get deleted and
    re-inserted when a relation is replaced is not observable through the
    API (ModelResource clears and re-adds, Pony only touches the changes).
    """
    result = {}
    for model in all_tables(app_label):
        columns = [f.attname for f in model._meta.local_concrete_fields]
        if model._meta.auto_created:
            columns = [c for c in columns if c != model._meta.pk.attname]
            order = columns
        else:
            order = [model._meta.pk.attname]
        rows = model._base_manager.order_by(*order).values(*columns)
        result[model._meta.db_table] = [{k: _plain(v) for k, v in row.items()} for row in rows]
    return result


# =============================================================================
# Requests and the module fixture
# =============================================================================

#: What request bodies and paths write instead of the API prefix.
API_MARKER = "/API/"


def api_client(server_name: str = "api.example"):
    """A test client whose 500s come back as responses.

    Tastypie re-raises unexpected exceptions when ``SERVER_NAME`` is
    ``'testserver'`` (Django's default); with another name it answers 500
    with its canned error, and ``raise_request_exception=False`` keeps the
    test client from re-raising what ``got_request_exception`` reported.
    Pass ``server_name="testserver"`` to get the exception instead.
    """
    from django.test import Client

    if server_name == "testserver":
        return Client()
    return Client(raise_request_exception=False, SERVER_NAME=server_name)


def send(client, api: str, method: str, path: str, body=None, content_type="application/json"):
    """``method`` ``/<api>/<path>`` with ``body`` (JSON-encoded unless a str).

    ``/API/`` in the path or the body becomes ``/<api>/``.
    """
    import json

    url = f"/{api}/" + path.replace(API_MARKER, f"/{api}/")
    if body is None:
        data = ""
    elif isinstance(body, str | bytes):
        data = body
    else:
        data = json.dumps(body, ensure_ascii=False)
    if isinstance(data, str):
        data = data.replace(API_MARKER, f"/{api}/")
    return client.generic(method, url, data, content_type=content_type)


def write_db_fixture():
    """The module-scoped database fixture of the write tests.

    Bind it in a test module as ``transactional_db`` (and use it there)::

        transactional_db = write_api.write_db_fixture()
        pytestmark = pytest.mark.usefixtures("transactional_db")

    The write tests commit for real (autocommit, as a server without
    ATOMIC_REQUESTS), so they cannot run in pytest-django's per-test
    transaction, and its ``transaction=True`` flushes every table (auth and
    contenttypes too) after each test.  Under the name ``transactional_db``
    pytest-django still creates the test database for these tests (it
    looks for that name), while this fixture does the rest: it unblocks the
    database for the module, mounts :mod:`tests.write.urls`, and leaves
    every test table empty, its counter back at 1, when the module is done.
    """
    import pytest
    from django.test import override_settings

    @pytest.fixture(scope="module")
    def transactional_db(django_db_setup, django_db_blocker):
        with django_db_blocker.unblock(), override_settings(ROOT_URLCONF="tests.write.urls"):
            reset()
            try:
                yield
            finally:
                reset(next_id=1, seed=False)

    return transactional_db
