"""The objects a read hands to hooks and authorization are the model's Django instances.

A ``dehydrate()`` that uses the object as Django gives it: ``type(obj) is Model``,
``_state``, a view counter that calls ``self.save()``, ``refresh_from_db()``, equality
with an instance read by the ORM, and model methods named as Pony's objects' methods
are (``set``, ``load``, ``flush``, ``to_dict``, ``get_pk``); an ``authorized_read_detail``
that checks the object's class.  The same GETs go to ModelResource (``/se2/``) and
DjonyResource (``/se3/``) on the same rows: same answers, and the rows the hooks
wrote (the counters) are the same afterwards.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import override_settings

from tests.sideeffects import models as m
from tests.write import api as write_api
from tests.write.api import api_client, send

A = write_api.API_MARKER


def seed():
    return [
        (m.Blogger, [{"id": 1, "name": "ann", "posts_count": 0}]),
        (
            m.Article,
            [
                {"id": 1, "title": "One", "views": 0, "writer_id": 1},
                {"id": 2, "title": "Two", "views": 5, "writer_id": None},
                {"id": 3, "title": "Three", "views": 9, "writer_id": 1},
            ],
        ),
    ]


READS = [
    ["article/"],
    ["article/2/"],
    ["article/1/", "article/1/", "article/?id__in=1,3"],
    ["article/?format=xml"],
    ["article/set/1;3/"],
]


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    """The module's database, in autocommit (see :func:`tests.write.api.write_db_fixture`)."""
    with django_db_blocker.unblock(), override_settings(ROOT_URLCONF="tests.sideeffects.api"):
        try:
            yield
        finally:
            write_api.reset(next_id=1, seed=False, app_label="sideeffects")


def run(api: str, paths: list[str]) -> tuple[list, dict]:
    write_api.reset(app_label="sideeffects", seed_rows=seed)
    client = api_client()
    answers = []
    for path in paths:
        response = send(client, api, "GET", path)
        body = response.content.decode().replace(f"/{api}/", A)
        answers.append((response.status_code, json.loads(body) if body.startswith("{") else body))
    return answers, write_api.snapshot("sideeffects")


@pytest.mark.usefixtures("transactional_db")
# Rendering each answer twice (the test settings' verification) would count each view twice.
@override_settings(DJONY_VERIFY_FAST_PATH=False)
@pytest.mark.parametrize("paths", READS, ids=lambda paths: " ".join(paths))
def test_hooks_use_the_object_as_a_django_instance(paths) -> None:
    want = run("se2", paths)
    got = run("se3", paths)
    assert got == want
    for status, body in got[0]:
        assert status == 200, body
        for item in body.get("objects", [body]) if isinstance(body, dict) else []:
            assert item["exact_class"] is True
            assert item["state"] == [False, connection.alias]
            assert item["views_stored"] == item["views_now"]
            assert item["names"][0].startswith("set ")
            assert item["same_row"] is True


@pytest.mark.django_db
def test_the_suites_check_refuses_an_object_of_another_class() -> None:
    """Every test runs with the check of tests/conftest.py: it can fail."""
    from django.contrib.auth.models import User

    from tastypie_djony.objectlist import DjonyObjectList
    from tests.conftest import NotTheModelsInstance

    object_list = DjonyObjectList(User.objects.all())
    object_list._result = [m.Article(title="not a user")]
    with pytest.raises(NotTheModelsInstance):
        object_list._after_load()
