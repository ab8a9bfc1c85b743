"""Signals and ``Meta.writes``.

Every DjonyResource saves and deletes through the Django model, so
``post_save``/``post_delete`` receivers run, as they do for ModelResource,
whatever ``Meta.writes`` says (``"django"``, the default, spelled out by the
``tagdj`` resource).  The writes' side effects in full: tests/write/test_side_effects.py.
"""

from __future__ import annotations

import json

import pytest
from django.core import checks
from django.db.models.signals import post_delete, post_save

from tests.testapp.models import Tag
from tests.write import api as write_api
from tests.write.api import api_client, send

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = pytest.mark.usefixtures("transactional_db")


@pytest.fixture
def receiver():
    """Records ``post_save`` and ``post_delete`` of ``Tag`` while the test runs."""
    calls: list[tuple] = []

    def on_save(sender, instance, created, **kwargs):
        calls.append(("post_save", instance.pk, instance.name, created))

    def on_delete(sender, instance, **kwargs):
        calls.append(("post_delete", instance.pk, instance.name))

    post_save.connect(on_save, sender=Tag, dispatch_uid="test_write_signals.save")
    post_delete.connect(on_delete, sender=Tag, dispatch_uid="test_write_signals.delete")
    try:
        yield calls
    finally:
        post_save.disconnect(sender=Tag, dispatch_uid="test_write_signals.save")
        post_delete.disconnect(sender=Tag, dispatch_uid="test_write_signals.delete")


def lifecycle(api: str, resource: str) -> list[int]:
    """POST, PUT, PATCH and DELETE one tag; the statuses."""
    client = api_client()
    statuses = [send(client, api, "POST", f"{resource}/", {"name": "born"}).status_code]
    statuses.append(send(client, api, "PUT", f"{resource}/100/", {"name": "grown"}).status_code)
    statuses.append(send(client, api, "PATCH", f"{resource}/100/", {"name": "old"}).status_code)
    statuses.append(send(client, api, "DELETE", f"{resource}/100/").status_code)
    return statuses


DJANGO_CALLS = [
    ("post_save", 100, "born", True),
    ("post_save", 100, "grown", False),
    ("post_save", 100, "old", False),
    ("post_delete", 100, "old"),
]


@pytest.mark.parametrize("api", ["v2", "v3", "v3o"])
def test_django_writes_run_receivers(api: str, receiver: list) -> None:
    """``Meta.writes = "django"`` (tagdj): the receivers run as for ModelResource."""
    write_api.reset()
    statuses = lifecycle(api, "tagdj")
    assert statuses == [201, 200, 202, 204]
    assert receiver == DJANGO_CALLS


def test_modelresource_runs_receivers(receiver: list) -> None:
    write_api.reset()
    assert lifecycle("v2", "tag") == [201, 204, 202, 204]
    assert receiver == DJANGO_CALLS


@pytest.mark.parametrize("api", ["v3", "v3o"])
def test_default_writes_run_receivers(api: str, receiver: list) -> None:
    """Without ``Meta.writes`` DjonyResource writes through the model: the same receivers run."""
    write_api.reset()
    assert lifecycle(api, "tag") == [201, 204, 202, 204]
    assert receiver == DJANGO_CALLS
    assert not Tag.objects.filter(pk=100).exists()


@pytest.mark.parametrize("api", ["v3", "v3o"])
def test_django_writes_read_back_through_pony(api: str, receiver: list) -> None:
    """A row written through the Django model is read back (through Pony) at once."""
    write_api.reset()
    client = api_client()
    response = send(client, api, "POST", "tagdj/", {"name": "fresh"})
    assert response.status_code == 201
    assert json.loads(response.content) == {
        "id": 100,
        "name": "fresh",
        "resource_uri": f"/{api}/tagdj/100/",
    }
    response = send(client, api, "GET", "tag/100/")
    assert json.loads(response.content)["name"] == "fresh"


def test_no_warning_about_skipped_receivers() -> None:
    """Writes skip nothing: the 0.2 warning about skipped receivers (W001) is gone."""
    messages = checks.run_checks(tags=["tastypie_djony"])
    assert not [m for m in messages if m.id == "tastypie_djony.W001"]
