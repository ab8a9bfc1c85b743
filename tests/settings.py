"""Settings for the test suite.

The database comes from one environment variable, ``DJONY_TEST_DATABASE``:
``sqlite`` (default, in memory, nothing to install), ``postgresql`` or
``mysql`` (MariaDB or MySQL).  Host, port and user come from the usual
``PG*``/``MYSQL_*`` variables with the CI machine's defaults.
"""

import os

BACKEND = os.environ.get("DJONY_TEST_DATABASE", "sqlite")

if BACKEND == "sqlite":
    DATABASE = {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}
elif BACKEND == "postgresql":
    DATABASE = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("PGDATABASE", "djony"),
        "USER": os.environ.get("PGUSER", "postgres"),
        "PASSWORD": os.environ.get("PGPASSWORD", ""),
        "HOST": os.environ.get("PGHOST", "127.0.0.1"),
        "PORT": os.environ.get("PGPORT", "5432"),
    }
elif BACKEND == "mysql":
    DATABASE = {
        "ENGINE": "django.db.backends.mysql",
        "NAME": os.environ.get("MYSQL_DATABASE", "djony"),
        "USER": os.environ.get("MYSQL_USER", "root"),
        "PASSWORD": os.environ.get("MYSQL_PASSWORD", ""),
        "HOST": os.environ.get("MYSQL_HOST", "127.0.0.1"),
        "PORT": os.environ.get("MYSQL_PORT", "3306"),
        "OPTIONS": {"charset": "utf8mb4"},
        "TEST": {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_unicode_ci"},
    }
else:
    raise RuntimeError(f"DJONY_TEST_DATABASE={BACKEND!r}: use sqlite, postgresql or mysql.")

DATABASES = {"default": DATABASE}

SECRET_KEY = "djony-tests"
USE_TZ = True
TIME_ZONE = "Europe/Berlin"
DEBUG = False
ALLOWED_HOSTS = ["*"]
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

INSTALLED_APPS = [
    "djony",  # first on purpose: djony must work wherever it sits
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.admin",
    "django.contrib.messages",
    "tastypie",
    "rest_framework",
    "tests.testapp",
    "tests.zoo",
    "tests.instances",
    "tests.patterns",
    "example_project.showcase",
]

MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "tests.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
TASTYPIE_FULL_DEBUG = False
# Every answer the fast path gives is also rendered by the general path and compared.
DJONY_VERIFY_FAST_PATH = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
