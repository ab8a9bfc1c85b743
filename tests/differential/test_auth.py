"""Stock Tastypie authentication and authorization on DjonyResource,
compared with ModelResource.

``secure/basic``: BasicAuthentication + ReadOnlyAuthorization;
``secure/apikey``: ApiKeyAuthentication + DjangoAuthorization;
``secure/session``: SessionAuthentication + a custom Authorization whose
``read_list`` filters the object list; ``secure/multi``: Basic or ApiKey +
DjangoAuthorization; ``secure/basic-a``: Basic + the custom Authorization.
"""

import base64

import pytest

from tests.differential.data import API_KEY, PASSWORD
from tests.differential.harness import TARGETS, Case

pytestmark = pytest.mark.django_db


def basic(username: str, password: str = PASSWORD) -> tuple[tuple[str, str], ...]:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return (("Authorization", f"Basic {token}"),)


def apikey(username: str, key: str = API_KEY) -> tuple[tuple[str, str], ...]:
    return (("Authorization", f"ApiKey {username}:{key}"),)


# basicuser and apiuser may change books (DjangoAuthorization reads with
# 'change'); noperm may not; inactive is not active.  <b1> is by 'Anna',
# <b2> by 'Łukasz'.
BASIC = [
    Case("secure/basic/"),
    Case("secure/basic/<b1>/"),
    Case("secure/basic/", headers=basic("basicuser")),
    Case("secure/basic/?title__startswith=Dune&order_by=-pages", headers=basic("basicuser")),
    Case("secure/basic/<b2>/", headers=basic("basicuser")),
    Case("secure/basic/schema/", headers=basic("basicuser")),
    Case("secure/basic/set/<b1>;<b2>/", headers=basic("basicuser")),
    Case("secure/basic/", headers=basic("basicuser", "wrong")),
    Case("secure/basic/", headers=basic("nosuchuser")),
    Case("secure/basic/", headers=basic("inactive")),
    Case("secure/basic/", headers=(("Authorization", "Basic !!!"),)),
    Case(
        "secure/basic/",
        headers=(("Authorization", "Basic " + base64.b64encode(b"nocolon").decode()),),
    ),
    Case("secure/basic/", headers=(("Authorization", "Bearer x"),)),
    Case("secure/basic/", headers=apikey("apiuser")),
]

APIKEY = [
    Case("secure/apikey/"),
    Case(f"secure/apikey/?username=apiuser&api_key={API_KEY}"),
    Case(f"secure/apikey/?username=apiuser&api_key={API_KEY}&limit=5&title__contains=e"),
    Case("secure/apikey/", headers=apikey("apiuser")),
    Case("secure/apikey/<b2>/", headers=apikey("apiuser")),
    Case("secure/apikey/schema/", headers=apikey("apiuser")),
    Case("secure/apikey/set/<b1>;<b2>/", headers=apikey("apiuser")),
    Case("secure/apikey/", headers=apikey("noperm")),
    Case("secure/apikey/<b2>/", headers=apikey("noperm")),
    Case("secure/apikey/schema/", headers=apikey("noperm")),
    Case("secure/apikey/set/<b1>;<b2>/", headers=apikey("noperm")),
    Case("secure/apikey/", headers=apikey("apiuser", "wrong")),
    Case("secure/apikey/", headers=apikey("inactive")),
    Case("secure/apikey/", headers=apikey("basicuser")),
    Case(f"secure/apikey/?username=nosuchuser&api_key={API_KEY}"),
]

SESSION = [
    Case("secure/session/"),
    Case("secure/session/", client="session"),
    Case("secure/session/?title__startswith=Dune", client="session"),
    Case("secure/session/?order_by=-pages&limit=3&offset=2", client="session"),
    Case("secure/session/?author__name=Zoë", client="session"),
    Case("secure/session/<b1>/", client="session"),
    Case("secure/session/<b2>/", client="session"),
    Case("secure/session/set/<b1>;<b2>/", client="session"),
    Case("secure/session/schema/", client="session"),
    Case("secure/session/<b1>/"),
]

MULTI = [
    Case("secure/multi/"),
    Case("secure/multi/", headers=basic("basicuser")),
    Case("secure/multi/", headers=apikey("apiuser")),
    Case("secure/multi/", headers=apikey("noperm")),
    Case("secure/multi/<b2>/", headers=basic("basicuser")),
    Case("secure/multi/<b2>/", headers=apikey("noperm")),
    Case("secure/multi/", headers=basic("basicuser", "wrong")),
    Case("secure/multi/", client="session"),
    Case("secure/multi/", headers=apikey("apiuser", "wrong")),
    Case("secure/multi/", headers=apikey("inactive")),
    Case("secure/multi/", headers=apikey("nosuchuser")),
    Case(f"secure/multi/?username=apiuser&api_key={API_KEY}"),
    Case("secure/multi/<b2>/", headers=apikey("apiuser")),
    Case("secure/multi/", headers=(("Authorization", "ApiKey nocolon"),)),
    Case("secure/basic-a/", headers=basic("basicuser")),
    Case("secure/basic-a/?order_by=pages&limit=0", headers=basic("basicuser")),
    Case("secure/basic-a/?author__name__startswith=Z", headers=basic("basicuser")),
    Case("secure/basic-a/<b1>/", headers=basic("basicuser")),
    Case("secure/basic-a/<b2>/", headers=basic("basicuser")),
    Case("secure/basic-a/set/<b1>;<b2>;<b3>/", headers=basic("basicuser")),
    Case("secure/basic-a/?format=xml", headers=basic("basicuser")),
]

CASES = BASIC + APIKEY + SESSION + MULTI


@pytest.mark.parametrize("api", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_auth(differential, case, api):
    differential.check(case, api)


def test_a_multi_authentication_s_api_key_backend_reads_by_kept_sql(differential, monkeypatch):
    """``MultiAuthentication(Basic, ApiKey)``: its ApiKey backend finds the user by the SQL
    compiled once (``tastypie_djony.apikey``), and the answers are ModelResource's."""
    from tastypie_djony import apikey as kept

    asked = []
    users = kept._users
    monkeypatch.setattr(kept, "_users", lambda username: asked.append(username) or users(username))
    for case in (
        Case("secure/multi/", headers=apikey("apiuser")),
        Case("secure/multi/", headers=apikey("noperm")),
        Case("secure/multi/", headers=basic("basicuser")),
    ):
        differential.check(case, TARGETS[0])
    assert asked == ["apiuser", "noperm"]  # Basic answered the third itself
