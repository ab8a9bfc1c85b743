"""The example's index page: every link works on v2 and v3; writes with the demo key."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from example_project.showcase import seeding

pytestmark = [pytest.mark.django_db, pytest.mark.urls("example_project.urls")]


@pytest.fixture
def client():
    seeding.seed(users=30, progress=None)
    return Client()


def links(index: dict) -> list[str]:
    found = []
    for value in index.values():
        found.extend(value if isinstance(value, list) else [value])
    return found


def test_every_index_link_answers_on_v2_and_v3(client):
    index = json.loads(client.get("/").content)
    urls = links(index)
    assert any("order_by=-date_joined" in url for url in urls)
    for url in urls:
        for variant in {
            url,
            url.replace("/api/v3/", "/api/v2/"),
            url.replace("/api/v2/", "/api/v3/"),
        }:
            response = client.get(variant)
            assert response.status_code == 200, (variant, response.content[:300])


def test_ordering_the_index_advertises(client):
    url = "/api/v3/auth/user/?format=json&username__startswith=a&order_by=-date_joined"
    v3 = json.loads(client.get(url).content)["objects"]
    v2 = json.loads(client.get(url.replace("v3", "v2")).content)["objects"]
    assert v3 == [{**o, "resource_uri": o["resource_uri"].replace("v2", "v3"),
                   "user_permissions": [u.replace("v2", "v3") for u in o["user_permissions"]]}
                  for o in v2]  # fmt: skip
    joined = [o["date_joined"] for o in v3]
    assert joined == sorted(joined, reverse=True) and joined


@pytest.mark.parametrize("api", ["v2", "v3"])
def test_writes_need_the_demo_key_and_then_work(client, api):
    username, key = seeding.demo_api_key()
    auth = {"HTTP_AUTHORIZATION": f"ApiKey {username}:{key}"}
    body = json.dumps({"username": "curl.demo", "first_name": "Curl"})
    users = f"/api/{api}/auth/user/"
    refused = client.post(users, body, content_type="application/json")
    assert refused.status_code == 401
    created = client.post(users, body, content_type="application/json", **auth)
    assert created.status_code == 201, created.content
    pk = json.loads(created.content)["id"]
    patched = client.patch(
        f"{users}{pk}/", json.dumps({"last_name": "Demo"}), content_type="application/json", **auth
    )
    assert patched.status_code == 202 and json.loads(patched.content)["last_name"] == "Demo"
    count = User.objects.count()
    gone = client.delete(f"{users}?username=curl.demo", **auth)
    assert gone.status_code == 204
    assert User.objects.count() == count - 1 and not User.objects.filter(pk=pk).exists()
