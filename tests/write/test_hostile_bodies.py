"""Hostile write bodies: ModelResource's answer, or a clear 400 where ModelResource answers 500.

Bodies that parse but are no object of fields (a JSON string, list, number, ``null``)
and bodies nested so deep that hydrating their nested resources exhausts the stack
(:class:`tastypie_djony.bodies.BodiesMixin`).  Each request goes to both twins of the
write API (tests/write/api.py); rows are compared after each.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection, transaction
from django.test import override_settings

from tests.testapp.models import Author, Publisher, Tag
from tests.write.api import all_tables, api_client, send

# Autocommit, as pytest-django's ``transaction=True``, without its flush of every table
# of every app after each test (about a second a test on PostgreSQL): the requests write
# only the test app's tables, and those are emptied after each test (empty_tables).
pytestmark = pytest.mark.usefixtures("transactional_db", "empty_tables", "write_urls")

DEEP_LIST = "[" * 400 + "]" * 400
DEEP_MENTOR = '{"name": "m", "mentor": ' * 400 + '{"name": "x"}' + "}" * 400
NOT_OBJECTS = ['"str"', "5", "null", "[1, 2]", "true", DEEP_LIST]


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    """The database for the module, in autocommit (the name makes pytest-django create it)."""
    with django_db_blocker.unblock():
        delete_every_row()
        yield
        delete_every_row()


def delete_every_row() -> None:
    """Every table of the test app emptied (its counters left as they are, as a flush)."""
    assert not connection.in_atomic_block, "must run in autocommit mode"
    qn = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "mysql":
            cursor.execute("SET FOREIGN_KEY_CHECKS = 0")
        try:
            for model in all_tables():
                cursor.execute(f"DELETE FROM {qn(model._meta.db_table)}")
        finally:
            if connection.vendor == "mysql":
                cursor.execute("SET FOREIGN_KEY_CHECKS = 1")


@pytest.fixture
def empty_tables(transactional_db):
    """Each test starts from empty tables, whatever the one before it wrote."""
    delete_every_row()


@pytest.fixture
def write_urls():
    with override_settings(ROOT_URLCONF="tests.write.urls"):
        yield


def rows() -> dict:
    return {
        model.__name__: sorted(model.objects.values_list("pk", flat=True))
        for model in (Author, Publisher, Tag)
    }


def twins(method: str, path: str, body: str) -> tuple:
    """Each twin's answer from the same rows; ``/1/`` in ``path`` names the one author."""
    answers = []
    for api in ("v2", "v3"):
        for model in (Author, Publisher, Tag):
            model.objects.all().delete()
        existing = Author.objects.create(name="existing")  # keys from the sequence
        before = rows()
        response = send(api_client(), api, method, path.replace("/1/", f"/{existing.pk}/"), body)
        answers.append((response, before, rows()))
    return answers


def assert_clear_400(response, before, after) -> None:
    assert response.status_code == 400, response.content
    message = json.loads(response.content)["error"]
    assert "Traceback" not in message and "Tenants_" not in message and "<" not in message
    assert after == before  # nothing written


@pytest.mark.parametrize("body", NOT_OBJECTS, ids=["str", "int", "null", "list", "bool", "deep"])
@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", "author/"),
        ("POST", "tag/"),
        ("POST", "publisher/"),
        ("PUT", "author/1/"),
        ("PATCH", "author/1/"),
        ("PUT", "author/"),
        ("PATCH", "author/"),
    ],
)
def test_a_body_that_is_not_an_object(method, path, body):
    (reference, *_), (target, before, after) = twins(method, path, body)
    if reference.status_code == 500:
        assert_clear_400(target, before, after)
    else:  # Tastypie reads ``"name" in "str"`` (a row of defaults): so does DjonyResource
        assert target.status_code == reference.status_code, (reference.content, target.content)


@pytest.mark.parametrize("path", ["author/", "authorfull/", "author/1/"])
def test_a_body_nested_too_deep_to_write(path):
    method = "PUT" if path.endswith("1/") else "POST"
    (reference, *_), (target, before, after) = twins(method, path, DEEP_MENTOR)
    assert reference.status_code == 500  # RecursionError in Tastypie's nested hydrate
    assert_clear_400(target, before, after)
    assert "nested too deep" in json.loads(target.content)["error"]


@pytest.mark.parametrize("objects", ['"x"', "[1, 2]", '["x"]', "[[1]]", "5"])
@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_list_bodies_whose_objects_are_not_objects(method, objects):
    (reference, *_), (target, before, after) = twins(method, "author/", f'{{"objects": {objects}}}')
    if reference.status_code == 500:
        assert_clear_400(target, before, after)
    else:
        assert target.status_code == reference.status_code, (reference.content, target.content)


def test_a_deep_value_without_nested_resources_is_answered_as_by_modelresource():
    body = '{"name": ' + DEEP_LIST + "}"  # a deep value, no nested resource
    (reference, *_), (target, before, after) = twins("POST", "author/", body)
    if reference.status_code == 500:  # PostgreSQL: the value's text is too long for the column
        assert_clear_400(target, before, after)
    else:
        assert target.status_code == reference.status_code == 201
