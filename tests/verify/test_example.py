"""``djony_verify`` on the example project: v2 and v3 and their twins answer the same,
reads and (as the demo user, rolled back) writes."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from example_project.showcase import seeding
from tastypie_djony.management.commands.djony_verify import Command

pytestmark = [pytest.mark.django_db, pytest.mark.urls("example_project.urls")]


@pytest.fixture
def demo():
    seeding.seed(users=30, progress=None)
    return seeding.demo_api_key()


def test_example_verifies_clean(demo):
    """As the demo user: the tutorial's resources read with an API key."""
    username, _ = demo
    out = StringIO()
    call_command(
        Command(), "--user", username, "--max-requests", "400", stdout=out, stderr=StringIO()
    )
    text = out.getvalue()
    assert "Every answer is the same on both bases." in text
    for uri in ("/api/v2/auth/user/", "/api/v3/auth/user/", "/api/v3/auth/permission/"):
        assert uri in text


def test_example_writes_as_the_demo_user_change_nothing(demo):
    username, _ = demo
    before = list(User.objects.order_by("pk").values_list("pk", "username", "first_name"))
    out = StringIO()
    call_command(
        Command(), "--writes", "--user", username, "--resource", "/api/v3/auth/user/",
        "--max-requests", "40", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    assert "Every answer is the same on both bases." in out.getvalue()
    after = list(User.objects.order_by("pk").values_list("pk", "username", "first_name"))
    assert after == before
