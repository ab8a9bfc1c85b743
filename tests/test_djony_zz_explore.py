import pytest
from tests.testapp.models import *
from pony.orm import db_session, select
from django.db import connection
@pytest.mark.django_db
def test_x():
    r = Restaurant.objects.create(name="r", address="x", serves_pizza=True)
    with db_session:
        e = Restaurant.p[r.pk]
        print(e.name, e.id, e.place_ptr)
        try:
            print(select(x for x in Restaurant.p if x.name == "r")[:])
        except Exception as exc:
            print("ERR", type(exc), exc)
        try:
            Restaurant.p(name="n", serves_pizza=False)
        except Exception as exc:
            print("ERR", type(exc), exc)
