import pytest, os
from tests.test_verify_querysets import *
pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.test_verify_querysets")]
def test_x(rows):
    for uri in os.environ["URIS"].split():
        run = verify("--resource", f"/api/qs/{uri}/", "--show", "2")
        print("=====", uri, run.reason)
        i = run.out.find("First differences")
        print(run.out[i:i+2500] if i >= 0 else run.out[:1200])
