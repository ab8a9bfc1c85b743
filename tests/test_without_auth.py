"""A project without ``django.contrib.auth`` installs and serves DjonyResource: nothing of
tastypie_djony imports the auth app's models at import time (a model of an app that is
not installed cannot even be imported), and the permission read of
``tastypie_djony.permissions`` steps aside."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    """
    import sys

    import django
    from django.conf import settings

    settings.configure(
        INSTALLED_APPS=["django.contrib.contenttypes", "tastypie", "djony", "tastypie_djony"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    )
    django.setup()
    from django.http import HttpRequest
    from tastypie.authorization import DjangoAuthorization

    from tastypie_djony.permissions import read_permissions
    from tastypie_djony.resources import DjonyResource

    request = HttpRequest()
    request.user = object()
    read_permissions(DjangoAuthorization(), "read_list", request)
    assert "django.contrib.auth.models" not in sys.modules, "auth's models imported"
    print("served without django.contrib.auth:", DjonyResource.__name__)
    """
)


def test_djony_resource_without_django_contrib_auth() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "served without django.contrib.auth: DjonyResource" in result.stdout
