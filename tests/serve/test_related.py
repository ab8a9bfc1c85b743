""":mod:`tastypie_djony.related`: the related keys of a whole page as each related manager
would give them, the relation caches a prefetch filled, the to-one relations whose key the
owner's row holds, and the page loaders that fill relation caches."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.db.models.functions import Lower
from django.test.utils import CaptureQueriesContext

from djony.objects.ties import sort_columns, tied, unique_order
from tastypie_djony.objectlist import DjonyObjectList
from tastypie_djony.related import Relation, ToOneRelation, prefetch_loader
from tests.djony.pages import TIED_TITLES, authors_with_tied_books
from tests.instances.models import Comment, Note, Writer
from tests.testapp.models import (
    Author,
    Book,
    BookDetail,
    Chapter,
    Club,
    Country,
    Loan,
    Membership,
    Review,
    Tag,
)
from tests.thirdparty.models import Exercise, Workout

#: Relations of every kind: many-to-many, reverse ForeignKey, self many-to-many, through a
#: model, a default manager that hides rows and orders by two columns, generic, and a
#: third-party manager with an order of its own (sortedm2m).
RELATIONS = [
    (Book, "tags"),
    (Author, "books"),
    (Author, "follows"),
    (Author, "clubs"),
    (Writer, "note_set"),
    (Writer, "comments"),
    (Workout, "exercises"),
]
IDS = [f"{model.__name__}.{attribute}" for model, attribute in RELATIONS]


@pytest.fixture
def rows(db) -> None:
    """Related rows whose managers' orders differ from key order and from insertion order."""
    # Pony's first read on a connection asks the database what it supports: here, not
    # where the queries of a page are counted.
    DjonyObjectList(Tag.objects.values_list("pk")).rows()

    ann, bob, cid = (Author.objects.create(name=name) for name in ("Ann", "Bob", "Cid"))
    zebra, apple, mango = (Tag.objects.create(name=name) for name in ("zebra", "apple", "mango"))
    dune = Book.objects.create(title="Dune", author=bob)
    emma = Book.objects.create(title="Emma", author=bob, editor=ann)
    Book.objects.create(title="Aeon", author=ann)
    dune.tags.set([zebra, apple, mango])
    emma.tags.set([mango, zebra])
    ann.follows.set([cid, bob])
    bob.follows.set([ann])
    chess, books = Club.objects.create(name="chess"), Club.objects.create(name="books")
    Membership.objects.create(author=ann, club=chess)
    Membership.objects.create(author=ann, club=books)
    Membership.objects.create(author=bob, club=books)
    BookDetail.objects.create(book=emma, summary="...")
    Review.objects.create(book=dune, stars=5)
    Review.objects.create(book=dune, stars=2)
    Chapter.objects.create(book=dune, writer=ann)

    ada = Writer.objects.create(first_name="Ada", last_name="L")
    max_ = Writer.objects.create(first_name="Max", last_name="M")
    Writer.objects.create(first_name="Nil", last_name="N")
    Note.objects.create(writer=ada, text="low", rank=1)
    Note.objects.create(writer=ada, text="hidden", rank=9, hidden=True)
    Note.objects.create(writer=ada, text="high", rank=5)
    Note.objects.create(writer=max_, text="one", rank=0)
    Comment.objects.create(target=max_, body="first")
    Comment.objects.create(target=ada, body="second")
    Comment.objects.create(target=max_, body="third")
    # A comment on another model whose object_id is a writer's key: not that writer's.
    note = Note.everything.exclude(writer=ada).first()
    Comment.objects.create(target=note, body="on a note")
    Comment.objects.filter(body="on a note").update(object_id=ada.pk)

    owner = User.objects.create(username="lifter")
    squat, bench, curl = (Exercise.objects.create(name=name) for name in ("squat", "bench", "curl"))
    heavy = Workout.objects.create(owner=owner, title="heavy")
    heavy.exercises.set([squat, curl, bench])  # sortedm2m keeps this order
    Workout.objects.create(owner=owner, title="rest")


def managers_keys(model, attribute: str, key_field: str = "pk") -> dict:
    """Each owner's related ``key_field`` values as its related manager gives them."""
    return {
        owner.pk: [getattr(related, key_field) for related in getattr(owner, attribute).all()]
        for owner in model._base_manager.order_by("pk")
    }


def in_order(relation: Relation, keys: dict) -> dict:
    """``keys`` as far as their order is defined: sorted where the manager orders nothing."""
    return keys if relation.ordered else {owner: sorted(k) for owner, k in keys.items()}


@pytest.mark.parametrize("model, attribute", RELATIONS, ids=IDS)
def test_related_keys_of_many_owners_are_each_related_manager_s(rows, model, attribute) -> None:
    """For every owner of a page: the related keys its related manager gives, in its order
    (the default manager's filters and ordering, the content type of a generic relation, a
    third-party manager's own order), ``[]`` for an owner without any."""
    expected = managers_keys(model, attribute)
    assert any(expected.values()) and not all(expected.values())
    relation = Relation.find(model, attribute)
    assert in_order(relation, relation.related_keys(list(expected))) == in_order(relation, expected)


def test_related_keys_of_many_owners_keep_each_owner_s_order_of_ties(
    db, django_assert_num_queries
) -> None:
    """Rows of equal sort values (books of one title, ``Book.Meta.ordering``) come in the
    order each owner's related manager gives them, though the owners' rows are read as
    one set (PostgreSQL sorts more than a few rows in an order of its own): owners with
    ties are read by their own query, the others not."""
    authors = authors_with_tied_books()
    expected = {author.pk: list(author.books.values_list("pk", flat=True)) for author in authors}
    relation = Relation.find(Author, "books")
    with django_assert_num_queries(1 + 3):
        assert relation.related_keys(list(expected)) == expected


def test_related_keys_of_many_owners_in_an_order_through_a_relation_keep_each_owner_s(
    db, monkeypatch, django_assert_num_queries
) -> None:
    """Sorted by a related model's column (``writer__name``), which the owners' one query
    could give tied rows of in another order than each owner's query: each owner's own
    query; sorted so that no two rows tie (``Permission``'s order), the one query."""
    monkeypatch.setattr(Chapter._meta, "ordering", ["writer__name"])
    writers = [Author.objects.create(name=name) for name in TIED_TITLES]
    books = [Book.objects.create(title=f"book {n}", author=writers[0]) for n in range(4)]
    for index, book in enumerate(books):
        for writer in writers[index:] + writers[:index]:
            Chapter.objects.create(book=book, writer=writer)
    expected = {book.pk: list(book.chapters.values_list("pk", flat=True)) for book in books}
    relation = Relation.find(Book, "chapters")
    with django_assert_num_queries(len(books)):
        assert relation.related_keys(list(expected)) == expected
    user = User.objects.create(username="many")
    others = User.objects.create(username="more")
    user.user_permissions.set(Permission.objects.all()[:40])
    others.user_permissions.set(Permission.objects.all()[20:60])
    users = {u.pk: list(u.user_permissions.values_list("pk", flat=True)) for u in (user, others)}
    with django_assert_num_queries(1):
        assert Relation.find(User, "user_permissions").related_keys(list(users)) == users


@pytest.mark.parametrize(
    "queryset, columns",
    [
        (lambda: Book.objects.all(), ["title"]),
        (lambda: Book.objects.order_by("-pages", "title"), ["pages", "title"]),
        (lambda: Book.objects.order_by("title", "-id"), []),
        (lambda: Author.objects.all(), []),
        (lambda: Book.objects.order_by(), []),
        (lambda: Book.objects.order_by("author__name"), None),
        (lambda: Permission.objects.all(), []),  # through a relation, but never tied
        (lambda: Book.objects.order_by("author"), None),
        (lambda: Book.objects.order_by(Lower("title")), None),
        (lambda: Book.objects.order_by("?"), None),
    ],
    ids=[
        "meta-ordering",
        "own-ordering",
        "key-after",
        "key-ordering",
        "unordered",
        "joined",
        "joined-unique",
        "relation",
        "expression",
        "random",
    ],
)
def test_sort_columns_are_the_columns_rows_are_sorted_by(db, queryset, columns) -> None:
    assert sort_columns(queryset()) == columns


@pytest.mark.parametrize(
    "queryset, unique",
    [
        (lambda: Author.objects.all(), True),  # the key
        (lambda: Book.objects.order_by("title", "-id"), True),
        (lambda: Tag.objects.all(), True),  # a unique column
        (lambda: Country.objects.order_by("code"), True),
        (lambda: Permission.objects.all(), True),  # unique together, through content_type
        (lambda: Permission.objects.order_by("content_type_id", "-codename"), True),
        (lambda: Country.objects.all(), False),  # a column that may repeat
        (lambda: Book.objects.all(), False),
        (lambda: Book.objects.order_by("isbn"), False),  # unique, but NULLs repeat
        (lambda: Permission.objects.order_by("content_type__app_label", "codename"), False),
        (lambda: Permission.objects.order_by("content_type", "codename"), False),
        (lambda: Review.objects.order_by("book__isbn", "stars"), False),
        (lambda: Book.objects.order_by(), False),  # the database's order
        (lambda: Book.objects.order_by("?"), False),
        (lambda: Book.objects.order_by(Lower("title"), "id"), False),
    ],
    ids=[
        "key",
        "key-after",
        "unique-column",
        "unique-column-own-ordering",
        "unique-together-through-a-key",
        "unique-together-by-attname",
        "repeating-column",
        "meta-ordering-repeats",
        "nullable-unique",
        "half-of-unique-together",
        "a-relation-s-own-order",
        "nullable-through-a-key",
        "unordered",
        "random",
        "expression",
    ],
)
def test_unique_order_is_an_order_no_two_rows_can_tie_in(db, queryset, unique) -> None:
    assert unique_order(queryset()) is unique


def test_one_owner_s_keys_in_a_unique_order_read_the_key_column_alone(rows) -> None:
    """``Tag`` is ordered by its unique name: the related manager's order whatever the
    query selects, so a detail's keys read the key column only; a ``Book`` (ordered by a
    title that may repeat) is read with every column, as its related manager reads it."""
    for model, attribute, related in ((Book, "tags", Tag), (Author, "books", Book)):
        owner = model.objects.filter(**{f"{attribute}__isnull": False}).first()
        expected = list(getattr(owner, attribute).values_list("pk", flat=True))
        relation = Relation.find(model, attribute)
        with CaptureQueriesContext(connection) as captured:
            assert relation.related_keys([owner.pk]) == {owner.pk: expected}
        (query,) = captured.captured_queries
        selected = query["sql"].split(" FROM ")[0]
        name = related._meta.get_field("name" if related is Tag else "title").column
        assert (name in selected) is (related is Book), selected


def test_tied_owners_are_those_with_equal_sort_values_in_a_row() -> None:
    rows = [
        (1, ("Alpha", 3)),
        (2, ("Alpha", 3)),  # another owner's: no tie
        (1, ("Alpha", 4)),
        (3, ("Émile", None)),
        (3, ("emile", None)),  # a case- and accent-insensitive collation's tie
        (4, ("x", None)),
        (4, ("y", None)),
    ]
    assert tied(rows) == {3}
    assert tied([(1, (None,)), (1, (None,))]) == {1}


@pytest.mark.parametrize("model, attribute", RELATIONS, ids=IDS)
def test_related_keys_of_one_owner_are_its_related_manager_s(rows, model, attribute) -> None:
    """One owner (a detail) gets its related manager's keys in its order too."""
    relation = Relation.find(model, attribute)
    for owner, keys in managers_keys(model, attribute).items():
        assert in_order(relation, relation.related_keys([owner])) == in_order(
            relation, {owner: keys}
        )


@pytest.mark.parametrize("owners", [1, 3], ids=["one-owner", "many-owners"])
def test_related_keys_of_another_field_are_its_values(rows, owners) -> None:
    """``key_field`` reads that column of the related rows (a related resource keyed by
    ``name``), in the same order."""
    expected = dict(list(managers_keys(Book, "tags", "name").items())[:owners])
    assert Relation.find(Book, "tags").related_keys(list(expected), "name") == expected


@pytest.mark.parametrize("attribute", ["tags", "reviews"])
def test_related_keys_of_a_page_are_one_query(rows, attribute, django_assert_num_queries) -> None:
    """A page's related keys are read in one query, however many owners it has."""
    relation = Relation.find(Book, attribute)
    keys = list(Book.objects.values_list("pk", flat=True))
    with django_assert_num_queries(1):
        relation.related_keys(keys)


def test_related_keys_of_no_owner_or_an_unknown_one(rows, django_assert_num_queries) -> None:
    """No owners: no query and nothing; an owner key without rows: an empty list."""
    relation = Relation.find(Book, "tags")
    with django_assert_num_queries(0):
        assert relation.related_keys([]) == {}
    assert relation.related_keys([987654]) == {987654: []}


@pytest.mark.parametrize(
    "model, attribute",
    [
        (Book, "author"),
        (Book, "title"),
        (Book, "author__books"),
        (Author, "membership"),
        (Book, lambda bundle: bundle.obj.tags.all()),
        (Book, "no_such_relation"),
    ],
    ids=["forward-fk", "column", "path", "query-name", "callable", "no-field"],
)
def test_relation_find_is_none_for_what_is_no_to_many_attribute(model, attribute) -> None:
    """Only a to-many attribute of the object is a :class:`Relation`: not a to-one, a column,
    a path, a reverse relation's query name (``membership``, whose attribute is
    ``membership_set``), a callable, a name no field has."""
    assert Relation.find(model, attribute) is None


def test_relation_find_knows_a_reverse_relation_by_its_accessor() -> None:
    """A reverse ForeignKey without ``related_name`` is found by Django's accessor name."""
    relation = Relation.find(Author, "membership_set")
    assert relation is not None and relation.target is Membership


@pytest.mark.parametrize(
    "model, attribute, ordered",
    [
        (Book, "tags", True),
        (Writer, "note_set", True),
        (Writer, "comments", True),
        (Workout, "exercises", True),
        (Book, "reviews", False),
        (Author, "clubs", False),
    ],
    ids=["Meta.ordering", "manager-order", "generic", "own-manager", "no-order", "m2m-no-order"],
)
def test_ordered_is_whether_the_related_manager_orders(db, model, attribute, ordered) -> None:
    """``ordered`` says whether the related manager's query has an order (its model's
    ``Meta.ordering``, or a third-party manager's own), as Django's queryset says."""
    relation = Relation.find(model, attribute)
    assert relation.ordered is ordered
    assert getattr(model(pk=1), attribute).all().ordered is ordered


@pytest.mark.parametrize(
    "model, attribute",
    [(Book, "tags"), (Author, "books"), (Writer, "comments")],
    ids=["Book.tags", "Author.books", "Writer.comments"],
)
def test_prefetched_are_the_objects_a_prefetch_left(rows, model, attribute) -> None:
    """``prefetched`` gives the related objects ``prefetch_related`` left in the owner's
    relation cache, in their order; ``None`` when it holds nothing for this relation."""
    relation = Relation.find(model, attribute)
    owners = list(model.objects.prefetch_related(attribute).order_by("pk"))
    for owner in owners:
        assert relation.prefetched(owner) == list(getattr(owner, attribute).all())
    plain = model.objects.order_by("pk").first()
    assert relation.prefetched(plain) is None


def test_prefetched_is_none_for_another_relation_s_cache(rows) -> None:
    """An owner whose cache holds another relation's objects has none of this one's."""
    book = Book.objects.prefetch_related("chapters").get(title="Dune")
    assert Relation.find(Book, "chapters").prefetched(book) == list(book.chapters.all())
    assert Relation.find(Book, "tags").prefetched(book) is None


# --- ToOneRelation ----------------------------------------------------------------
@pytest.mark.parametrize(
    "model, attribute, plain",
    [
        (Book, "author", True),
        (Book, "editor", True),
        (BookDetail, "book", True),
        (Loan, "book", False),
        (Loan, "branch", False),
        (Book, "detail", False),
    ],
    ids=["fk", "nullable-fk", "one-to-one", "no-constraint", "to-field", "reverse-one-to-one"],
)
def test_plain_forward_is_a_key_the_row_holds_naming_a_row(model, attribute, plain) -> None:
    """A forward relation to the primary key with its database constraint: the owner's row
    holds the related key, and the related row exists; not without the constraint, to
    another column, or for a reverse one-to-one (the row holds nothing)."""
    assert ToOneRelation.find(model, attribute).plain_forward is plain


@pytest.mark.parametrize(
    "model, attribute",
    [(Book, "tags"), (Book, "author__country"), (Book, "title")],
    ids=["to-many", "path", "column"],
)
def test_to_one_find_is_none_for_what_is_no_to_one_attribute(model, attribute) -> None:
    """Only a to-one attribute (forward or reverse) is a :class:`ToOneRelation`."""
    assert ToOneRelation.find(model, attribute) is None


@pytest.mark.parametrize(
    "model, attribute",
    [(Book, "author"), (Book, "editor"), (Book, "detail")],
    ids=["fk", "nullable-fk", "reverse-one-to-one"],
)
def test_to_one_related_keys_are_each_owner_s_related_key(rows, model, attribute) -> None:
    """Owner key -> the related object's key, ``None`` without one, forward and reverse."""
    owners = list(model.objects.order_by("pk"))
    expected = {owner.pk: getattr(getattr(owner, attribute, None), "pk", None) for owner in owners}
    assert set(expected.values()) != {None}
    relation = ToOneRelation.find(model, attribute)
    assert relation.related_keys(list(expected)) == expected


def test_to_one_related_keys_of_a_key_naming_no_row_is_none(rows) -> None:
    """Without a database constraint a key may name no row: Django finds no object there,
    and the related key is ``None``; an owner no row holds is left out."""
    borrower = Author.objects.first()
    kept = Loan.objects.create(book=Book.objects.first(), borrower=borrower)
    dangling = Loan.objects.create(book_id=987654, borrower=borrower)
    assert not Book.objects.filter(pk=dangling.book_id).exists()
    relation = ToOneRelation.find(Loan, "book")
    keys = relation.related_keys([kept.pk, dangling.pk, 555555])
    assert keys == {kept.pk: kept.book_id, dangling.pk: None}
    assert relation.related_keys([]) == {}


# --- prefetch_loader --------------------------------------------------------------
def test_a_page_loader_fills_the_relation_caches_of_a_page(rows, django_assert_num_queries) -> None:
    """The loader does what ``prefetch_related(lookup)`` does for the page's objects: one
    query, then the related objects from each object's cache."""
    load = prefetch_loader("tags")
    assert load.lookup == "tags"
    books = list(Book.objects.order_by("pk"))
    expected = [[tag.name for tag in Book.objects.get(pk=b.pk).tags.all()] for b in books]
    with django_assert_num_queries(1):
        load(books)
    with django_assert_num_queries(0):
        assert [[tag.name for tag in book.tags.all()] for book in books] == expected


def test_a_page_loader_on_no_objects_runs_no_query(db, django_assert_num_queries) -> None:
    """An empty page: nothing to load, no query."""
    with django_assert_num_queries(0):
        prefetch_loader("tags")([])


def test_a_page_of_one_object_is_left_to_its_related_managers(
    rows, django_assert_num_queries
) -> None:
    """A page of one object (a detail) is not prefetched, whatever the relation: its
    related managers' own queries (ModelResource's) give the objects and their order; a
    page of several is prefetched."""
    load = prefetch_loader("reviews")
    (dune,) = Book.objects.filter(title="Dune")
    with django_assert_num_queries(0):
        load([dune])
        prefetch_loader("tags")([dune])
        prefetch_loader("editor")([dune])
    assert Relation.find(Book, "reviews").prefetched(dune) is None
    assert Relation.find(Book, "tags").prefetched(dune) is None
    books = list(Book.objects.order_by("pk"))
    with django_assert_num_queries(1):
        load(books)
    (paged,) = [book for book in books if book.title == "Dune"]
    prefetched = Relation.find(Book, "reviews").prefetched(paged)
    assert sorted(review.stars for review in prefetched) == [2, 5]


def test_a_page_loader_fills_the_to_one_caches_of_a_page(rows, django_assert_num_queries) -> None:
    """A to-one lookup: one query, then each object's related object from its cache."""
    books = list(Book.objects.order_by("pk"))
    expected = {b.title: getattr(Book.objects.get(pk=b.pk).editor, "name", None) for b in books}
    with django_assert_num_queries(1):
        prefetch_loader("editor")(books)
    with django_assert_num_queries(0):
        assert {b.title: getattr(b.editor, "name", None) for b in books} == expected


def test_a_page_loader_follows_a_lookup_path(rows, django_assert_num_queries) -> None:
    """A path (``author__country``) loads each relation along it, one query per relation."""
    country = Country.objects.create(code="fr", name="France")
    Author.objects.filter(name="Bob").update(country=country)
    books = list(Book.objects.order_by("pk"))
    with django_assert_num_queries(2):
        prefetch_loader("author__country")(books)
    with django_assert_num_queries(0):
        assert {b.title: getattr(b.author.country, "code", None) for b in books} == {
            "Aeon": None,
            "Dune": "fr",
            "Emma": "fr",
        }
