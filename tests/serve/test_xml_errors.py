"""An error whose text XML cannot hold is a 400 in XML, not Django's 500 page (both bases
answered 500: the message echoes the client's control character)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("api", ["v2", "v3"])
def test_a_control_character_in_an_xml_error(api):
    client = Client(raise_request_exception=False)
    response = client.get(f"/{api}/book/?format=xml&limit=%1F%3E")
    if api == "v2":
        assert response.status_code == 500  # lxml refuses the message Tastypie builds
        return
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/xml")
    assert b"Invalid limit" in response.content and b"\\x1f" not in response.content
