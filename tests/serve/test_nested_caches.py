"""A hook that reads, through ``bundle.obj``, the relations ``full=True`` fields show runs no query.

The nested rows the bundle plan read for ``author`` and ``tags`` are the objects' relation
caches once the objects are built, as ``prefetch_related`` leaves them: the page costs the
same few queries at every page size, and answers what ModelResource (``/se2/``, a query
per story for each relation) answers.
"""

from __future__ import annotations

import datetime
import json

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from tests.sideeffects import models as m
from tests.write import api as write_api
from tests.write.api import api_client, send

EDITED = datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.timezone.utc)


def seed(stories: int):
    def rows():
        return [
            (
                m.Blogger,
                [
                    {"id": 1, "name": "ann", "posts_count": 0},
                    {"id": 2, "name": "ben", "posts_count": 0},
                ],
            ),
            (m.Keyword, [{"id": 1, "name": "red"}, {"id": 2, "name": "blue"}]),
            (
                m.Story,
                [
                    {
                        "id": n,
                        "author_id": 1 + n % 2,
                        "title": f"s{n}",
                        "slug": f"s{n}",
                        "revision": 1,
                        "edited": EDITED,
                    }
                    for n in range(1, stories + 1)
                ],
            ),
            (
                m.Story.tags.through,
                [{"id": n, "story_id": n, "keyword_id": 1 + n % 2} for n in range(1, stories + 1)],
            ),
        ]

    return rows


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    with (
        django_db_blocker.unblock(),
        override_settings(ROOT_URLCONF="tests.sideeffects.api", DJONY_VERIFY_FAST_PATH=False),
    ):
        try:
            yield
        finally:
            write_api.reset(next_id=1, seed=False, app_label="sideeffects")


@pytest.mark.usefixtures("transactional_db")
def test_relations_read_through_the_object_come_from_the_nested_rows() -> None:
    counts = []
    for stories in (3, 9):
        write_api.reset(app_label="sideeffects", seed_rows=seed(stories))
        client = api_client()
        want = send(client, "se2", "GET", "reading_story/")
        send(client, "se3", "GET", "reading_story/")  # a connection's first queries probe features
        with CaptureQueriesContext(connection) as queries:
            got = send(client, "se3", "GET", "reading_story/")
        assert got.status_code == want.status_code == 200
        assert json.loads(got.content.replace(b"/se3/", b"/se2/")) == json.loads(want.content)
        counts.append(len(queries))
        body = json.loads(got.content)["objects"]
        assert {o["by"] for o in body} == {"ann", "ben"} and all(o["tag_count"] == 1 for o in body)
    assert counts[0] == counts[1], counts
    # The page, its count, the authors, the tag keys and the tags: nothing per object.
    assert counts[0] <= 5, counts


@pytest.mark.usefixtures("transactional_db")
def test_a_full_to_one_s_object_is_the_model_s_instance_with_every_column() -> None:
    """The nested author's row comes through the page's own query (a join); the object the
    hook reads (``bundle.obj.author.name``) is built from it: the model's own class, every
    column Django loads, the same database and state, and no query of its own."""
    from django.db.models.signals import post_init

    write_api.reset(app_label="sideeffects", seed_rows=seed(4))
    m.Blogger.objects.filter(pk=2).update(posts_count=7)
    client = api_client()
    send(client, "se3", "GET", "reading_story/")  # a connection's first queries probe features
    built = []

    def record(sender, instance, **kwargs):
        built.append(instance)

    post_init.connect(record, sender=m.Blogger)
    try:
        with CaptureQueriesContext(connection) as queries:
            got = send(client, "se3", "GET", "reading_story/")
    finally:
        post_init.disconnect(record, sender=m.Blogger)
    assert got.status_code == 200
    assert sorted(b.pk for b in built) == [1, 2]  # one object per author, as a join gives
    for blogger in built:
        stored = m.Blogger.objects.get(pk=blogger.pk)
        assert type(blogger) is m.Blogger
        assert (blogger.name, blogger.posts_count) == (stored.name, stored.posts_count)
        assert blogger.get_deferred_fields() == set()
        assert (blogger._state.db, blogger._state.adding) == ("default", False)
    blogger_table = m.Blogger._meta.db_table
    assert [q for q in queries if f'FROM "{blogger_table}"' in q["sql"].replace("`", '"')] == []
