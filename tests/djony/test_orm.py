"""The 2013 facade (``from djony import orm``), ``djony.db()`` and routing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from pony.orm import Database

import djony
from djony import registry
from tests.testapp.models import Author, ProxyAuthor, Tag

pytestmark = pytest.mark.django_db


class RecordingRouter:
    """Sends reads to "default" and remembers which models it was asked about."""

    calls: list[type] = []

    def db_for_read(self, model: type, **hints) -> str:
        RecordingRouter.calls.append(model)
        return "default"


class NoOpinionRouter:
    def db_for_read(self, model: type, **hints) -> None:
        return None


def test_orm_facade() -> None:
    from djony import orm

    Tag.objects.create(name="old spelling")
    assert orm.db() is djony.db()
    assert orm.db("default") is djony.db("default")
    assert isinstance(orm.db(), Database)
    with orm.db_session:
        assert orm.select(t.name for t in Tag.p)[:] == ["old spelling"]
        assert orm.count(t for t in Tag.p) == 1
        assert orm.get(t for t in Tag.p if t.name == "old spelling").name == "old spelling"
        assert orm.exists(t for t in Tag.p)


def test_db_is_built_once_and_holds_every_entity() -> None:
    database = djony.db("default")
    assert djony.db() is database
    # taggit's Tag (installed by the test settings) shares the name: app label first.
    assert database.entities["Testapp_Tag"] is Tag.p
    assert database.entities["User"] is User.p
    assert registry.entities("default")[Author] is Author.p


def test_unknown_alias_is_refused() -> None:
    from django.utils.connection import ConnectionDoesNotExist

    with pytest.raises(ConnectionDoesNotExist):
        djony.db("no_such_alias")


def test_the_registry_builds_with_what_ready_gave_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``DjonyConfig.ready()`` hands the registry its builder; without one, a clear error."""
    from django.core.exceptions import ImproperlyConfigured

    from djony.build import build

    assert registry._builder is build
    monkeypatch.setattr(registry, "_builder", None)
    monkeypatch.setattr(registry, "_databases", {})
    with pytest.raises(ImproperlyConfigured, match='add "djony" to INSTALLED_APPS'):
        djony.db()


def test_entity_for_follows_db_for_read() -> None:
    RecordingRouter.calls = []
    with override_settings(DATABASE_ROUTERS=[f"{__name__}.RecordingRouter"]):
        assert Author.p is registry.entity_for(Author, "default")
        assert ProxyAuthor.p is Author.p
    assert RecordingRouter.calls == [Author, ProxyAuthor, Author]
    with override_settings(DATABASE_ROUTERS=[f"{__name__}.NoOpinionRouter"]):
        assert Tag.p is registry.entities("default")[Tag]
