"""The database side of the third-party tests: seed rows and table snapshots.

:func:`reset` empties the app's tables and those of taggit (counters back at 1,
Django's own flush SQL for the backend) and writes :func:`seed`'s rows through
Django, so each API runs a request sequence from the same rows with the same keys;
:func:`reset_if_changed` skips it where no statement since could have changed them.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

from django.apps import apps
from django.contrib.auth.models import User
from django.core.management.color import no_style
from django.db import connection

#: username -> key (fixed: the users outlive the module's resets of the other tables).
USERS = {"ann": 901, "ben": 902}
APPS = ("thirdparty", "taggit")


def tables() -> list:
    models = []
    for label in APPS:
        config = apps.get_app_config(label)
        models.extend(m for m in config.get_models(include_auto_created=True) if not m._meta.proxy)
    return models


def reset() -> None:
    assert not connection.in_atomic_block, "reset() must run in autocommit mode"
    global _changed
    names = [m._meta.db_table for m in tables()]
    flush = connection.ops.sql_flush(no_style(), names, reset_sequences=True)
    connection.ops.execute_sql_flush(flush)
    seed()
    _changed = False


#: Inside :func:`noting_changes`: whether a statement that may change a row or a counter
#: ran since the last :func:`reset` (outside: unknown, so always).
_changed = True
#: The statements that read, or only open and close transactions and savepoints.
_READING = ("SELECT", "SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "COMMIT", "SET", "SHOW")


def reset_if_changed() -> None:
    """:func:`reset`, unless nothing since the last one may have changed the tables
    (inside :func:`noting_changes`: a read-only request sequence needs no reset)."""
    if _changed:
        reset()


#: Inside :func:`outside_the_tables`.
_outside = False


@contextmanager
def outside_the_tables() -> Iterator[None]:
    """Inside: what runs writes no table :func:`reset` resets (a login's session and
    ``last_login``), so it marks nothing changed."""
    global _outside
    _outside = True
    try:
        yield
    finally:
        _outside = False


@contextmanager
def noting_changes() -> Iterator[None]:
    """Inside: every statement on the connection is seen, and one that is not a read
    marks the tables changed (Pony's too: they pass through Django's cursor)."""
    global _changed

    def note(execute, sql, params, many, context):
        global _changed
        if not _outside and not sql.lstrip().upper().startswith(_READING):
            _changed = True
        return execute(sql, params, many, context)

    _changed = True
    try:
        with connection.execute_wrapper(note):
            yield
    finally:
        _changed = True


def seed() -> None:
    from djmoney.money import Money

    from tests.thirdparty.models import (
        Address,
        ArtProject,
        Cafe,
        Category,
        Drill,
        Exercise,
        Move,
        Pin,
        Place,
        Post,
        Product,
        Project,
        Rep,
        Routine,
        WeightEntry,
        Workout,
    )

    ann, ben = (User.objects.get(username=name) for name in USERS)
    for user, url, tags in (
        (ann, "https://a.example/1", ["red", "blue"]),
        (ann, "https://a.example/2", ["blue"]),
        (ben, "https://b.example/1", []),
    ):
        Pin.objects.create(submitter=user, url=url).tags.add(*tags)
    squat, bench, row = (Exercise.objects.create(name=n) for n in ("squat", "bench", "row"))
    Workout.objects.create(owner=ann, title="legs").exercises.set([squat, row, bench])
    Workout.objects.create(owner=ann, title="push").exercises.set([row, bench])
    Workout.objects.create(owner=ben, title="empty")
    hop, jog = Move.objects.create(name="hop", accepted=False), Move.objects.create(name="jog")
    cone = Drill.everything.create(name="cone", accepted=False)
    for title, reps, warmups, cooldowns in (
        ("core", [("squat", 10, True), ("lunge", 8, False)], [hop, jog], [cone]),
        ("legs", [("squat", 5, True), ("squat", 6, True), ("lunge", 4, True)], [jog], []),
        ("rest", [], [], []),
    ):
        routine = Routine.objects.create(title=title)
        for kind, count, accepted in reps:
            Rep.objects.create(routine=routine, kind=kind, count=count, accepted=accepted)
        routine.warmups.set(warmups)
        routine.cooldowns.set(cooldowns)
    WeightEntry.objects.create(owner=ann, kg=Decimal("71.5"))
    WeightEntry.objects.create(owner=ann, kg=Decimal("70.9"))
    root = Category.objects.create(name="root")
    fruit = Category.objects.create(name="fruit", parent=root)
    Category.objects.create(name="apple", parent=fruit)
    Category.objects.create(name="veg", parent=root)
    Project.objects.create(topic="plain")
    ArtProject.objects.create(topic="art", artist="Klee")
    Post.objects.create(title="hello", author=ann, status="published")
    Post.objects.create(title="draft", author=ben)
    Place.objects.create(name="square")
    Cafe.objects.create(name="corner", espresso=False)
    Product.objects.create(name="mug", price=Money("9.50", "EUR"))
    Product.objects.create(name="cup", price=Money("3", "USD"))
    Address.objects.create(owner=ann, country="DE", city="Berlin")
    Address.objects.create(owner=ben, country="NZ", city="Wellington")


def create_users() -> None:
    for name, key in USERS.items():
        User.objects.create_user(name, f"{name}@example.com", "secret", id=key)


def drop_users() -> None:
    User.objects.filter(username__in=USERS).delete()


def snapshot() -> dict:
    """Every row of every table, by key, as JSON-able values."""
    result = {}
    for model in tables():
        columns = [f.attname for f in model._meta.local_concrete_fields]
        if model._meta.auto_created:
            columns = [c for c in columns if c != model._meta.pk.attname]
        rows = model._base_manager.order_by(*columns[:1]).values(*columns)
        result[model._meta.db_table] = sorted(
            json.dumps({k: _plain(v) for k, v in row.items()}, sort_keys=True) for row in rows
        )
    return result


def _plain(value) -> str:
    """A column value as text; a timestamp (model-utils' ``created``) as ``<datetime>``."""
    return "<datetime>" if isinstance(value, datetime.datetime) else str(value)
