"""Rows, requests and answers of the tenant app's differential tests.

:func:`db_fixture` gives a module its rows (committed: threads see them) and the
tenant URLconf; :func:`answer` sends one GET as a user to one API and returns what a
client sees, with the API's prefix replaced so the twins' answers compare equal.
"""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management.color import no_style
from django.db import connection
from django.test import Client, override_settings

from tests.tenants import seed
from tests.tenants.api import REFERENCE, TARGET

APIS = (REFERENCE, TARGET)
URLCONF = "tests.tenants.urls"


def reset() -> None:
    """Empty the app's tables (counters at 1) and the seed's users, then seed again."""
    config = apps.get_app_config("tenants")
    tables = [m._meta.db_table for m in config.get_models(include_auto_created=True)]
    connection.ops.execute_sql_flush(
        connection.ops.sql_flush(no_style(), tables, reset_sequences=True)
    )
    User.objects.filter(username__in=seed.USERS).delete()
    seed.create()


def db_fixture():
    """A module-scoped ``transactional_db``: seeded rows, committed, and the tenant URLconf."""

    @pytest.fixture(scope="module")
    def transactional_db(django_db_setup, django_db_blocker):
        with django_db_blocker.unblock(), override_settings(ROOT_URLCONF=URLCONF):
            reset()
            try:
                yield
            finally:
                User.objects.filter(username__in=seed.USERS).delete()

    return transactional_db


def answer(api: str, user: str | None, path: str, client: Client | None = None, **extra) -> tuple:
    """``(status, Content-Type, body)`` of ``GET /<api>/<path>`` as ``user`` (JSON as data)."""
    client = client or Client()
    if user is not None:
        extra["HTTP_X_USER"] = user
    response = client.get(f"/{api}/{path}", **extra)
    text = response.content.decode().replace(f"/{api}/", "/API/")
    content_type = response.get("Content-Type", "")
    body = json.loads(text) if content_type.startswith("application/json") else text
    return response.status_code, content_type, body


def twins(user: str | None, path: str, **extra) -> tuple[tuple, tuple]:
    """The reference's and the target's answer to the same request."""
    return answer(REFERENCE, user, path, **extra), answer(TARGET, user, path, **extra)
