"""The seed article's two measurements give byte-identical JSON on v3.

``/api/v2/auth/user/3/?format=json`` (a user with 159 permissions) and the
list of all users, ``?limit=0``, with 50 users.
"""

import json

import pytest

from tests.differential.data import SEED_USER_PERMISSIONS, USERS
from tests.differential.harness import TARGETS, Case

pytestmark = pytest.mark.django_db

USER_DETAIL = Case("auth/user/<u3>/?format=json")
USER_LIST = Case("auth/user/?limit=0")


@pytest.mark.parametrize("api", TARGETS)
def test_user_with_159_permissions(differential, api):
    body = json.loads(differential.get(USER_DETAIL, api).content)
    assert len(body["user_permissions"]) == SEED_USER_PERMISSIONS
    differential.check(USER_DETAIL, api)


@pytest.mark.parametrize("api", TARGETS)
def test_all_users(differential, api):
    body = json.loads(differential.get(USER_LIST, api).content)
    assert body["meta"]["total_count"] == len(body["objects"]) == USERS
    differential.check(USER_LIST, api)
