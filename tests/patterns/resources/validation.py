"""``FormValidation`` and ``CleanedDataFormValidation`` with a ModelForm, the
related user given as a URI or as nested data (``{"pk": ...}``)."""

from __future__ import annotations

from django import forms
from tastypie import fields
from tastypie.authorization import Authorization
from tastypie.validation import CleanedDataFormValidation, FormValidation

from tests.patterns.models import Jotting
from tests.patterns.resources.ownership import build as build_ownership


class NoteForm(forms.ModelForm):
    class Meta:
        model = Jotting
        fields = ["title", "body", "owner"]

    def clean_title(self):
        title = self.cleaned_data["title"]
        if "!" in title:
            raise forms.ValidationError("No shouting in titles.")
        return title


def build(base: type) -> list[type]:
    member = build_ownership(base)[0]

    class FormNoteResource(base):
        owner = fields.ToOneField(member, "owner")

        class Meta:
            queryset = Jotting.objects.all()
            resource_name = "formnote"
            authorization = Authorization()
            validation = FormValidation(form_class=NoteForm)

    class CleanNoteResource(base):
        owner = fields.ToOneField(member, "owner")

        class Meta:
            queryset = Jotting.objects.all()
            resource_name = "cleannote"
            authorization = Authorization()
            validation = CleanedDataFormValidation(form_class=NoteForm)

    return [FormNoteResource, CleanNoteResource]
