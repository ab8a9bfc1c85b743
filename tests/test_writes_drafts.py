"""New objects being written (drafts) and edited entities behave like Django instances.

Tastypie hands ``bundle.obj`` to validation (a ``ModelForm``), authorization
classes and hooks; for ``ModelResource`` it is an unsaved Django instance.
Each test reads the same thing from a draft (or an edited entity) and from
the Django instance ``ModelResource`` would have, and requires the same
answer.
"""

from __future__ import annotations

import pytest
from django import forms
from django.forms.models import model_to_dict
from pony.orm import db_session

from tastypie_djony.drafts import editing, new_draft
from tests.instances.models import Note, Writer

pytestmark = pytest.mark.django_db


class NoteForm(forms.ModelForm):
    class Meta:
        model = Note
        fields = ["writer", "text", "rank"]


@pytest.fixture
def writer() -> Writer:
    writer = Writer.objects.create(first_name="Zed", last_name="Ed")
    Note.objects.create(writer=writer, text="low", rank=1)
    Note.objects.create(writer=writer, text="high", rank=9)
    return writer


def test_repr_str_and_model_methods_of_a_draft() -> None:
    with db_session:
        draft, instance = new_draft(Writer), Writer()
        for obj in (draft, instance):
            obj.first_name, obj.last_name = "Ann", "Other"
        assert repr(draft) == repr(instance) == "<Writer: Ann Other>"
        assert str(draft) == str(instance)
        assert draft.full_name == instance.full_name == "Ann Other"
        assert draft.describe() == instance.describe()
        assert draft.get_status_display() == instance.get_status_display()
        assert draft._state.adding and draft._state.db is None


def test_unset_required_relation_raises_the_models_exception() -> None:
    with db_session:
        draft = new_draft(Note)
        with pytest.raises(Note.writer.RelatedObjectDoesNotExist) as raised:
            draft.writer  # noqa: B018
        with pytest.raises(Note.writer.RelatedObjectDoesNotExist) as expected:
            Note().writer  # noqa: B018
        assert str(raised.value) == str(expected.value)
        assert draft.writer_id is None
        assert model_to_dict(draft) == model_to_dict(Note())


def test_to_many_managers_of_a_draft_with_and_without_a_key(writer: Writer) -> None:
    with db_session:
        keyed = new_draft(Writer)
        keyed.pk = writer.pk  # a PUT creating the object its URI names
        assert [n.text for n in keyed.note_set.all()] == [
            n.text for n in Writer(pk=writer.pk).note_set.all()
        ]
        assert all(isinstance(n, Note.p) for n in keyed.note_set.all())
        with pytest.raises(ValueError) as raised:
            new_draft(Writer).note_set.all()
        with pytest.raises(ValueError) as expected:
            Writer().note_set.all()
        assert str(raised.value).replace("Writer object (None)", "") == str(expected.value).replace(
            "Writer object (None)", ""
        )


def test_model_form_validates_a_draft_as_an_instance(writer: Writer) -> None:
    with db_session:
        for data in ({"writer": writer.pk, "text": "t", "rank": 2}, {"text": "", "rank": "x"}):
            draft_form = NoteForm(data=data, instance=new_draft(Note))
            django_form = NoteForm(data=data, instance=Note())
            assert draft_form.is_valid() == django_form.is_valid()
            assert draft_form.errors == django_form.errors
        draft = new_draft(Note)
        valid = {"writer": writer.pk, "text": "t", "rank": 1}
        assert NoteForm(data=valid, instance=draft).is_valid()
        assert draft.writer_id == writer.pk and draft.writer.pk == writer.pk


def test_edited_entity_reads_its_relation_and_key_as_assigned(writer: Writer) -> None:
    other = Writer.objects.create(first_name="Ola", last_name="Other")
    note = Note.objects.get(text="low")
    with db_session:
        edited = editing(Note.p[note.pk])
        assert repr(edited) == repr(note) and edited == note and hash(edited) == hash(note)
        edited.writer = Writer.p[other.pk]
        assert edited.writer_id == other.pk
        edited.writer_id = writer.pk
        assert edited.writer.pk == writer.pk
        form = NoteForm(data={"writer": other.pk, "text": "x", "rank": 1}, instance=edited)
        assert form.is_valid(), form.errors
        assert edited.writer.pk == edited.writer_id == other.pk
        edited.write()
    note.refresh_from_db()
    assert (note.writer_id, note.text) == (other.pk, "x")
