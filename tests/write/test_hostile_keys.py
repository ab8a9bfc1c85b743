"""Write bodies with keys a client should not send are a 400 that changes nothing, never a 5xx.

``pk``, ``id`` and ``resource_uri`` of other objects or of the wrong type, keys no field
has, keys naming the model's methods, properties, managers, column names (``country_id``)
and Django's own instance attributes (``_state``), in a detail's PUT and PATCH and in
a list's POST, PUT and PATCH.  ModelResource answers some of these with a 500 (Tastypie
looks a PATCH key up among the resource's fields once the object has the attribute);
where it does not, DjonyResource answers as it does (with the same rows when both
succeed; a refused write leaves nothing, where ModelResource may have saved the object
before failing), but for :data:`INTENDED`.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.write import api as write_api
from tests.write.api import api_client, send

transactional_db = write_api.write_db_fixture()  # see its docstring
pytestmark = pytest.mark.usefixtures("transactional_db")

A = write_api.API_MARKER

KEYS = [
    {"name": "x", "nosuch": 1, "pk": 5},
    {"pk": 5},
    {"id": 5},
    {"name": "x", "pk": "abc"},
    {"name": "x", "id": "abc"},
    {"name": "x", "id": None},
    {"name": "x", "id": [1]},
    {"resource_uri": f"{A}author/2/"},
    {"name": "x", "resource_uri": 5},
    {"name": "x", "resource_uri": "/nope/"},
    {"name": "x", "resource_uri": f"{A}book/1/"},
    {"nosuch": 1},
    {"name": "x", "_state": 1},
    {"name": "x", "__class__": 1},
    {"name": "x", "__dict__": {}},
    {"name": "x", "delete": 1},
    {"name": "x", "save": 1},
    {"name": "x", "objects": 1},
    {"name": "x", "p": 1},
    {"name": "x", "country_id": 2},
    {"name": "x", "mentor_id": 999},
    {"name": "x", "books": 5},
    {"name": "x", "books": "abc"},
    {"name": "x", "follows": [{"pk": 1}]},
    {"name": "x", "country": {"pk": "abc"}},
    {"name": "x", "country": {"id": 1, "resource_uri": 3}},
]

ENDPOINTS = [("PATCH", "author/1/"), ("PUT", "author/1/"), ("POST", "author/")]
LIST_ENDPOINTS = [("PATCH", "author/"), ("PUT", "author/")]

#: What a client's error message must never show: a Python repr, a table, a Pony name.
LEAKS = re.compile(r"object at 0x|<[A-Za-z_.]+[ :>]|testapp_|Traceback|_djony|Pony|Entity")


#: Bodies DjonyResource refuses on purpose where ModelResource writes: a PUT or PATCH of
#: one object whose body gives it another key (ModelResource saves the data into, or
#: creates, the row of that key).
INTENDED = ({"id": 5}, {"pk": 5})


def cases():
    for method, path in ENDPOINTS:
        for body in KEYS:
            yield pytest.param(method, path, body, id=f"{method} {path} {json.dumps(body)}")
    for method, path in LIST_ENDPOINTS:
        for body in KEYS:
            wrapped = {"objects": [body]}
            yield pytest.param(method, path, wrapped, id=f"{method} {path} {json.dumps(body)}")


def run(api: str, method: str, path: str, body) -> tuple:
    write_api.reset()
    response = send(api_client(), api, method, path, body)
    return response.status_code, response.content.decode(), write_api.snapshot()


@pytest.mark.parametrize(("method", "path", "body"), list(cases()))
def test_hostile_keys(method, path, body) -> None:
    before = (write_api.reset(), write_api.snapshot())[1]
    v2_status, v2_body, v2_rows = run("v2", method, path, body)
    status, text, rows = run("v3", method, path, body)
    assert status < 500, text
    if status >= 400:
        assert rows == before, "a refused write changed rows"
        assert not LEAKS.search(text), text
    if v2_status >= 500:
        return
    if body in INTENDED and path.endswith("/1/") and status != v2_status:
        assert status == 400 and v2_status < 300, (v2_body, text)
        assert "cannot be changed" in text
        return
    assert status == v2_status, (v2_body, text)
    assert text == v2_body.replace("/v2/", "/v3/")
    if status < 400:
        assert rows == v2_rows
