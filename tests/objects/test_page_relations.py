"""A page's to-many relation loaded by SQL kept per relation and page size
(``djony.objects.page_relations``).

Each test loads the same owners twice, once by :func:`~djony.objects.page_relations.load`
and once by Django's own ``prefetch_related_objects``, and compares what every owner's
relation cache then holds (the objects, their attributes, the queryset around them) and
the SQL that ran; then shows what is compiled once, and where Django's own prefetch runs.
"""

from __future__ import annotations

import pytest
from django.db import connection, models
from django.test.utils import CaptureQueriesContext

from djony.objects import page_relations
from djony.serving import load_together
from tests.objects.relations import RELATIONS
from tests.patterns.models import Critique, Novel, Scribe
from tests.testapp.models import Author, Book, Club, Membership, Review, Tag

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def forget():
    page_relations._KEPT.clear()
    yield
    page_relations._KEPT.clear()


@pytest.fixture
def books():
    tags = [Tag.objects.create(name=name) for name in ("sf", "art", "zen", "war")]
    authors = [Author.objects.create(name=name) for name in ("Ann", "Bob", "Cy", "Di")]
    authors[0].friends.add(authors[1], authors[2])
    club = Club.objects.create(name="Readers")
    Membership.objects.create(author=authors[0], club=club)
    Membership.objects.create(author=authors[2], club=club)
    made = []
    for index in range(8):
        book = Book.objects.create(title=f"T{index}", author=authors[index % 3], isbn=str(index))
        book.tags.set(tags[index % 4 : index % 4 + index % 3])
        for stars in range(index % 3):
            Review.objects.create(book=book, stars=stars, reviewer=authors[3])
        made.append(book)
    return made


def cached(owner: models.Model) -> dict:
    """What ``owner``'s relation cache holds: per name, the queryset's class, whether its
    prefetch is done, and each object's class, database, attributes and the related
    objects it knows (by key)."""
    found = {}
    for name, queryset in owner._prefetched_objects_cache.items():
        objects = [
            (
                type(obj),
                obj._state.db,
                {k: v for k, v in vars(obj).items() if k != "_state"},
                {k: (type(v), v.pk) for k, v in obj._state.fields_cache.items()},
            )
            for obj in queryset._result_cache
        ]
        found[name] = (type(queryset), queryset._prefetch_done, queryset.db, objects)
    return found


def pages(model: type[models.Model]) -> list[list[int]]:
    """Two different pages of as many owners, and one of another size."""
    keys = list(model.objects.order_by("pk").values_list("pk", flat=True))
    half = max(1, len(keys) // 2)
    return [keys[:half], keys[-half:], keys]


def loaded(model, keys, accessor, by_kept: bool):
    owners = [model.objects.get(pk=key) for key in keys]
    with CaptureQueriesContext(connection) as reads:
        if by_kept:
            assert page_relations.load(owners, accessor)
        else:
            models.prefetch_related_objects(owners, accessor)
    return owners, [query["sql"] for query in reads]


@pytest.mark.parametrize(("model", "accessor"), RELATIONS, ids=lambda v: getattr(v, "__name__", v))
def test_each_owner_holds_what_django_s_prefetch_leaves_with_the_same_sql(books, model, accessor):
    for keys in pages(model):
        expected, django_sql = loaded(model, keys, accessor, by_kept=False)
        found, sql = loaded(model, keys, accessor, by_kept=True)
        assert [cached(owner) for owner in found] == [cached(owner) for owner in expected]
        assert sql == django_sql
        with CaptureQueriesContext(connection) as reads:
            assert [[obj.pk for obj in getattr(owner, accessor).all()] for owner in found] == [
                [obj.pk for obj in getattr(owner, accessor).all()] for owner in expected
            ]
        assert len(reads) == 0


def test_pages_of_one_size_compile_once(books, compiles):
    first, second, every = pages(Book)
    loaded(Book, first, "tags", by_kept=True)  # compiles and keeps
    before = len(compiles)
    found, _ = loaded(Book, second, "tags", by_kept=True)
    assert compiles[before:].count(Tag) == 0
    expected, _ = loaded(Book, second, "tags", by_kept=False)
    assert [cached(owner) for owner in found] == [cached(owner) for owner in expected]
    before = len(compiles)
    loaded(Book, every, "tags", by_kept=True)  # another size: compiled for it
    assert compiles[before:].count(Tag) == 1


def test_a_reverse_foreign_key_s_objects_point_at_their_owner(books):
    page_keys = pages(Book)[0]
    loaded(Book, page_keys, "reviews", by_kept=True)  # keeps the SQL
    owners, _ = loaded(Book, page_keys, "reviews", by_kept=True)
    with CaptureQueriesContext(connection) as reads:
        pairs = [(review.book, owner) for owner in owners for review in owner.reviews.all()]
    assert pairs and all(book is owner for book, owner in pairs)
    assert len(reads) == 0


def test_a_page_naming_an_owner_twice_gives_each_copy_its_objects(books):
    keys = [books[1].pk, books[2].pk, books[1].pk]
    loaded(Book, keys, "tags", by_kept=True)
    found, sql = loaded(Book, keys, "tags", by_kept=True)
    expected, django_sql = loaded(Book, keys, "tags", by_kept=False)
    assert [cached(owner) for owner in found] == [cached(owner) for owner in expected]
    assert sql == django_sql


def test_owners_already_loaded_are_left_and_a_write_drops_the_loaded_entry(books):
    owners = [Book.objects.get(pk=book.pk) for book in books[:4]]
    models.prefetch_related_objects(owners[:1], "tags")
    kept_first = owners[0]._prefetched_objects_cache["tags"]
    assert page_relations.load(owners, "tags")
    assert owners[0]._prefetched_objects_cache["tags"] is kept_first
    extra = Tag.objects.create(name="new")
    owners[1].tags.add(extra)
    assert "tags" not in owners[1]._prefetched_objects_cache
    assert [t.name for t in owners[1].tags.all()] == [
        t.name for t in Book.objects.get(pk=owners[1].pk).tags.all()
    ]


def test_what_django_decides_is_left_to_django():
    scribe = Scribe.objects.create(name="Le Guin", slug="le-guin", first_name="U", last_name="LG")
    novels = [Novel.objects.create(title=title, writer=scribe) for title in ("Lathe", "Dispo")]
    for novel in novels:
        Critique.everything.create(novel=novel, published=True, text="yes")
        Critique.everything.create(novel=novel, published=False, text="no")
    # A default manager that filters (its query may change): nothing kept, nothing done.
    assert not page_relations.load(list(Novel.objects.all()), "critique_set")
    assert not page_relations._KEPT
    # A lookup through several relations, a to-one relation, no page, mixed classes.
    assert not page_relations.load(list(Novel.objects.all()), "writer__novel_set")
    assert not page_relations.load(list(Novel.objects.all()), "writer")
    assert not page_relations.load([], "critique_set")
    assert not page_relations.load([novels[0], scribe], "critique_set")


def test_a_page_s_instances_read_each_relation_in_one_query(books):
    """Through :func:`~djony.objects.peers.load_together`: a hook iterating ``obj.tags.all()``
    on each object of a page, as ``prefetch_related`` would have loaded it."""
    for _ in range(2):  # the second page runs the kept SQL
        page = list(Book.objects.order_by("pk")[:5])
        load_together(page)
        with CaptureQueriesContext(connection) as reads:
            names = [[t.name for t in book.tags.all()] for book in page]
        assert len(reads) == 1
        reference = Book.objects.order_by("pk").prefetch_related("tags")[:5]
        assert names == [[t.name for t in book.tags.all()] for book in reference]


def prefetched(queryset: models.QuerySet, by_kept: bool) -> tuple[list, list[str]]:
    """``queryset``'s objects with its own ``prefetch_related``: Django's, or the objects
    read without it and then :func:`~djony.objects.page_relations.prefetch`."""
    with CaptureQueriesContext(connection) as reads:
        if by_kept:
            lookups = queryset._prefetch_related_lookups
            found = list(queryset.prefetch_related(None))
            page_relations.prefetch(found, lookups)
        else:
            found = list(queryset)
    return found, [query["sql"] for query in reads]


def joined(book: Book) -> tuple:
    """What a book, the author joined into it and that author's books hold in their
    relation caches (each related object's own caches by what they hold)."""

    def held(obj: models.Model) -> dict:
        return {
            name: [(rel.pk, held(rel)) for rel in queryset._result_cache]
            for name, queryset in getattr(obj, "_prefetched_objects_cache", {}).items()
        }

    author = book.author
    shallow = {k: v for k, v in cached(book).items()}
    return (
        [
            (
                name,
                found[:3],
                [
                    (
                        o[0],
                        o[1],
                        {k: v for k, v in o[2].items() if k != "_prefetched_objects_cache"},
                        o[3],
                    )
                    for o in found[3]
                ],
            )
            for name, found in shallow.items()
        ],
        held(book),
        held(author),
        [
            b.author is author
            for b in getattr(author, "_prefetched_objects_cache", {}).get("books", ())
        ],
    )


QUERYSETS = {
    # Through an object select_related joined in, then a reverse foreign key, and a plain
    # many-to-many of the books themselves.
    "joined": lambda: Book.objects.select_related("author").prefetch_related(
        "author__books", "tags"
    ),
    # The same level twice, a relation of the related objects' own (by Django: the
    # level before is a to-many), and a Prefetch of its own queryset (by Django).
    "mixed": lambda: Book.objects.select_related("author").prefetch_related(
        "author__books",
        "author__books__tags",
        models.Prefetch("reviews", queryset=Review.objects.order_by("-stars")),
        "author__friends",
    ),
    # A level nothing joined in: Django's prefetch, which reads the authors itself.
    "unjoined": lambda: Book.objects.prefetch_related("author__books", "tags"),
}


@pytest.mark.parametrize("name", QUERYSETS)
def test_a_queryset_s_own_prefetch_leaves_what_django_s_leaves(books, name):
    for keys in ([b.pk for b in books[:3]], [b.pk for b in books[3:6]], [b.pk for b in books]):
        queryset = QUERYSETS[name]().filter(pk__in=keys).order_by("pk")
        expected, django_sql = prefetched(queryset, by_kept=False)
        found, sql = prefetched(queryset, by_kept=True)
        assert [joined(book) for book in found] == [joined(book) for book in expected]
        assert sql == django_sql
        with CaptureQueriesContext(connection) as reads:
            shown = [[b.title for b in book.author.books.all()] for book in found]
        assert len(reads) == 0
        assert shown == [[b.title for b in book.author.books.all()] for book in expected]


def test_a_queryset_s_own_prefetch_compiles_once_per_page_size(books, compiles):
    queryset = QUERYSETS["joined"]().order_by("pk")
    prefetched(queryset.filter(pk__in=[b.pk for b in books[:3]]), by_kept=True)
    before = len(compiles)
    prefetched(queryset.filter(pk__in=[b.pk for b in books[3:6]]), by_kept=True)
    assert compiles[before:].count(Book) == 1  # the page's own query; its prefetch is kept
    assert compiles[before:].count(Tag) == 0
