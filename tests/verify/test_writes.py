"""``djony_verify --writes``: new objects from the resource's fields, updates and deletes on
copies, with every table's rows and the signals compared.

Planted differences (a DjonyResource side that skips the receivers, or writes one more
table) are caught and named; on an ApiKey-authenticated resource ``--writes --user``
carries out POST, PUT, PATCH and DELETE on both sides, and nothing stays in the database.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db.models.signals import post_save
from django.urls import include, path
from tastypie.api import Api
from tastypie.authentication import ApiKeyAuthentication
from tastypie.authorization import Authorization
from tastypie.constants import ALL
from tastypie.fields import ToManyField, ToOneField
from tastypie.resources import ModelResource

from tastypie_djony.resources import DjonyResource
from tests.testapp.models import Author, Country, Tag
from tests.verify.helpers import verify

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.verify.test_writes")]


class CountryResource(ModelResource):
    class Meta:
        queryset = Country.objects.all()
        resource_name = "country"


class AuthorResource(ModelResource):
    country = ToOneField(CountryResource, "country", null=True)
    follows = ToManyField("self", "follows", null=True)

    class Meta:
        queryset = Author.objects.all()
        resource_name = "author"
        authentication = ApiKeyAuthentication()
        authorization = Authorization()
        filtering = {"id": ALL, "name": ALL}
        writes = "django"  # the twin writes through the model, signals included


class SkippingTagResource(ModelResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "skipping"
        authorization = Authorization()
        writes = "django"

    def obj_create(self, bundle, **kwargs):
        if not isinstance(self, DjonyResource):
            return super().obj_create(bundle, **kwargs)
        # Planted: the DjonyResource side writes the row without save(): no signal fires.
        bundle.obj = Tag.objects.bulk_create([Tag(name=bundle.data["name"])])[0]
        return bundle


class SpillingTagResource(ModelResource):
    class Meta:
        queryset = Tag.objects.all()
        resource_name = "spilling"
        authorization = Authorization()
        writes = "django"

    def obj_update(self, bundle, skip_errors=False, **kwargs):
        bundle = super().obj_update(bundle, skip_errors=skip_errors, **kwargs)
        if isinstance(self, DjonyResource):
            # Planted: the DjonyResource side also changes a row of another table.
            Country.objects.filter(code="de").update(name="Deutschland")
        return bundle


api = Api(api_name="w")
for resource_class in (CountryResource, AuthorResource, SkippingTagResource, SpillingTagResource):
    api.register(resource_class())
urlpatterns = [path("api/", include(api.urls))]


def audit(sender, instance, created, **kwargs):
    """A receiver writing another table, as audit trails do."""
    Tag.objects.create(name=f"audit {instance.name} {'new' if created else 'changed'}"[:50])


@pytest.fixture
def rows():
    de = Country.objects.create(code="de", name="Germany")
    Country.objects.create(code="fr", name="France")
    ada = Author.objects.create(name="Ada", country=de, email="ada@example.com")
    bert = Author.objects.create(name="Bert")
    ada.follows.set([bert])
    for name in ("alpha", "beta", "gamma"):
        Tag.objects.create(name=name)
    post_save.connect(audit, sender=Author, dispatch_uid="verify-audit")
    yield User.objects.create_user("ada", password="unused")
    post_save.disconnect(sender=Author, dispatch_uid="verify-audit")


def snapshot():
    return (
        list(Author.objects.order_by("pk").values()),
        list(Author.follows.through.objects.order_by("pk").values()),
        list(Tag.objects.order_by("pk").values()),
        list(Country.objects.order_by("pk").values()),
    )


def test_writes_as_the_user_succeed_on_both_sides_and_change_nothing(rows):
    before = snapshot()
    run = verify("--resource", "/api/w/author/", "--writes", "--user", "ada")
    assert run.code == 0, run.out
    writes = run.report["writes"]
    succeeded = {w["method"] for w in writes
                 if w["ModelResource"] < 300 and w["DjonyResource"] < 300}  # fmt: skip
    assert succeeded == {"POST", "PUT", "PATCH", "DELETE"}, writes
    assert all(w["ModelResource"] == w["DjonyResource"] and w["identical"] for w in writes)
    figures = run.resource("/api/w/author/")
    assert figures["writes_succeeded_on_both_sides"] == len(writes) >= 5
    assert "writes ok" in run.out and f"{len(writes)}/{len(writes)}" in run.out
    assert snapshot() == before


def test_new_objects_come_from_the_schema(rows):
    run = verify("--resource", "/api/w/author/", "--writes", "--user", "ada")
    posts = [w["body"] for w in run.report["writes"] if w["method"] == "POST"]
    # required fields only (name), every field with the to-one and to-many given, blank values
    assert '{"name": "Ada"}' in posts
    assert any('"country": "/api/w/country/' in b and '"follows": ["/api/w/author/' in b
               for b in posts)  # fmt: skip
    assert any('"email": ""' in b for b in posts)


def test_a_write_that_skips_the_receivers_is_caught_and_the_signal_named(rows):
    run = verify("--resource", "/api/w/skipping/", "--writes", "--show", "20")
    assert run.code == 1
    assert "answers differ" in run.reason
    [difference] = [d for d in run.report["differences"] if d["method"] == "POST"][:1]
    assert difference["difference"].startswith("signal pre_save(testapp.Tag None) fired only by")
    assert "differs: signal pre_save(testapp.Tag None) fired only by ModelResource" in run.out


def test_a_write_to_another_table_is_caught_and_the_table_named(rows):
    before = snapshot()
    run = verify("--resource", "/api/w/spilling/", "--writes", "--show", "20")
    assert run.code == 1
    found = [d["difference"] for d in run.report["differences"] if d["method"] == "PUT"]
    assert found and found[0].startswith("rows of table testapp_country: only with ModelResource")
    assert "Deutschland" in found[0]
    assert snapshot() == before


def test_a_writing_run_says_what_the_rollback_does_not_undo(rows):
    """pinry's post_delete removes a deleted row's files, and a copy's files are the
    original's: the run says so before it writes."""
    from io import StringIO

    from django.core.management import call_command

    from tastypie_djony.management.commands.djony_verify import Command

    err = StringIO()
    call_command(Command(), "--resource", "/api/w/author/", "--writes", "--user", "ada",
                 "--timing-seconds", "0", stdout=StringIO(), stderr=err)  # fmt: skip
    assert "rolled back in the database only" in err.getvalue()
    assert "copy of your data and media" in err.getvalue()
