import pytest
from tests.testapp.models import *
from pony.orm import db_session, select, commit
from django.db import connection, transaction, connections
from django.test.utils import CaptureQueriesContext
@pytest.mark.django_db
def test_x():
    AllTypes.objects.create(code="dup")
    with CaptureQueriesContext(connection) as ctx:
        with db_session:
            Tag.p.select()[:]
        with db_session:
            Tag.p(name="x")
    for q in ctx.captured_queries: print(q["sql"])
    try:
        with db_session:
            AllTypes.p(code="dup")
    except Exception as exc:
        print("ERR", type(exc).__mro__, exc)
    print(Tag.objects.count(), connection.needs_rollback, connection.in_atomic_block)

@pytest.mark.django_db(transaction=True)
def test_y():
    with db_session:
        Tag.p(name="x")
    print(connection.in_atomic_block, connection.get_autocommit())
    other = connections.create_connection("default")
    try:
        with other.cursor() as c:
            c.execute("select count(*) from testapp_tag"); print("other sees", c.fetchone())
    finally:
        other.close()
