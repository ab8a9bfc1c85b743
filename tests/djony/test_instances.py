"""Entity objects behave like the Django instances code was written for.

Each test reads the same thing from a Django instance and from the entity
object of the same row, and requires the same answer.
"""

from __future__ import annotations

import pickle

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.forms.models import model_to_dict
from pony.orm import db_session

from tests.instances.models import Comment, Note, Writer

pytestmark = pytest.mark.django_db


@pytest.fixture
def writer() -> Writer:
    mentor = Writer.objects.create(first_name="Mia", last_name="Mentor", status="p")
    writer = Writer.objects.create(first_name="Zed", last_name="Ed", mentor=mentor)
    Note.objects.create(writer=writer, text="low", rank=1)
    Note.objects.create(writer=writer, text="high", rank=9)
    Note.objects.create(writer=writer, text="secret", rank=5, hidden=True)
    Comment.objects.create(target=writer, body="first")
    Comment.objects.create(target=writer, body="second")
    Comment.objects.create(target=mentor, body="other")
    return writer


def test_methods_and_properties_of_the_model_its_parents_and_mixins(writer: Writer) -> None:
    with db_session:
        obj = Writer.p[writer.pk]
        for name in ("full_name", "initials", "label_prefix"):
            assert getattr(obj, name) == getattr(writer, name), name
        for name in ("__str__", "describe", "label", "get_absolute_url", "get_status_display"):
            assert getattr(obj, name)() == getattr(writer, name)(), name
        assert obj.kind() == writer.kind() == "person"
        assert obj.shout("x") == "X"
        assert str(obj) == "Zed Ed"
        assert obj.describe() == "writer writer:Zed Ed"  # super() inside the model's method


def test_property_setter_and_attnames(writer: Writer) -> None:
    with db_session:
        obj = Writer.p[writer.pk]
        assert obj.mentor_id == writer.mentor_id
        assert Note.p.select().first().writer_id == writer.pk
        obj.full_name = "Ann Other"
        obj.mentor_id = None
    writer.refresh_from_db()
    assert (writer.first_name, writer.last_name, writer.mentor) == ("Ann", "Other", None)


def test_repr_equality_and_hash_with_django_instances(writer: Writer) -> None:
    with db_session:
        obj = Writer.p[writer.pk]
        assert repr(obj) == repr(writer) == "<Writer: Zed Ed>"
        assert obj == writer and writer == obj
        assert obj != writer.mentor and writer.mentor != obj
        assert hash(obj) == hash(writer)
        assert obj in {writer} and writer in {obj}
        assert obj.mentor == writer.mentor
        assert obj != Note.objects.get(text="low")  # another model, maybe the same key


def test_related_managers_use_the_default_manager_and_ordering(writer: Writer) -> None:
    with db_session:
        obj = Writer.p[writer.pk]
        assert [n.text for n in obj.note_set.all()] == [n.text for n in writer.note_set.all()]
        assert [n.text for n in obj.note_set.all()] == ["high", "low"]
        assert obj.note_set.count() == writer.note_set.count() == 2
        assert obj.note_set.exists()
        assert obj.note_set.first().text == "high" and obj.note_set.last().text == "low"
        assert obj.note_set.get(rank=1).text == "low"
        with pytest.raises(Note.DoesNotExist):
            obj.note_set.get(text="secret")
        assert [n.text for n in obj.note_set.filter(rank__gt=1)] == ["high"]
        assert [n.text for n in obj.note_set.exclude(rank__gt=1)] == ["low"]
        assert [n.text for n in obj.note_set.order_by("rank")] == ["low", "high"]
        assert list(obj.note_set.values_list("text", flat=True)) == ["high", "low"]
        assert list(obj.note_set.values("text")) == list(writer.note_set.values("text"))
        assert len(obj.note_set.all()) == 2 and obj.note_set.all()[1].text == "low"
        assert [n.text for n in obj.note_set.all()[:1]] == ["high"]
        assert isinstance(obj.note_set.all()[0], Note.p)


def test_many_to_many_manager_and_assignment_of_django_instances(writer: Writer) -> None:
    user = User.objects.create(username="u")
    perms = list(Permission.objects.order_by("id")[:3])
    with db_session:
        pony_user = User.p[user.pk]
        pony_user.user_permissions.add(*perms[:2])
        assert pony_user.user_permissions.count() == 2
        pony_user.user_permissions.set(perms[1:])
        pony_user.user_permissions.remove(perms[2])
    assert list(user.user_permissions.all()) == [perms[1]]
    with db_session:
        note = Note.p.select().first()
        note.writer = writer.mentor  # a Django instance
    assert Note.everything.get(pk=note.pk).writer == writer.mentor


def test_generic_foreign_key_and_generic_relation(writer: Writer) -> None:
    with db_session:
        obj = Writer.p[writer.pk]
        assert [c.body for c in obj.comments.all()] == ["first", "second"]
        assert obj.comments.count() == 2
        comment = Comment.p.select().first()
        assert comment.target == writer
        comment.target = writer.mentor
    assert Comment.objects.get(body="first").target == writer.mentor
    assert ContentType.objects.get_for_model(Writer).pk == Comment.objects.first().content_type_id


def test_model_to_dict(writer: Writer) -> None:
    user = User.objects.create(username="v")
    user.user_permissions.set(Permission.objects.order_by("id")[:2])
    with db_session:
        assert model_to_dict(User.p[user.pk]) == model_to_dict(user)
        assert model_to_dict(Writer.p[writer.pk]) == model_to_dict(writer)


def test_pickled_objects_come_back_in_the_next_session(writer: Writer) -> None:
    with db_session:
        data = pickle.dumps(Writer.p[writer.pk])
    with db_session:
        obj = pickle.loads(data)
        assert obj is Writer.p[writer.pk]
        assert (obj.full_name, obj.mentor == writer.mentor) == ("Zed Ed", True)


def test_new_objects_keep_their_hash_when_saved(writer: Writer) -> None:
    with db_session:
        note = Note.p(writer=Writer.p[writer.pk], text="new")
        seen = {note}
        note.flush()
        assert note in seen and note.pk is not None


def test_querysets_outside_a_session(writer: Writer) -> None:
    from djony.objects.querysets import PonyQuerySet

    names = [w.first_name for w in PonyQuerySet(Writer.objects.order_by("first_name"))]
    assert names == ["Mia", "Zed"]


def test_annotations_become_attributes(writer: Writer) -> None:
    from django.db.models import Count

    from djony.objects.querysets import PonyQuerySet

    with db_session:
        rows = PonyQuerySet(Writer.objects.annotate(notes=Count("note")).order_by("id"))
        assert [(w.first_name, w.notes) for w in rows] == [("Mia", 0), ("Zed", 3)]


def test_deleting_the_owner_deletes_its_generic_relation_rows_as_django_does(
    writer: Writer,
) -> None:
    with db_session:
        Writer.p[writer.pk].delete()
    assert sorted(Comment.objects.values_list("body", flat=True)) == ["other"]
    assert not Note.everything.filter(writer_id=writer.pk).exists()


def test_objects_of_a_proxy_model_carry_the_proxys_meta() -> None:
    from djony.objects.querysets import PonyQuerySet
    from tests.testapp.models import Author, ProxyAuthor

    Author.objects.create(name="Ann")
    with db_session:
        (proxied,) = PonyQuerySet(ProxyAuthor.objects.all())
        assert proxied.__class__._meta is ProxyAuthor._meta
        assert proxied == Author.objects.get() and proxied.name == "Ann"
        assert Author.p.select().first() is proxied  # one object per row in the session
        proxied.name = "Bea"
    assert Author.objects.get().name == "Bea"


def test_model_of_names_the_model_a_django_instance_or_an_entity_object_is_a_row_of() -> None:
    from django.utils.functional import SimpleLazyObject

    from djony.meta.models import model_of
    from djony.objects.querysets import PonyQuerySet
    from tests.testapp.models import Author, ProxyAuthor

    ann = Author.objects.create(name="Ann")
    assert model_of(ann) is Author
    assert model_of(ProxyAuthor.objects.get()) is ProxyAuthor
    assert model_of(SimpleLazyObject(lambda: ann)) is Author  # request.user
    with db_session:
        assert model_of(Author.p[ann.pk]) is Author
        (proxied,) = PonyQuerySet(ProxyAuthor.objects.all())
        assert model_of(proxied) is ProxyAuthor  # as for a Django instance of the proxy
    assert model_of(3) is None and model_of(Author) is None


def test_a_relation_read_on_one_object_of_a_page_loads_it_for_the_whole_page(
    writer: Writer, django_assert_num_queries
) -> None:
    from djony.objects.querysets import PonyQuerySet

    for number in range(5):
        extra = Writer.objects.create(first_name=f"W{number}", last_name="X")
        Note.objects.create(writer=extra, text=f"n{number}", rank=number)
        Note.objects.create(writer=extra, text=f"hidden{number}", hidden=True)
    expected = {w.pk: [n.text for n in w.note_set.all()] for w in Writer.objects.all()}
    comments = {w.pk: [c.body for c in w.comments.all()] for w in Writer.objects.all()}
    with db_session:
        with django_assert_num_queries(4):  # the page, its notes, a content type, comments
            page = list(PonyQuerySet(Writer.objects.order_by("id")))
            seen = {w.pk: [n.text for n in w.note_set.all()] for w in page}
            counts = {w.pk: w.note_set.count() for w in page}
            seen_comments = {w.pk: [c.body for c in w.comments.all()] for w in page}
        assert seen == expected and seen_comments == comments
        assert counts == {pk: len(texts) for pk, texts in expected.items()}
        page[0].note_set.filter(rank=1).count()  # a new lookup: a query of its own, as in Django


def test_custom_field_values_as_from_db_value_gives_them() -> None:
    from tests.instances.models import Tagged

    tagged = Tagged.objects.create(words=["a", "b"])
    with db_session:
        obj = Tagged.p[tagged.pk]
        assert obj.words == tagged.words == ["a", "b"]
        obj.words = ["c"]
        created = Tagged.p(words=["d", "e"])
        created.flush()
        assert created.words == ["d", "e"]
    assert Tagged.objects.get(pk=tagged.pk).words == ["c"]
    assert Tagged.objects.get(pk=created.pk).words == ["d", "e"]


def test_model_validation_runs_on_the_objects(writer: Writer) -> None:
    from django.core.exceptions import ValidationError
    from django.forms import ModelForm

    class WriterForm(ModelForm):
        class Meta:
            model = Writer
            fields = ["first_name", "last_name", "status", "mentor"]

    with db_session:
        obj = Writer.p[writer.pk]
        obj.full_clean()
        obj.status = "x"
        with pytest.raises(ValidationError) as raised:
            obj.full_clean()
        assert list(raised.value.message_dict) == ["status"]
        obj.status = "d"
        form = WriterForm(data={"first_name": "", "last_name": "L", "status": "p"}, instance=obj)
        reference = WriterForm(
            data={"first_name": "", "last_name": "L", "status": "p"}, instance=writer
        )
        assert form.errors == reference.errors and "first_name" in form.errors


def test_model_code_reading_the_manager_from_the_class() -> None:
    user = User.objects.create(username="w", email="W@EXAMPLE.COM")
    with db_session:
        obj = User.p[user.pk]
        obj.clean()  # AbstractUser.clean: self.__class__.objects.normalize_email(...)
        assert obj.email == "W@example.com"
        assert type(obj).objects is User.objects and not hasattr(obj, "objects")


def test_models_of_the_same_name_in_two_apps_get_two_entities() -> None:
    from django.apps import apps

    from djony.meta.names import entity_names

    tag, other = apps.get_model("testapp", "Tag"), apps.get_model("auth", "Group")
    names = entity_names([tag, other, type("Tag", (), {"_meta": _FakeMeta("zoo", "Tag")})])
    assert names[tag] == "Testapp_Tag" and names[other] == "Group"


class _FakeMeta:
    def __init__(self, app_label: str, object_name: str) -> None:
        self.app_label, self.object_name = app_label, object_name
