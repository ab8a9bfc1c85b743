"""Settings for the test suite, chosen by environment variables.

``DJONY_TEST_DATABASE`` picks the backend: ``sqlite`` (default, in memory,
nothing to install), ``postgresql`` or ``mysql`` (MariaDB or MySQL).  Host,
port and user come from the usual ``PG*``/``MYSQL_*`` variables with the CI
machine's defaults.

PostgreSQL variants (each may be combined with the others where it makes sense):

``DJONY_PG_DRIVER=psycopg`` or ``psycopg2``
    The driver Django's connection uses.  Unset: Django's own choice
    (psycopg 3 when installed).  ``psycopg2`` hides psycopg 3 from Django
    (``sys.modules["psycopg"] = None``), as on a machine with psycopg2 only,
    so one virtualenv with both drivers serves both legs.
``DJONY_PG_POOL=1``
    Django's connection pool (``OPTIONS["pool"]``, psycopg 3 only).
``DJONY_PGBOUNCER_PORT=6432``
    Connect through PgBouncer on that port of ``PGHOST`` (transaction
    pooling: ``DISABLE_SERVER_SIDE_CURSORS``).  Run with ``--reuse-db``:
    PgBouncer keeps server connections to the test database open, so
    Django could not drop it; whoever started PgBouncer drops it after
    stopping it (``.ci/run`` does).
``DJONY_PG_REPLICA_PORT=5433``
    A second alias, ``replica``, on a streaming replica of the cluster at
    that port (same host, same database: ``TEST["MIRROR"]``).  Without it
    ``replica`` is still defined, as a second connection to the same
    database, so the router tests (tests/djony/test_routers.py) run on every
    backend; only with a real replica do they prove that reads come from
    a server that refuses writes.  No router is installed globally: the
    router tests install ``tests.djony.routers.PrimaryReplicaRouter`` themselves.
"""

import os
import sys

BACKEND = os.environ.get("DJONY_TEST_DATABASE", "sqlite")
PG_DRIVER = os.environ.get("DJONY_PG_DRIVER", "")
PG_POOL = os.environ.get("DJONY_PG_POOL", "") == "1"
PGBOUNCER_PORT = os.environ.get("DJONY_PGBOUNCER_PORT", "")
PG_REPLICA_PORT = os.environ.get("DJONY_PG_REPLICA_PORT", "")

if BACKEND != "postgresql" and (PG_DRIVER or PG_POOL or PGBOUNCER_PORT or PG_REPLICA_PORT):
    raise RuntimeError("DJONY_PG_* variables need DJONY_TEST_DATABASE=postgresql.")

if BACKEND == "sqlite":
    DATABASE = {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}
elif BACKEND == "postgresql":
    if PG_DRIVER == "psycopg2":
        sys.modules["psycopg"] = None  # Django's backend falls back to psycopg2
    elif PG_DRIVER == "psycopg":
        import psycopg  # noqa: F401 (fail here, not with Django's fallback to psycopg2)
    elif PG_DRIVER:
        raise RuntimeError(f"DJONY_PG_DRIVER={PG_DRIVER!r}: use psycopg or psycopg2.")
    DATABASE = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("PGDATABASE", "djony"),
        "USER": os.environ.get("PGUSER", "postgres"),
        "PASSWORD": os.environ.get("PGPASSWORD", ""),
        "HOST": os.environ.get("PGHOST", "127.0.0.1"),
        "PORT": PGBOUNCER_PORT or os.environ.get("PGPORT", "5432"),
        "OPTIONS": {},
    }
    if PG_POOL:
        if PG_DRIVER == "psycopg2":
            raise RuntimeError("DJONY_PG_POOL=1 needs psycopg 3 (Django's pool is psycopg's).")
        DATABASE["OPTIONS"]["pool"] = {"min_size": 1, "max_size": 4, "timeout": 10}
    if PGBOUNCER_PORT:
        DATABASE["DISABLE_SERVER_SIDE_CURSORS"] = True
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

# No pool on the replica alias: Django closes only the default alias's pool
# before dropping the test database.
REPLICA = {
    **DATABASE,
    "OPTIONS": {k: v for k, v in DATABASE.get("OPTIONS", {}).items() if k != "pool"},
    "TEST": {**DATABASE.get("TEST", {}), "MIRROR": "default"},
}
if PG_REPLICA_PORT:
    REPLICA["PORT"] = PG_REPLICA_PORT

DATABASES = {"default": DATABASE, "replica": REPLICA}

SECRET_KEY = "djony-tests"
USE_TZ = True
TIME_ZONE = "Europe/Berlin"
DEBUG = False
ALLOWED_HOSTS = ["*"]
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

INSTALLED_APPS = [
    "djony",  # first on purpose: djony must work wherever it sits
    "tastypie_djony",
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
    "tests.verify.project",
    "tests.sideeffects",
    "tests.tenants",
    "example_project.showcase",
    # Third-party apps whose fields and managers djony must map or leave to Django.
    "taggit",
    "sortedm2m",
    "mptt",
    "polymorphic",
    "djmoney",
    "django_countries",
    "tests.thirdparty",
]

MIDDLEWARE = [
    "tests.urlconfs.URLconfPerAPIMiddleware",  # reverse() as fast as in a real project
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
