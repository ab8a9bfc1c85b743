"""Every authorization hook runs on every path.

A resource with Tastypie's stock ``Authorization``/``ReadOnlyAuthorization`` whose
``authorized_read_detail``/``authorized_read_list`` is overridden: ModelResource answers
401/403 or narrows the list; DjonyResource must answer the same in JSON (once served from rows
without ever calling the hook) and XML, with the fast path on and off.
"""

import pytest

from tests.zoo.testing import FORMATS, with_format, zoo  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("odd_denied/<a0>/", 200),  # number 40: allowed
        ("odd_denied/<a2>/", 401),  # number 31: refused by the hook
        ("forbidden_detail/<a0>/", 403),
        ("narrow_list/", 200),
        ("narrow_list/<a0>/", 200),  # the detail does not call read_list
        ("denied_list/", 401),
        ("denied_list/<a0>/", 200),
        ("odd_denied/", 200),
    ],
)
def test_authorization_hooks(zoo, url, status, fmt):  # noqa: F811
    zoo.check(with_format(url, fmt), status=status)


def test_the_list_hook_narrows_the_page(zoo):  # noqa: F811
    answer = zoo.check("narrow_list/")
    assert b'"total_count": 3' in answer.exact  # numbers 7, 12, 25 (3 is not alive)
