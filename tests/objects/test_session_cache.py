"""A read that never touches Pony leaves the Pony session without a cache to commit.

``djony.objects.sessions.session_cache`` asks for the session's cache of a database
without making one: the rows of a list (read on Django's cursor) and the question whether
the session holds unflushed changes make none, and a change made through ``Model.p``
is still written before the next read sees the table.
"""

from __future__ import annotations

import pytest
from pony.orm import db_session
from pony.orm.core import local as pony_local

from djony.serving import unflushed_changes
from tastypie_djony.objectlist import DjonyObjectList
from tests.testapp.models import Tag

pytestmark = pytest.mark.django_db


def test_rows_read_on_django_s_cursor_make_no_pony_cache():
    Tag.objects.create(name="sf")
    with db_session(strict=False):
        rows = DjonyObjectList(Tag.objects.order_by("pk")).values_rows(["pk", "name"])
        assert [name for _, name in rows] == ["sf"]
        assert not unflushed_changes(Tag)
        assert not pony_local.db2cache


def test_a_change_through_pony_is_written_before_the_rows_are_read():
    tag = Tag.objects.create(name="sf")
    with db_session(strict=False):
        Tag.p[tag.pk].name = "art"
        assert unflushed_changes(Tag)
        rows = DjonyObjectList(Tag.objects.order_by("pk")).values_rows(["name"])
        assert list(rows) == [("art",)]
        assert not unflushed_changes(Tag)
