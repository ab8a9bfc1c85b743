"""Startup checks of tastypie_djony: registered in ready(), loud when misconfigured."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

import tastypie_djony
from tastypie_djony import checks as resource_checks
from tastypie_djony.apps import TastypieDjonyConfig
from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Tag
from tests.zoo.models import Feeding


@pytest.fixture
def declared():
    """Resources a test declares are forgotten by the checks afterwards."""
    before = list(resource_checks.RESOURCE_CLASSES)
    yield
    resource_checks.RESOURCE_CLASSES[:] = before


def test_the_resource_check_is_registered_by_the_app_config() -> None:
    """``manage.py check`` runs it whatever was imported before (no URLconf needed)."""
    assert resource_checks.check_resources in checks.registry.registry.get_checks()


def test_tastypie_djony_without_djony_refuses_to_start(monkeypatch) -> None:
    monkeypatch.setattr(apps, "is_installed", lambda name: name != "djony")
    config = TastypieDjonyConfig("tastypie_djony", tastypie_djony)
    with pytest.raises(ImproperlyConfigured, match='add "djony" to INSTALLED_APPS'):
        config.ready()


def test_a_resource_without_the_app_installed_is_refused(monkeypatch, declared) -> None:
    monkeypatch.setattr(apps, "is_installed", lambda name: name != "tastypie_djony")
    with pytest.raises(ImproperlyConfigured, match='add "tastypie_djony" to INSTALLED_APPS'):

        class LoneTagResource(DjonyResource):
            class Meta:
                queryset = Tag.objects.all()


def check_of(resource: type) -> list[checks.CheckMessage]:
    return [m for m in resource_checks.check_resources() if m.obj is resource]


def test_writes_values(declared) -> None:
    class PonyTagResource(DjonyResource):
        class Meta:
            queryset = Tag.objects.all()
            writes = "pony"

    class OddTagResource(DjonyResource):
        class Meta:
            queryset = Tag.objects.all()
            writes = "sql"

    class PlainTagResource(DjonyResource):
        class Meta:
            queryset = Tag.objects.all()
            writes = "django"

    (warning,) = check_of(PonyTagResource)
    assert warning.id == "tastypie_djony.W002" and "no effect" in warning.msg
    (error,) = check_of(OddTagResource)
    assert error.id == "tastypie_djony.E001" and "'sql'" in error.msg
    assert check_of(PlainTagResource) == []


def test_a_model_djony_cannot_serve_is_an_error_at_startup_and_per_request(declared) -> None:
    class FeedingResource(DjonyResource):
        class Meta:
            queryset = Feeding.objects.all()
            resource_name = "feeding"

    (error,) = check_of(FeedingResource)
    assert error.id == "tastypie_djony.E002"
    assert "zoo.Feeding" in error.msg and "ModelResource" in error.msg
    view = FeedingResource().wrap_view("dispatch_list")
    with pytest.raises(ImproperlyConfigured) as raised:
        view(RequestFactory().get("/feeding/"))
    assert str(raised.value) == error.msg


def test_a_to_many_field_without_an_order_is_a_warning(declared) -> None:
    """``tastypie_djony.W003``: related objects no manager orders (``Group``), named with the fix;
    an ordered relation (``Permission``, ``Book.tags``) is not."""
    from django.contrib.auth.models import Group, Permission, User
    from tastypie import fields

    from tests.testapp.models import Book

    class GroupResource(DjonyResource):
        class Meta:
            queryset = Group.objects.all()

    class PermissionResource(DjonyResource):
        class Meta:
            queryset = Permission.objects.all()

    class MemberResource(DjonyResource):
        groups = fields.ToManyField(GroupResource, "groups")
        user_permissions = fields.ToManyField(PermissionResource, "user_permissions")

        class Meta:
            queryset = User.objects.all()

    class TaggedBookResource(DjonyResource):
        tags = fields.ToManyField("tests.api.TagResource", "tags")

        class Meta:
            queryset = Book.objects.all()

    (warning,) = [m for m in check_of(MemberResource) if m.id == "tastypie_djony.W003"]
    assert "MemberResource.groups lists auth.Group objects in no defined order" in warning.msg
    assert "Give Group a Meta.ordering" in warning.hint
    assert [m for m in check_of(TaggedBookResource) if m.id == "tastypie_djony.W003"] == []


def test_a_resource_no_plan_serves_is_told_why(declared) -> None:
    """``tastypie_djony.I001``: the override that sends its pages to the general path."""

    class OwnDehydrationResource(DjonyResource):
        class Meta:
            queryset = Tag.objects.all()

        def full_dehydrate(self, bundle, for_list=False):
            return super().full_dehydrate(bundle, for_list)

    class PlainTagResource(DjonyResource):
        class Meta:
            queryset = Tag.objects.all()

    infos = [m for m in check_of(OwnDehydrationResource) if m.id == "tastypie_djony.I001"]
    assert [m.msg.split(" take ")[0].rsplit(" ", 1)[-1] for m in infos] == ["lists", "details"]
    assert all("OwnDehydrationResource.full_dehydrate is overridden" in m.msg for m in infos)
    assert [m for m in check_of(PlainTagResource) if m.id == "tastypie_djony.I001"] == []
    assert OwnDehydrationResource().served_by()["list"].startswith("Tastypie's general path")
    assert PlainTagResource().served_by() == {
        "list": "the row-built plan",
        "detail": "the row-built plan",
    }
