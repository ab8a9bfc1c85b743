"""The sources of related fields shown as URIs (:mod:`tastypie_djony.sources.related`): a
to-one's URI from the key its row holds, a to-many's URIs from the page's related keys, each
with its null rule, its declined reasons and its answer on the object path."""

from __future__ import annotations

import pytest
from tastypie import fields
from tastypie.bundle import Bundle
from tastypie.exceptions import ApiFieldError

from tastypie_djony.declines import Fallback
from tastypie_djony.objectlist import DjonyObjectList
from tastypie_djony.sources import OWN_CODE
from tastypie_djony.sources.related import ToManyKeySource, ToOneKeySource
from tastypie_djony.uris import uris_of
from tests.serve.sources.helpers import bind, detail_uri, page_for, plan_of, source_of
from tests.serve.unit_api import (
    AuthorResource,
    BookResource,
    LoanResource,
    NoColumnCountryResource,
    NoColumnTagResource,
    OwnUrisTagResource,
    TagResource,
)
from tests.testapp.models import Author, Book, Loan, Tag

pytestmark = pytest.mark.urls("tests.serve.unit_api")


class OwnRelatedField(fields.ToOneField):
    """A to-one field that turns its related object into a URI its own way."""

    def dehydrate_related(self, bundle, related_resource, for_list=True):
        return "mine"


class OwnRelatedManyField(fields.ToManyField):
    def dehydrate_related(self, bundle, related_resource, for_list=True):
        return "mine"


# --- ToOneKeySource ---------------------------------------------------------------
def test_a_to_one_uri_is_built_from_the_key_its_row_holds() -> None:
    """A forward ForeignKey's URI is the related resource's detail URI of the row's key
    column, built by the related resource's :class:`~tastypie_djony.uris.DetailUris`."""
    plan = plan_of(BookResource)
    source = source_of(plan, "author")
    assert type(source) is ToOneKeySource
    assert source.columns() == ["author_id"]
    related = plan.resource.fields["author"].get_related_resource(None)
    assert source.uris() == [uris_of(related)]
    bind(source)
    assert source.value((5,), page_for(source, [])) == detail_uri("author", pk=5)


def test_a_missing_to_one_is_none_when_null_else_the_general_path() -> None:
    """No key: ``None`` for a ``null`` field; otherwise the row goes to the general path,
    where Tastypie raises its error for the object."""
    plan = plan_of(BookResource)
    editor, author = source_of(plan, "editor"), source_of(plan, "author")
    bind(editor)
    bind(author)
    assert editor.value((None,), page_for(editor, [])) is None
    with pytest.raises(Fallback):
        author.value((None,), page_for(author, []))


def test_a_to_field_relation_shown_by_the_primary_key_reads_it_through_a_join() -> None:
    """``to_field="code"`` shown by a resource keyed by the primary key: the row holds the
    code, the URI needs the related row's key, read through a join."""
    source = source_of(plan_of(AuthorResource), "country_by_code")
    assert source.columns() == ["country_by_code_id", "country_by_code__id"]
    bind(source)
    page = page_for(source, [])
    assert source.value(("fr", 3), page) == detail_uri("country", pk=3)
    assert source.value((None, None), page) is None
    with pytest.raises(Fallback):
        source.value(("fr", None), page)  # a code but no related row read: not for the rows


def test_a_to_field_relation_shown_by_that_column_needs_no_join() -> None:
    """The same relation shown by a resource keyed by ``code``: the row's own column is the
    URI's key."""
    source = source_of(plan_of(AuthorResource), "country_code")
    assert source.columns() == ["country_by_code_id"]
    bind(source)
    assert source.value(("fr",), page_for(source, [])) == detail_uri("country-by-code", code="fr")


@pytest.mark.parametrize(
    "resource_class, name, field, reason",
    [
        (
            LoanResource,
            "book",
            None,
            "book: its key may name no row (db_constraint=False)",
        ),
        (BookResource, "detail", None, "detail is not a forward relation"),
        (BookResource, "author_full", None, "author_full: full=True"),
        (
            AuthorResource,
            "own_uris_country",
            None,
            "own_uris_country: OwnUrisCountryResource builds its URIs itself",
        ),
        (
            AuthorResource,
            "x",
            fields.ToOneField(NoColumnCountryResource, "country"),
            "x: the related URI's key is not a column",
        ),
        (
            BookResource,
            "x",
            fields.ToOneField(AuthorResource, "author__mentor"),
            "attribute 'author__mentor' follows a relation",
        ),
    ],
    ids=["no-constraint", "reverse-one-to-one", "full", "own-uris", "no-key-column", "path"],
)
def test_a_to_one_the_row_cannot_give_is_declined_with_the_reason(
    resource_class, name, field, reason
) -> None:
    """A to-one whose URI is not a function of a key the row holds declines, saying why."""
    plan = plan_of(resource_class)
    field = field or plan.resource.fields[name]
    assert ToOneKeySource(plan, name, field).declined == reason


def test_a_to_one_on_the_object_path_is_built_from_the_instance_s_key() -> None:
    """On the object path the URI comes from the foreign key the instance holds, no related
    object loaded; ``None`` for a ``null`` field without one."""
    book = Book(pk=1, title="Dune", author_id=5, editor_id=None)
    plan = plan_of(BookResource)
    author = source_of(plan, "author")
    editor = source_of(plan, "editor")
    assert author.from_object(Bundle(obj=book)) == detail_uri("author", pk=5)
    assert editor.from_object(Bundle(obj=book)) is None
    assert "author" not in book._state.fields_cache


def test_a_missing_to_one_on_the_object_path_is_tastypie_s_error() -> None:
    """A non-null to-one without a key raises the ``ApiFieldError`` Tastypie's own field
    raises for the same object."""
    book = Book(pk=1, title="Dune", author_id=None)
    field = plan_of(BookResource).resource.fields["author"]
    with pytest.raises(ApiFieldError) as tastypies:
        fields.ToOneField.dehydrate(field, Bundle(obj=book))
    with pytest.raises(ApiFieldError) as ours:
        source_of(plan_of(BookResource), "author").from_object(Bundle(obj=book))
    assert str(ours.value) == str(tastypies.value)


def test_the_object_path_leaves_to_tastypie_what_the_key_cannot_answer() -> None:
    """``OWN_CODE`` (Tastypie's own code on the object) for a deferred key, a URI read through
    a join, a declined field and a field turning related objects into URIs its own way."""
    plan = plan_of(AuthorResource)
    deferred = Book.from_db(None, ["id", "title"], [1, "Dune"])
    assert source_of(plan_of(BookResource), "author").from_object(Bundle(obj=deferred)) is OWN_CODE
    author = Author(pk=1, name="Ann", country_by_code_id="fr")
    assert source_of(plan, "country_by_code").from_object(Bundle(obj=author)) is OWN_CODE
    loan_plan = plan_of(LoanResource)
    loan = ToOneKeySource(loan_plan, "book", loan_plan.resource.fields["book"])
    assert loan.declined is not None
    assert loan.from_object(Bundle(obj=Loan(pk=1, book_id=1))) is OWN_CODE
    own = ToOneKeySource(plan_of(BookResource), "x", OwnRelatedField(AuthorResource, "author"))
    assert own.declined is None
    assert own.from_object(Bundle(obj=Book(pk=1, author_id=5))) is OWN_CODE


# --- ToManyKeySource --------------------------------------------------------------
@pytest.fixture
def shelf(db) -> dict:
    """Books whose tags come, in the tags' order (by name), in neither key order nor the
    order they were added."""
    # Pony's first read on a connection asks the database what it supports: here, not
    # where the queries of a page are counted.
    DjonyObjectList(Tag.objects.values_list("pk")).rows()

    author = Author.objects.create(name="Ann")
    zebra, apple, mango = (Tag.objects.create(name=n) for n in ("zebra", "apple", "mango"))
    dune = Book.objects.create(title="Dune", author=author)
    dune.tags.set([zebra, apple, mango])
    emma = Book.objects.create(title="Emma", author=author)
    emma.tags.set([mango])
    bare = Book.objects.create(title="Bare", author=author)
    return {"books": [dune, emma, bare]}


def test_a_to_many_reads_the_page_s_keys_and_its_related_keys_once(
    shelf, django_assert_num_queries
) -> None:
    """A to-many reads each row's key; the page's related keys are read in one query, and each
    row's URIs come in its related manager's order."""
    plan = plan_of(BookResource)
    source = source_of(plan, "tags")
    assert type(source) is ToManyKeySource and source.needs_pk
    assert source.columns() == ["pk"]
    bind(source)
    books = shelf["books"]
    page = page_for(source, [(b.pk,) for b in books], keys=[b.pk for b in books])
    with django_assert_num_queries(1):
        source.prepare(page)
    for book in books:
        expected = [detail_uri("tag", pk=tag.pk) for tag in book.tags.all()]
        assert source.value((book.pk,), page) == expected
    assert source.value((books[2].pk,), page) == []


def test_a_to_many_shown_by_another_column_reads_that_column(shelf) -> None:
    """A related resource keyed by ``name``: the related keys read are the names."""
    source = source_of(plan_of(BookResource), "tag_names")
    bind(source)
    dune = shelf["books"][0]
    page = page_for(source, [(dune.pk,)], keys=[dune.pk])
    source.prepare(page)
    expected = [detail_uri("tag-by-name", name=tag.name) for tag in dune.tags.all()]
    assert source.value((dune.pk,), page) == expected


@pytest.mark.parametrize(
    "name, field, reason",
    [
        ("tags_by_callable", None, "tags_by_callable: not a plain relation"),
        ("tags_full", None, "tags_full: full=True"),
        (
            "x",
            fields.ToManyField(OwnUrisTagResource, "tags"),
            "x: OwnUrisTagResource builds its URIs itself",
        ),
        ("x", fields.ToManyField(NoColumnTagResource, "tags"), "x: the related URIs need objects"),
    ],
    ids=["callable", "full", "own-uris", "no-key-column"],
)
def test_a_to_many_the_keys_cannot_give_is_declined_with_the_reason(name, field, reason) -> None:
    """A to-many whose URIs are not a function of the related keys declines, saying why."""
    plan = plan_of(BookResource)
    field = field or plan.resource.fields[name]
    assert ToManyKeySource(plan, name, field).declined == reason


def test_a_to_many_on_the_object_path_uses_the_prefetched_objects(
    shelf, django_assert_num_queries
) -> None:
    """On the object path the URIs come from the objects a page loader left in the owner's
    relation cache (no query), else from one query of keys, in the manager's order."""
    source = source_of(plan_of(BookResource), "tags")
    dune = shelf["books"][0]
    expected = [detail_uri("tag", pk=tag.pk) for tag in dune.tags.all()]
    fresh = Book.objects.get(pk=dune.pk)
    with django_assert_num_queries(1):
        assert source.from_object(Bundle(obj=fresh), True) == expected
    prefetched = Book.objects.prefetch_related("tags").get(pk=dune.pk)
    with django_assert_num_queries(0):
        assert source.from_object(Bundle(obj=prefetched), True) == expected


def test_the_object_path_leaves_to_tastypie_what_the_keys_cannot_answer() -> None:
    """``OWN_CODE`` for an owner without a key, a field shown in full, a declined field and a
    field turning related objects into URIs its own way."""
    plan = plan_of(BookResource)
    assert source_of(plan, "tags").from_object(Bundle(obj=Book(title="new")), True) is OWN_CODE
    full = ToManyKeySource(plan, "tags_full", plan.resource.fields["tags_full"])
    assert full.from_object(Bundle(obj=Book(pk=1)), True) is OWN_CODE
    callable_ = ToManyKeySource(plan, "c", plan.resource.fields["tags_by_callable"])
    assert callable_.from_object(Bundle(obj=Book(pk=1)), True) is OWN_CODE
    own = ToManyKeySource(plan, "x", OwnRelatedManyField(TagResource, "tags"))
    assert own.from_object(Bundle(obj=Book(pk=1)), True) is OWN_CODE
