"""Random reads and writes through a page's instances answer as Django's own instances do.

A page of authors (:func:`~djony.objects.peers.load_together`, inside a watched read) is
read through its relations (iterated, counted, looked up with ``get()``, chained with
``select_related``, walked on to the books' tags and publishers, a mentor through a
foreign key) between writes of every kind (rows created, changed, deleted; links added
and removed through managers and around them).  Each read must give what the same read
gives on twins of the page's objects loaded at the same time by Django alone (which read
their relations when asked, and cache a foreign key's object as Django does); the books'
titles tie often (``Book``'s order is its title)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from djony.bridge.writes import watching
from tests.djony.pages import page
from tests.testapp.models import Author, Book, Chapter, Publisher, Review, Tag

TITLES = ["Alpha", "Beta", "Gamma"]


def books_of(author):
    return [book.pk for book in author.books.all()]


def counted(author):
    return author.books.count(), author.books.exists(), author.edited_books.exists()


def chained(author):
    return [
        (book.pk, book.publisher and book.publisher.name, book.author_id)
        for book in author.books.select_related("publisher")
    ]


def walked(author):
    return [
        (book.pk, [tag.name for tag in book.tags.all()], book.tags.count(), book.editor_id)
        for book in author.books.all()
    ]


def tags_of(author):
    return sorted(tag.pk for book in author.books.all() for tag in book.tags.all())


def looked_up(author):
    try:
        book = author.books.get(title="Alpha")
    except (Book.DoesNotExist, Book.MultipleObjectsReturned) as exc:
        return type(exc).__name__, str(exc)
    return book.pk, book.author is author


def mentored(author):
    mentor = author.mentor
    return mentor and (mentor.pk, mentor.name)


READS = [books_of, counted, chained, walked, tags_of, looked_up, mentored]


def write(rng: random.Random, authors: list[Author]) -> None:
    """One write of a random kind, through Django (never through a page's instance)."""
    author = rng.choice(authors)
    books = list(Book.objects.order_by("pk"))
    kind = rng.randrange(8)
    if kind == 0 or not books:
        Book.objects.create(title=rng.choice(TITLES), author=author)
    elif kind == 1:
        Book.objects.filter(pk=rng.choice(books).pk).delete()
    elif kind == 2:
        Book.objects.filter(pk=rng.choice(books).pk).update(title=rng.choice(TITLES))
    elif kind == 3:
        rng.choice(books).tags.add(rng.choice(list(Tag.objects.all())))
    elif kind == 4:
        rng.choice(books).tags.clear()
    elif kind == 5:
        Book.objects.filter(pk=rng.choice(books).pk).update(
            publisher=rng.choice([None, *Publisher.objects.all()]), editor=author
        )
    elif kind == 6:
        Author.objects.filter(pk=author.pk).update(mentor=rng.choice([None, *authors]))
    else:
        Author.objects.filter(pk=rng.choice(authors).pk).update(name=f"renamed {rng.random()}")


def run(rng: random.Random, model: type, reads: list, write_one: Any, steps: int = 50) -> None:
    """``steps`` random steps on a page of ``model``'s objects and on their twins: a write
    (``write_one()``) or one of ``reads`` of the same object on both, compared."""
    objects = page(model)
    twins = list(model.objects.order_by("pk"))
    with watching():
        for step in range(steps):
            if rng.random() < 0.3:
                write_one()
                continue
            read = rng.choice(reads)
            at = rng.randrange(len(objects))
            got = read(objects[at])
            want = read(twins[at])
            assert got == want, f"step {step}: {read.__name__} of {model.__name__} {at}"


@pytest.mark.parametrize("seed", range(12))
def test_random_reads_and_writes_answer_as_django(db, seed) -> None:
    rng = random.Random(seed)
    tags = [Tag.objects.create(name=f"tag {n}") for n in range(4)]
    Publisher.objects.create(name="House")
    authors = [Author.objects.create(name=f"author {n}") for n in range(4)]
    for _ in range(12):
        book = Book.objects.create(title=rng.choice(TITLES), author=rng.choice(authors))
        book.tags.set(rng.sample(tags, rng.randrange(3)))
    for n, author in enumerate(authors[1:]):
        author.mentor = authors[n]
        author.save()
    run(rng, Author, READS, lambda: write(rng, authors))


def tag_names(book):
    return [tag.name for tag in book.tags.all()]


def tag_counts(book):
    return book.tags.count(), book.tags.exists(), book.reviews.count(), book.reviews.exists()


def starred(book):
    try:
        review = book.reviews.get(stars=2)
    except (Review.DoesNotExist, Review.MultipleObjectsReturned) as exc:
        return type(exc).__name__, str(exc)
    return review.pk, review.body, review.book is book


def written_by(book):
    return book.author.name, book.author.country_id, book.editor and book.editor.name


def chapters(book):
    return sorted((c.pk, c.writer.name) for c in book.chapters.select_related("writer"))


def taggers(book):
    return [sorted(other.pk for other in tag.books.all()) for tag in book.tags.all()]


BOOK_READS = [tag_names, tag_counts, starred, written_by, chapters, taggers]


def write_book(rng: random.Random, books: list[Book]) -> None:
    book = rng.choice(books)
    tags = list(Tag.objects.all())
    reviews = list(Review.objects.order_by("pk"))
    kind = rng.randrange(7)
    if kind == 0 or not reviews:
        Review.objects.create(book=book, stars=rng.randrange(4), body=f"body {rng.random()}")
    elif kind == 1:
        Review.objects.filter(pk=rng.choice(reviews).pk).delete()
    elif kind == 2:
        Review.objects.filter(pk=rng.choice(reviews).pk).update(stars=rng.randrange(4))
    elif kind == 3:
        book.tags.add(rng.choice(tags))
    elif kind == 4:
        Book.tags.through.objects.filter(tag=rng.choice(tags)).delete()  # around the managers
    elif kind == 5:
        Author.objects.filter(pk=book.author_id).update(name=f"renamed {rng.random()}")
    else:
        Chapter.objects.create(book=book, writer=rng.choice(list(Author.objects.all())))


@pytest.mark.parametrize("seed", range(12))
def test_random_reads_and_writes_of_books_answer_as_django(db, seed) -> None:
    rng = random.Random(seed)
    tags = [Tag.objects.create(name=f"tag {n}") for n in range(4)]
    authors = [Author.objects.create(name=f"author {n}") for n in range(3)]
    for _ in range(8):
        book = Book.objects.create(
            title=rng.choice(TITLES),
            author=rng.choice(authors),
            editor=rng.choice([None, *authors]),
        )
        book.tags.set(rng.sample(tags, rng.randrange(3)))
        for _ in range(rng.randrange(3)):
            Review.objects.create(book=book, stars=rng.randrange(4))
    run(rng, Book, BOOK_READS, lambda: write_book(rng, list(Book.objects.order_by("pk"))))
