"""Corpus: model behaviour through a resource.

Properties and methods as a field's ``attribute`` and in hooks (an abstract
parent's, a mixin's), ``get_FOO_display``, ``include_absolute_url``, a custom
field's ``from_db_value``, attnames and ``pk``; a proxy model behind
``DjangoAuthorization`` for a user with the proxy's permissions only and one
with the concrete model's only; POST to a proxy model's resource.
"""

from __future__ import annotations

import pytest

from tests.patterns import testing
from tests.patterns.testing import Reference, check_reference, check_twin, scenario
from tests.write.harness import delete, get, patch, post, put

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")
reference = Reference()

NEW_WRITER = {
    "name": "Dee Dee",
    "slug": "dee",
    "first_name": "Dee",
    "last_name": "Dee",
    "status": "a",
    "keywords": ["x", "y"],
}

CASES = [
    scenario(
        "read_writer",
        get("writer/"),
        get("writer/1/"),
        get("writer/3/"),
        get("writer/?status=a"),
        get("writer/?order_by=-slug&limit=2"),
        get("writer/schema/"),
        get("writer/set/1;3/"),
        expect=(200,) * 7,
    ),
    scenario("post_writer", post("writer/", NEW_WRITER), get("writer/4/"), expect=(201, 200)),
    scenario(
        "put_writer",
        put("writer/2/", dict(NEW_WRITER, slug="bo2", status="r")),
        get("writer/2/"),
        expect=(204, 200),
    ),
    scenario(
        "patch_writer_keywords",
        patch("writer/1/", {"keywords": ["ai"], "last_name": "L."}),
        get("writer/1/"),
        expect=(202, 200),
    ),
    scenario("delete_scribe", delete("writer/3/"), get("writer/"), expect=(204, 200)),
    # The proxy's permissions, not the concrete model's.
    scenario(
        "proxy_perms_read_write",
        get("activewriter/"),
        get("activewriter/1/"),
        post("activewriter/", NEW_WRITER),
        patch("activewriter/1/", {"name": "Ann L."}),
        delete("activewriter/2/"),
        expect=(200, 200, 201, 202, 204),
        client="proxy_user",
    ),
    scenario(
        "concrete_perms_refused_on_proxy",
        get("activewriter/"),
        get("activewriter/1/"),
        post("activewriter/", NEW_WRITER),
        patch("activewriter/1/", {"name": "Ann L."}),
        delete("activewriter/2/"),
        expect=(200, 401, 401, 401, 401),
        client="concrete_user",
    ),
    scenario(
        "post_proxy_model",
        post("proxywriter/", NEW_WRITER),
        get("proxywriter/4/"),
        get("writer/4/"),
        expect=(201, 200, 200),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_reference(case) -> None:
    check_reference(reference, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_twin(case) -> None:
    check_twin(reference, case)
