import pytest, json
from django.test import Client, override_settings
from tests import write_api

@pytest.fixture(scope="module")
def db(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        yield
        write_api.reset(1, seed=False)

@override_settings(ROOT_URLCONF="tests.write_urls")
def test_x(db):
    import time
    t=time.time()
    for i in range(10):
        write_api.reset()
    print("reset", (time.time()-t)/10)
    t=time.time()
    s = write_api.snapshot()
    print("snap", time.time()-t)
    c = Client(raise_request_exception=False, SERVER_NAME="api.example")
    for api in ("v2","v3","v3o"):
        write_api.reset()
        r = c.post(f"/{api}/tag/", json.dumps({"name":"new"}), content_type="application/json")
        print(api, r.status_code, r.headers, r.content)
        r = c.post(f"/{api}/author/", json.dumps({"name":"new", "country": f"/{api}/country/1/"}), content_type="application/json")
        print(api, r.status_code, r.headers, r.content)
        print(write_api.snapshot()["testapp_tag"])
