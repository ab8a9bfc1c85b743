"""Relations: what Django writes Pony follows, and what Pony writes Django sees.

ForeignKey and OneToOne, reverse names (``related_name``, ``<model>_set``,
hidden ``'+'``), several FKs to one model, self FKs, symmetric and
non-symmetric self many-to-many, ``to_field``, explicit ``through``,
multi-table inheritance, proxies, abstract models and Django's own apps.
"""

from __future__ import annotations

import uuid

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from pony.orm import db_session, select

import djony
from djony.registry import entity_for
from tests.testapp.models import (
    AbstractThing,
    Author,
    Book,
    BookDetail,
    Club,
    ConcreteThing,
    Country,
    Membership,
    Pizzeria,
    Place,
    ProxyAuthor,
    Publisher,
    Restaurant,
    Review,
    Tag,
)

pytestmark = pytest.mark.django_db


def pks(objects) -> set:
    return {obj.get_pk() for obj in objects}


def m2m_rows(field) -> set[tuple[int, int]]:
    through = field.remote_field.through
    return set(through.objects.values_list(field.m2m_column_name(), field.m2m_reverse_name()))


@pytest.fixture
def library() -> dict:
    de = Country.objects.create(code="DE", name="Deutschland")
    jp = Country.objects.create(code="JP", name="日本")
    ann = Author.objects.create(name="Ann", country=de, country_by_code=jp)
    bob = Author.objects.create(name="Bob", mentor=ann, country=de)
    publisher = Publisher.objects.create(name="Pub")
    book = Book.objects.create(title="B1", author=ann, editor=bob, publisher=publisher)
    other = Book.objects.create(title="B2", author=bob, editor=bob)
    return {
        "de": de,
        "jp": jp,
        "ann": ann,
        "bob": bob,
        "publisher": publisher,
        "book": book,
        "other": other,
    }


def test_foreign_keys_and_reverse_names(library: dict) -> None:
    ann, bob, book, other = library["ann"], library["bob"], library["book"], library["other"]
    with db_session:
        pony_book = Book.p[book.pk]
        assert pony_book.author.name == "Ann"
        assert pony_book.editor.name == "Bob"
        assert pony_book.publisher.uid == library["publisher"].uid
        # related_name on two FKs to the same model
        assert pks(Author.p[ann.pk].books) == {book.pk}
        assert pks(Author.p[bob.pk].books) == {other.pk}
        assert pks(Author.p[bob.pk].edited_books) == {book.pk, other.pk}
        # default reverse name <model>_set, with a UUID primary key
        assert pks(Publisher.p[library["publisher"].uid].book_set) == {book.pk}
        assert pks(Country.p[library["de"].pk].authors) == {ann.pk, bob.pk}
        # self FK and its reverse
        assert Author.p[bob.pk].mentor.name == "Ann"
        assert pks(Author.p[ann.pk].mentees) == {bob.pk}
        assert Author.p[ann.pk].mentor is None
        # relations in queries
        titles = select(
            b.title for b in Book.p if b.author.country.code == "DE" and b.editor.name == "Bob"
        )
        assert set(titles) == {"B1", "B2"}


def test_hidden_reverse_name_is_not_django_default() -> None:
    entity = Author.p
    names = {attr.name for attr in entity._attrs_}
    assert "review_set" not in names
    assert "reviews" not in names
    assert any(name.startswith("_djony_") and "reviewer" in name for name in names)
    assert not hasattr(Country.p, "author_set")


def test_pony_writes_foreign_keys(library: dict) -> None:
    with db_session:
        ann, bob = Author.p[library["ann"].pk], Author.p[library["bob"].pk]
        new = Book.p(title="Pony book", author=bob, editor=ann, isbn="123")
        new.flush()
        pk = new.id
        ann.mentor = bob
        bob.mentor = None
    book = Book.objects.get(pk=pk)
    assert (book.author, book.editor, book.publisher) == (library["bob"], library["ann"], None)
    assert Author.objects.get(pk=library["ann"].pk).mentor == library["bob"]
    assert Author.objects.get(pk=library["bob"].pk).mentor is None


def test_one_to_one(library: dict) -> None:
    detail = BookDetail.objects.create(book=library["book"], summary="Zusammenfassung")
    with db_session:
        assert Book.p[library["book"].pk].detail.summary == "Zusammenfassung"
        assert BookDetail.p[detail.pk].book.title == "B1"
        assert Book.p[library["other"].pk].detail is None
        BookDetail.p(book=Book.p[library["other"].pk], summary="Pony")
    assert library["other"].__class__.objects.get(pk=library["other"].pk).detail.summary == "Pony"


def test_to_field_relation(library: dict) -> None:
    ann = library["ann"]
    with db_session:
        author = Author.p[ann.pk]
        assert author.country_by_code_id == "JP"
        assert author.country_by_code.name == "日本"
        assert select(a.name for a in Author.p if a.country_by_code_id == "JP")[:] == ["Ann"]
        author.country_by_code = Country.p.get(code="DE")
    assert Author.objects.get(pk=ann.pk).country_by_code == library["de"]
    with db_session:
        Author.p[ann.pk].country_by_code = None
        created = Author.p(name="Yuki", country_by_code=Country.p.get(code="JP"))
        created.flush()
        pk = created.id
    assert Author.objects.get(pk=ann.pk).country_by_code is None
    assert Author.objects.get(pk=pk).country_by_code == library["jp"]


def test_many_to_many_both_ways(library: dict) -> None:
    book = library["book"]
    red, blue = Tag.objects.create(name="red"), Tag.objects.create(name="blue")
    book.tags.add(red)
    with db_session:
        assert pks(Book.p[book.pk].tags) == {red.pk}
        assert pks(Tag.p[red.pk].books) == {book.pk}
        Book.p[book.pk].tags.add(Tag.p[blue.pk])
        Tag.p[red.pk].books.add(Book.p[library["other"].pk])
    assert set(book.tags.values_list("name", flat=True)) == {"red", "blue"}
    assert set(red.books.values_list("title", flat=True)) == {"B1", "B2"}
    with db_session:
        Book.p[book.pk].tags.remove(Tag.p[red.pk])
    assert set(book.tags.values_list("name", flat=True)) == {"blue"}


def test_symmetric_self_many_to_many(library: dict) -> None:
    ann, bob = library["ann"], library["bob"]
    cid = Author.objects.create(name="Cid")
    ann.friends.add(bob)  # Django stores both directions
    field = Author._meta.get_field("friends")
    assert m2m_rows(field) == {(ann.pk, bob.pk), (bob.pk, ann.pk)}
    with db_session:
        assert pks(Author.p[ann.pk].friends) == {bob.pk}
        assert pks(Author.p[bob.pk].friends) == {ann.pk}
        Author.p[cid.pk].friends.add(Author.p[ann.pk])
    assert m2m_rows(field) == {
        (ann.pk, bob.pk),
        (bob.pk, ann.pk),
        (cid.pk, ann.pk),
        (ann.pk, cid.pk),
    }
    assert set(ann.friends.values_list("name", flat=True)) == {"Bob", "Cid"}
    assert set(cid.friends.values_list("name", flat=True)) == {"Ann"}
    with db_session:
        Author.p[ann.pk].friends.remove(Author.p[bob.pk])
    assert m2m_rows(field) == {(cid.pk, ann.pk), (ann.pk, cid.pk)}
    ann.friends.remove(cid)
    with db_session:
        assert pks(Author.p[cid.pk].friends) == set()


def test_non_symmetric_self_many_to_many(library: dict) -> None:
    ann, bob = library["ann"], library["bob"]
    cid = Author.objects.create(name="Cid")
    ann.follows.add(bob)
    field = Author._meta.get_field("follows")
    with db_session:
        assert pks(Author.p[ann.pk].follows) == {bob.pk}
        assert pks(Author.p[bob.pk].followers) == {ann.pk}
        assert pks(Author.p[bob.pk].follows) == set()
        Author.p[cid.pk].follows.add(Author.p[ann.pk])
        Author.p[bob.pk].followers.add(Author.p[cid.pk])
    assert m2m_rows(field) == {(ann.pk, bob.pk), (cid.pk, ann.pk), (cid.pk, bob.pk)}
    assert set(cid.follows.values_list("name", flat=True)) == {"Ann", "Bob"}
    assert set(bob.followers.values_list("name", flat=True)) == {"Ann", "Cid"}


def test_explicit_through(library: dict) -> None:
    ann, bob = library["ann"], library["bob"]
    club = Club.objects.create(name="Club")
    Membership.objects.create(author=ann, club=club)
    with db_session:
        assert pks(Club.p[club.pk].members) == {ann.pk}
        assert pks(Author.p[ann.pk].clubs) == {club.pk}
        assert pks(Author.p[ann.pk].membership_set) == {Membership.objects.get().pk}
        Membership.p(author=Author.p[bob.pk], club=Club.p[club.pk])
    assert set(club.members.values_list("name", flat=True)) == {"Ann", "Bob"}
    assert list(bob.clubs.all()) == [club]


def test_multi_table_inheritance_reads_parent_fields() -> None:
    pizzeria = Pizzeria.objects.create(
        name="Da Mario", address="Via Roma", serves_pizza=True, ovens=3
    )
    with db_session:
        entity = Pizzeria.p[pizzeria.pk]
        assert (entity.name, entity.address, entity.serves_pizza, entity.ovens) == (
            "Da Mario",
            "Via Roma",
            True,
            3,
        )
        assert entity.id == pizzeria.pk
        assert Restaurant.p[pizzeria.pk].name == "Da Mario"
        assert Place.p[pizzeria.pk].restaurant.pizzeria.ovens == 3
        # parent fields work inside queries too
        assert select(p.ovens for p in Pizzeria.p if p.name == "Da Mario")[:] == [3]
        assert select(
            r.address for r in Restaurant.p if r.serves_pizza and r.name.startswith("Da")
        )[:] == ["Via Roma"]


def test_multi_table_inheritance_writes_parent_fields() -> None:
    place = Restaurant.objects.create(name="Old", serves_pizza=False)
    with db_session:
        restaurant = Restaurant.p[place.pk]
        restaurant.name = "New"
        restaurant.serves_pizza = True
        created = Pizzeria.p(name="Pony Pizza", address="Ponyweg 1", serves_pizza=True, ovens=2)
        created.flush()
        new_pk = created.id
    restaurant = Restaurant.objects.get(pk=place.pk)
    assert (restaurant.name, restaurant.serves_pizza) == ("New", True)
    pizzeria = Pizzeria.objects.get(pk=new_pk)
    assert (pizzeria.name, pizzeria.address, pizzeria.serves_pizza, pizzeria.ovens) == (
        "Pony Pizza",
        "Ponyweg 1",
        True,
        2,
    )
    assert Place.objects.filter(pk=new_pk).exists()


def test_multi_table_constructor_refuses_link_and_parent_fields() -> None:
    with db_session:
        place = Place.p(name="x")
        with pytest.raises(TypeError, match="place_ptr"):
            Restaurant.p(place_ptr=place, name="y")


def test_proxy_abstract_and_concrete() -> None:
    assert ProxyAuthor.p is Author.p
    author = ProxyAuthor.objects.create(name="Proxy")
    with db_session:
        assert Author.p[author.pk].name == "Proxy"
    assert not hasattr(AbstractThing, "p")
    with pytest.raises(LookupError, match="abstract"):
        entity_for(AbstractThing)
    thing = ConcreteThing.objects.create(label="L", weight=5)
    with db_session:
        assert (ConcreteThing.p[thing.pk].label, ConcreteThing.p[thing.pk].weight) == ("L", 5)


def test_django_contrib_models_have_entities() -> None:
    for model in (User, Group, Permission, ContentType, Session, LogEntry):
        assert model.p._table_ == model._meta.db_table
    user = User.objects.create_user("ünïcode", password="x")
    group = Group.objects.create(name="g")
    user.groups.add(group)
    permission = Permission.objects.get(codename="add_user")
    user.user_permissions.add(permission)
    with db_session:
        pony_user = User.p[user.pk]
        assert pony_user.username == "ünïcode"
        assert pks(pony_user.groups) == {group.pk}
        assert pks(pony_user.user_permissions) == {permission.pk}
        assert pony_user.user_permissions.select().first().content_type.model == "user"
        assert pks(Group.p[group.pk].user_set) == {user.pk}
        assert (
            ContentType.p.get(app_label="auth", model="user").id
            == ContentType.objects.get_for_model(User).pk
        )


def test_entities_share_one_database() -> None:
    assert Author.p._database_ is djony.db()
    assert Book.p._database_.entities["Book"] is Book.p
    assert uuid.UUID is Publisher.p._pk_attrs_[0].py_type


def test_review_reverse_is_hidden_but_works(library: dict) -> None:
    review = Review.objects.create(book=library["book"], reviewer=library["ann"], stars=5)
    with db_session:
        assert Review.p[review.pk].reviewer.name == "Ann"
        assert pks(Book.p[library["book"].pk].reviews) == {review.pk}
