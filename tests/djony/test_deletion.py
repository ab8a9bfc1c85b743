"""``on_delete`` honoured on deletes made through Pony, as Django's Collector does."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.db.models import ProtectedError, RestrictedError
from pony.orm import commit, db_session

from tests.testapp.models import (
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
    Publisher,
    Restaurant,
    Review,
    Tag,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def data() -> dict:
    de = Country.objects.create(code="DE", name="Deutschland")
    ann = Author.objects.create(name="Ann", country=de, country_by_code=de)
    bob = Author.objects.create(name="Bob", mentor=ann)
    tag = Tag.objects.create(name="t")
    book = Book.objects.create(title="Ann's", author=ann, editor=bob)
    book.tags.add(tag)
    BookDetail.objects.create(book=book, summary="s")
    Review.objects.create(book=book, reviewer=bob)
    ann.friends.add(bob)
    ann.follows.add(bob)
    club = Club.objects.create(name="c")
    Membership.objects.create(author=ann, club=club)
    return {"de": de, "ann": ann, "bob": bob, "tag": tag, "book": book, "club": club}


def delete(model, pk) -> None:
    with db_session:
        model.p[pk].delete()


def test_cascade(data: dict) -> None:
    delete(Author, data["ann"].pk)
    assert not Author.objects.filter(pk=data["ann"].pk).exists()
    assert not Book.objects.exists()  # author CASCADE
    assert not BookDetail.objects.exists()  # through the book, one-to-one CASCADE
    assert not Review.objects.exists()
    assert not Membership.objects.exists()  # explicit through, CASCADE
    assert Club.objects.exists() and Tag.objects.exists()
    assert not Author.friends.through.objects.exists()
    assert not Author.follows.through.objects.exists()
    assert not Book.tags.through.objects.exists()
    bob = Author.objects.get(pk=data["bob"].pk)
    assert bob.mentor is None  # self FK, SET_NULL


def test_set_null_including_to_field(data: dict) -> None:
    Protected.objects.all().delete()
    delete(Country, data["de"].pk)
    ann = Author.objects.get(pk=data["ann"].pk)
    assert ann.country is None
    assert ann.country_by_code is None  # to_field='code', related_name='+'


def test_protect_raises_and_deletes_nothing(data: dict) -> None:
    Protected.objects.create(country=data["de"])
    with pytest.raises(ProtectedError, match=r"Protected\.country") as info:
        delete(Country, data["de"].pk)
    assert {obj.get_pk() for obj in info.value.protected_objects} == set(
        Protected.objects.values_list("pk", flat=True)
    )
    assert Country.objects.filter(pk=data["de"].pk).exists()
    assert Author.objects.get(pk=data["ann"].pk).country == data["de"]


def test_protect_error_leaves_session_usable(data: dict) -> None:
    """Caught inside the session, a refused delete has changed nothing that a commit could save."""
    with db_session:
        with pytest.raises(ProtectedError, match=r"Book\.editor"):
            Author.p[data["bob"].pk].delete()  # Bob edits Ann's book
        Author.p[data["bob"].pk].name = "Bobby"
        commit()
    bob = Author.objects.get(pk=data["bob"].pk)
    assert bob.name == "Bobby"
    assert bob.mentor == data["ann"]
    assert Review.objects.get().reviewer == bob
    assert Book.objects.get().editor == bob


def test_restrict(data: dict) -> None:
    publisher = Publisher.objects.create(name="P")
    Book.objects.filter(pk=data["book"].pk).update(publisher=publisher)
    with pytest.raises(RestrictedError, match=r"Book\.publisher"):
        delete(Publisher, publisher.pk)
    assert Publisher.objects.filter(pk=publisher.pk).exists()
    Book.objects.filter(pk=data["book"].pk).update(publisher=None)
    delete(Publisher, publisher.pk)
    assert not Publisher.objects.exists()


def test_restrict_satisfied_by_cascade(data: dict) -> None:
    """As in Django: a RESTRICT reference from a row the same delete removes is fine."""
    ann, bob = data["ann"], data["bob"]
    Chapter.objects.create(book=data["book"], writer=ann)
    delete(Author, ann.pk)  # the book cascades, and the chapter with it
    assert not Chapter.objects.exists()
    other = Book.objects.create(title="Bob's", author=bob)
    carl = Author.objects.create(name="Carl")
    Chapter.objects.create(book=other, writer=carl)
    with pytest.raises(RestrictedError, match=r"Chapter\.writer"):
        delete(Author, carl.pk)
    assert Author.objects.filter(pk=carl.pk).exists()


def test_set_default(data: dict) -> None:
    review = Review.objects.get()
    Book.objects.update(editor=None)
    delete(Author, data["bob"].pk)
    review.refresh_from_db()
    assert review.reviewer is None  # SET_DEFAULT, default=None, related_name='+'


def test_set_with_callable(data: dict) -> None:
    loan = Loan.objects.create(book=data["book"], borrower=data["bob"])
    Book.objects.update(editor=None)
    delete(Author, data["bob"].pk)
    loan.refresh_from_db()
    assert loan.borrower.name == "(placeholder)"


def test_to_field_cascade(data: dict) -> None:
    loan = Loan.objects.create(book=data["book"], borrower=data["bob"], branch=data["de"])
    kept = Loan.objects.create(book=data["book"], borrower=data["bob"])
    delete(Country, data["de"].pk)
    assert not Loan.objects.filter(pk=loan.pk).exists()
    assert Loan.objects.filter(pk=kept.pk).exists()


def test_do_nothing_leaves_the_references(data: dict) -> None:
    book = data["book"]
    loan = Loan.objects.create(book=book, borrower=data["bob"])
    with db_session:
        pony_loan = Loan.p[loan.pk]  # loaded in the session, pointing at the book
        assert pony_loan.book.title == "Ann's"
        Book.p[book.pk].delete()
    assert not Book.objects.filter(pk=book.pk).exists()
    assert Loan.objects.filter(pk=loan.pk, book_id=book.pk).exists()  # as Django leaves it
    with db_session:  # the Set was never loaded in this session
        other = Book.objects.create(title="Other", author=data["bob"])
        Loan.objects.create(book=other, borrower=data["bob"])
        Book.p[other.pk].delete()
    assert Loan.objects.filter(book_id=other.pk).count() == 1


def test_custom_on_delete_function_is_refused_with_a_clear_error(data: dict) -> None:
    loan = Loan.objects.create(book=data["book"], borrower=data["ann"], keeper=data["bob"])
    Book.objects.update(editor=None)
    with pytest.raises(
        NotImplementedError,
        match=r"testapp\.Loan\.keeper.*clear_keeper.*through the Django model",
    ):
        delete(Author, data["bob"].pk)
    assert Author.objects.filter(pk=data["bob"].pk).exists()
    loan.keeper = None
    loan.save()
    delete(Author, data["bob"].pk)  # nothing refers to Bob that way any more
    assert not Author.objects.filter(pk=data["bob"].pk).exists()


def test_deleting_a_child_deletes_its_parents() -> None:
    pizzeria = Pizzeria.objects.create(name="P", serves_pizza=True, ovens=1)
    delete(Pizzeria, pizzeria.pk)
    assert not Pizzeria.objects.exists()
    assert not Restaurant.objects.exists()
    assert not Place.objects.exists()


def test_deleting_a_parent_deletes_its_children() -> None:
    pizzeria = Pizzeria.objects.create(name="P", serves_pizza=True, ovens=1)
    other = Place.objects.create(name="other")
    delete(Place, pizzeria.pk)
    assert not Pizzeria.objects.exists()
    assert not Restaurant.objects.exists()
    assert list(Place.objects.all()) == [other]


def test_deleting_a_middle_model_deletes_both_ways() -> None:
    pizzeria = Pizzeria.objects.create(name="P", serves_pizza=True, ovens=1)
    delete(Restaurant, pizzeria.pk)
    assert not Pizzeria.objects.exists()
    assert not Place.objects.exists()


def test_delete_matches_django(data: dict) -> None:
    """The same delete through Django and through Pony leaves the same rows."""

    def snapshot() -> dict:
        # Authors by name: a SET(callable) may create a row (Loan.borrower's creates
        # "(placeholder)" when loans refer to the deleted author), and on
        # PostgreSQL/MariaDB the rollback below does not give its id back.
        return {
            model.__name__: sorted(model.objects.values_list("pk", flat=True))
            for model in (Book, BookDetail, Review, Membership, Country)
        } | {
            "Author": sorted(
                Author.objects.values_list("name", "mentor__name"), key=lambda row: row[0]
            )
        }

    Book.objects.update(editor=None)
    carl = Author.objects.create(name="Carl", mentor=data["bob"])
    Book.objects.create(title="Bob's", author=data["bob"])
    bob_pk = data["bob"].pk
    with transaction.atomic():
        sid = connection.savepoint()
        Author.objects.get(pk=bob_pk).delete()
        expected_after = snapshot()
        transaction.savepoint_rollback(sid)
    assert Author.objects.filter(pk=bob_pk).exists()
    delete(Author, bob_pk)
    assert snapshot() == expected_after
    assert Author.objects.get(pk=carl.pk).mentor is None
