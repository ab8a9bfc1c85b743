"""An error whose text XML cannot hold is a 400 in XML, not Django's 500 page (both bases
answered 500: the message echoes the client's control character or noncharacter)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("api", ["v2", "v3"])
@pytest.mark.parametrize(
    ("sent", "unsafe"),
    [("%1F%3E", "\x1f"), ("%EF%BF%BE", "\ufffe"), ("%EF%BF%BF", "\uffff")],
    ids=["control character", "U+FFFE", "U+FFFF"],
)
def test_an_xml_unsafe_character_in_an_xml_error(api, sent, unsafe):
    client = Client(raise_request_exception=False)
    response = client.get(f"/{api}/book/?format=xml&limit={sent}")
    if api == "v2":
        assert response.status_code == 500  # lxml refuses the message Tastypie builds
        return
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/xml")
    assert b"Invalid limit" in response.content
    assert unsafe.encode() not in response.content
