"""The example project's demo data: ``seed`` and its management command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.management import CommandError, call_command

from example_project.showcase import seeding

pytestmark = pytest.mark.django_db


def _snapshot() -> list[tuple]:
    return [
        (
            u.id,
            u.username,
            u.first_name,
            u.last_name,
            u.email,
            u.is_staff,
            u.is_active,
            u.date_joined,
            u.last_login,
            tuple(sorted(u.user_permissions.values_list("codename", "content_type__model"))),
        )
        for u in User.objects.order_by("id")
    ]


def test_seed_counts_and_the_159_permission_user():
    result = seeding.seed(users=60, progress=None)

    assert result.created
    assert User.objects.count() == 60
    assert list(User.objects.order_by("id").values_list("id", flat=True)) == list(range(1, 61))
    assert User.objects.get(pk=3).user_permissions.count() == 159
    # The showcase app's own model (the tutorial's Entry) has a content type too.
    demo_types = ContentType.objects.filter(app_label="showcase", model__in=seeding.DATA_TYPES)
    assert demo_types.count() == len(seeding.DATA_TYPES)
    assert Permission.objects.filter(content_type__in=demo_types).count() == 4 * len(
        seeding.DATA_TYPES
    )
    others = [u.user_permissions.count() for u in User.objects.exclude(pk=3)]
    assert max(others) <= 4 and sum(others) > 0
    assert result.user_permission_rows == sum(others) + 159
    assert seeding.is_seeded(60)
    assert not seeding.is_seeded(61)
    # Realistic names and unusable passwords.
    user = User.objects.get(pk=1)
    assert user.is_superuser and user.first_name in seeding.FIRST_NAMES
    assert user.username == seeding.DEMO_USERNAME == "demo" and user.email.startswith("demo@")
    assert not user.has_usable_password()


def test_seed_is_deterministic_and_idempotent():
    seeding.seed(users=30, progress=None)
    first = _snapshot()

    again = seeding.seed(users=30, progress=None)  # same data already there: nothing to do
    assert not again.created and _snapshot() == first

    seeding.seed(users=30, reset=True, progress=None)
    assert _snapshot() == first


def test_seed_refuses_other_users_without_reset():
    User.objects.create(username="someone-else")
    with pytest.raises(seeding.SeedError, match="--reset"):
        seeding.seed(users=10, progress=None)
    seeding.seed(users=10, reset=True, progress=None)
    assert not User.objects.filter(username="someone-else").exists()
    assert User.objects.count() == 10


def test_seed_new_user_ids_continue_after_the_seeded_ones():
    seeding.seed(users=10, progress=None)
    assert User.objects.create(username="after-seed").id > 10


def test_seed_needs_user_3():
    with pytest.raises(seeding.SeedError, match="at least 3"):
        seeding.seed(users=2, progress=None)


def test_seed_command_reports_and_shows_progress():
    out, err = StringIO(), StringIO()
    call_command("seed", users=12, no_migrate=True, stdout=out, stderr=err)
    assert "Seeded 12 users" in out.getvalue()
    assert User.objects.get(pk=3).user_permissions.count() == 159

    out = StringIO()
    call_command("seed", users=12, no_migrate=True, stdout=out)
    assert "Already seeded" in out.getvalue()

    with pytest.raises(CommandError, match="--reset"):
        call_command("seed", users=13, no_migrate=True, stdout=StringIO())


def test_progress_bar_draws_on_a_terminal_and_writes_one_line_otherwise():
    from tastypie_djony.verify.progress import Progress

    class Terminal(StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    with Progress("users", 10, stream=terminal) as bar:
        bar.advance(5)
    drawn = terminal.getvalue()
    assert drawn.startswith("\rusers [") and drawn.count("\r") == 2  # drawn in place
    assert drawn.endswith("50%  5/10  0.0 s\n")

    log = StringIO()
    with Progress("users", 10, stream=log) as bar:
        bar.update(10)
    assert log.getvalue().count("\n") == 1 and "10/10" in log.getvalue()
