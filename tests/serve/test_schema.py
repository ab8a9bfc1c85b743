"""``schema/``: ModelResource's answer and side effects, the empty object built only when
something could see it (``tastypie_djony.schema``).

Each test asks a ModelResource and its DjonyResource twin for their schema with the same
request and compares the answers, the receivers called, the defaults computed and the
object lists asked for.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, Permission, User
from django.db.models.fields.files import ImageFieldFile
from django.db.models.signals import post_init
from django.test import RequestFactory
from tastypie.authorization import Authorization, DjangoAuthorization
from tastypie.exceptions import ImmediateHttpResponse, Unauthorized
from tastypie.http import HttpForbidden
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tastypie_djony.schema import bare_schema
from tests.testapp.models import Author, Photo

pytestmark = pytest.mark.django_db


def twins(authorization=None, model=Author, **members):
    """A ModelResource of ``model`` (authors) and its DjonyResource twin."""

    def resource(base):
        class Meta:
            queryset = model.objects.all()
            resource_name = model._meta.model_name

        if authorization is not None:
            Meta.authorization = authorization
        return type(f"Author{base.__name__}", (base,), {"Meta": Meta, **members})()

    return resource(ModelResource), resource(DjonyResource)


def answers(pair, user=None) -> list[tuple]:
    found = []
    for resource in pair:
        request = RequestFactory().get("/", {"format": "json"})
        request.user = user or AnonymousUser()
        try:
            response = resource.get_schema(request)
        except ImmediateHttpResponse as raised:
            response = raised.response
        found.append((response.status_code, response["Content-Type"], response.content))
    return found


def test_a_schema_anyone_may_read_is_modelresource_s_without_the_empty_object():
    pair = twins()
    assert bare_schema(pair[1], DjonyResource)
    reference, switched = answers(pair)
    assert reference[0] == 200 and b'"fields"' in reference[2]
    assert switched == reference


def test_a_post_init_receiver_sees_the_empty_object_on_both():
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(type(instance))

    post_init.connect(receiver, sender=Author)
    try:
        pair = twins()
        assert not bare_schema(pair[1], DjonyResource)
        reference, switched = answers(pair)
    finally:
        post_init.disconnect(receiver, sender=Author)
    assert switched == reference
    assert seen == [Author, Author]


def test_a_default_of_the_project_s_own_is_computed_on_both(monkeypatch):
    calls = []

    def next_name():
        calls.append(1)
        return "anonymous"

    field = Author._meta.get_field("name")
    monkeypatch.setattr(field, "default", next_name)
    field.__dict__.pop("_get_default", None)  # Django keeps what get_default() calls
    try:
        pair = twins()
        assert not bare_schema(pair[1], DjonyResource)
        (reference,) = answers(pair[:1])
        on_modelresource, calls[:] = len(calls), []
        (switched,) = answers(pair[1:])
    finally:
        field.__dict__.pop("_get_default", None)
    assert switched == reference
    assert len(calls) == on_modelresource >= 2  # the empty object's, the schema's


def test_an_object_list_of_the_project_s_own_is_asked_as_on_modelresource():
    asked = []

    def get_object_list(self, request):
        asked.append(type(self).__name__)
        raise ImmediateHttpResponse(response=HttpForbidden("closed"))

    pair = twins(get_object_list=get_object_list)
    assert not bare_schema(pair[1], DjonyResource)
    reference, switched = answers(pair)
    assert reference[0] == 403
    assert switched == reference
    assert asked == ["AuthorModelResource", "AuthorDjonyResource"]


def test_an_authorization_reading_the_object_gets_it():
    class NoAnonymousObjects(Authorization):
        def read_detail(self, object_list, bundle):
            if bundle.obj.pk is None and not bundle.request.user.is_authenticated:
                raise Unauthorized("Sign in.")
            return True

    pair = twins(authorization=NoAnonymousObjects())
    assert not bare_schema(pair[1], DjonyResource)
    reference, switched = answers(pair)
    assert reference[0] == 401
    assert switched == reference


@pytest.mark.parametrize("allowed", [False, True], ids=["refused", "allowed"])
def test_django_authorization_asks_the_user_s_permission_as_on_modelresource(allowed):
    # (Tastypie's DjangoAuthorization reads with the "change" permission.)
    user = User.objects.create(username="reader")
    if allowed:
        user.user_permissions.add(Permission.objects.get(codename="change_author"))
        user = User.objects.get(pk=user.pk)  # permissions are cached per instance
    pair = twins(authorization=DjangoAuthorization())
    assert bare_schema(pair[1], DjonyResource)
    reference, switched = answers(pair, user)
    assert reference[0] == (200 if allowed else 401)
    assert switched == reference


def test_an_image_field_s_own_dimension_receiver_builds_no_empty_object():
    # Django connects ImageField.update_dimension_fields to post_init (width_field,
    # height_field): on an empty object there is no file and it returns.
    assert post_init.has_listeners(Photo)
    built = []

    def count(sender, instance, **kwargs):
        built.append(type(instance))

    pair = twins(model=Photo)
    assert bare_schema(pair[1], DjonyResource)
    reference, switched = answers(pair)
    assert reference[0] == 200 and b'"width"' in reference[2]
    assert switched == reference
    post_init.connect(count, sender=Photo)  # (a receiver of the project's: not bare)
    try:
        assert not bare_schema(pair[1], DjonyResource)
        assert answers(pair) == [reference, reference]
    finally:
        post_init.disconnect(count, sender=Photo)
    assert built == [Photo, Photo]


def test_an_image_field_with_a_default_file_builds_the_empty_object(monkeypatch):
    # With a default the empty object has a file: its dimensions would be read from it.
    field = Photo._meta.get_field("image")
    monkeypatch.setattr(field, "default", "photos/cover.png")
    field.__dict__.pop("_get_default", None)
    try:
        assert not bare_schema(twins(model=Photo)[1], DjonyResource)
    finally:
        field.__dict__.pop("_get_default", None)


def test_an_image_field_of_another_file_class_builds_the_empty_object(monkeypatch):
    # A file class of the project's own is built by the receiver: it may do anything.
    class OwnFile(ImageFieldFile):
        pass

    monkeypatch.setattr(Photo._meta.get_field("image"), "attr_class", OwnFile)
    assert not bare_schema(twins(model=Photo)[1], DjonyResource)
