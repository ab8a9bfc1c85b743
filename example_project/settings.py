"""Settings of the example project: the v2 (Tastypie), v3 (djony) and DRF APIs.

The database comes from ``DATABASE_URL`` (see :mod:`example_project.showcase.benchmark.databases`),
by default a SQLite file beside this module.  ``CONN_MAX_AGE`` (seconds a
worker keeps its database connection, default 60) comes from
``DJANGO_CONN_MAX_AGE``.  Authentication and authorization are left at
"anyone may read", as in the article, so that the benchmark measures the ORM
and serialisation and nothing else.
"""

import os
from pathlib import Path

from example_project.showcase.benchmark import databases

BASE_DIR = Path(__file__).resolve().parent
DEFAULT_DATABASE_URL = f"sqlite:///{BASE_DIR / 'showcase.sqlite3'}"

DATABASES = {
    "default": databases.parse(
        os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
    )
}

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "example-project-not-secret")
DEBUG = os.environ.get("DJANGO_DEBUG", "") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", "testserver"]
USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "djony",
    "tastypie",
    "tastypie_djony",  # manage.py djony_verify
    "rest_framework",
    "example_project.showcase",
]

# Lean on purpose: what an API server needs, nothing that touches the
# database per request (no sessions), so the three APIs are compared alone.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]

ROOT_URLCONF = "example_project.urls"
WSGI_APPLICATION = "example_project.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {},
    }
]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "UNAUTHENTICATED_USER": None,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
}
