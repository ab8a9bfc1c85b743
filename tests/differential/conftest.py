"""Fixtures of the differential suite.

The data set is written once for the whole package, inside a transaction
that is rolled back when the package is done, so the tests of other packages
never see it (and the DB stays as pytest-django created it).  The tests are
marked ``django_db`` only so that pytest-django creates the database; they
only read, and each request runs in a savepoint of its own (see
:meth:`~tests.differential.harness.Differential.get`).
"""

import pytest
from django.contrib.auth.models import User
from django.db import transaction

pytest.register_assert_rewrite("tests.differential.harness")

from tests.differential import data  # noqa: E402
from tests.differential.harness import Differential, api_client  # noqa: E402


@pytest.fixture(scope="package")
def differential(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), transaction.atomic():
        ids = data.create()
        session = api_client()
        session.force_login(User.objects.get(username="sessionuser"))
        yield Differential(ids, {"anonymous": api_client(), "session": session})
        transaction.set_rollback(True)
