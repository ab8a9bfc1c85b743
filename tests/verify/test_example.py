"""``djony_verify`` on the example project, as its docs write it: ``manage.py seed`` prints
the demo user ``demo`` and its API key, and ``djony_verify --user demo`` finds v2 and v3 and
their twins the same, reads and (rolled back) writes."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from tastypie.models import ApiKey

from example_project.showcase import seeding
from tastypie_djony.management.commands.djony_verify import Command

pytestmark = [pytest.mark.django_db, pytest.mark.urls("example_project.urls")]


@pytest.fixture
def demo():
    out = StringIO()
    call_command("seed", users=30, no_migrate=True, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_seed_prints_the_demo_user_its_key_and_the_verify_command(demo):
    key = ApiKey.objects.get(user__username="demo").key
    assert User.objects.get(username="demo").pk == seeding.DEMO_USER_ID
    lines = demo.splitlines()
    assert f"Demo user: demo (user 1, a superuser), API key {key}" in lines
    assert f'  writes on /api/v2/ and /api/v3/: curl -H "Authorization: ApiKey demo:{key}" ...' in (
        lines
    )
    assert "  every resource against its twin: manage.py djony_verify --user demo" in lines


def test_example_verifies_clean_as_demo(demo):
    """As the demo user: the tutorial's resources read with an API key."""
    out = StringIO()
    call_command(
        Command(), "--user", "demo", "--max-requests", "400", "--rounds", "5",
        "--timing-seconds", "60", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    text = out.getvalue()
    assert text.splitlines()[-2] == "Every answer is the same on both bases."
    assert text.splitlines()[-1].endswith(
        " requests cut off by --max-requests (per resource above)."
    )
    assert "\nnot sent: " in text and ", cut off by --max-requests 400: /api/" in text
    assert "DjonyResource's median speed-up over " in text  # timed, each base in its own turn
    assert "\nBy kind of request (median over the timed requests, how many): list pages " in text
    assert ", at most " in text.partition("\nBy kind of request")[2].splitlines()[0]
    assert "\nOutside the resources' code (the same requests with each resource's views " in text
    assert "; inside the resources' code DjonyResource answered " in text
    assert "at most" in text.partition("\nresource ")[2].splitlines()[0]  # the table's column
    assert "own code" in text.partition("\nresource ")[2].splitlines()[0]
    own_code = text.partition("\nThe project's own code in the resources (its hooks, ")[2]
    own_code = own_code.splitlines()[0]
    assert "sampled on DjonyResource: " in own_code
    assert "% of a request's time (median over " in own_code
    assert "lists / details by" in text
    for uri in ("/api/v2/auth/user/", "/api/v3/auth/user/", "/api/v3/auth/permission/",
                "/api/v2/entry/", "/api/v3/entry/", "/api/v3/author/"):  # fmt: skip
        assert f"\n{uri} (" in text


def test_example_writes_as_the_demo_user_change_nothing(demo):
    before = list(User.objects.order_by("pk").values_list("pk", "username", "first_name"))
    out = StringIO()
    call_command(
        Command(), "--writes", "--user", "demo", "--resource", "/api/v3/auth/user/",
        "--max-requests", "40", "--timing-seconds", "0", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    assert "Every answer is the same on both bases." in out.getvalue()
    after = list(User.objects.order_by("pk").values_list("pk", "username", "first_name"))
    assert after == before


def test_data_seeded_before_the_demo_user_had_its_name_gets_it_from_seed(demo):
    fresh = list(User.objects.order_by("pk").values())
    domain = fresh[0]["email"].partition("@")[2]
    old_name = "noah.kuznetsova1"  # what the random names gave user 1
    User.objects.filter(pk=1).update(username=old_name, email=f"{old_name}@{domain}")
    out = StringIO()
    call_command("seed", users=30, no_migrate=True, stdout=out)
    assert "Already seeded" in out.getvalue()
    assert "Demo user: demo (user 1" in out.getvalue()
    assert list(User.objects.order_by("pk").values()) == fresh  # as a fresh seed writes it
