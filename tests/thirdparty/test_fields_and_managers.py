"""Third-party fields and managers: the same requests against ModelResource
(``/thirdparty/v2/``) and DjonyResource (``/thirdparty/v3/``) give the same answers and
leave the same rows; installing djony breaks neither ``check`` nor ``migrate``.

The resources (:mod:`tests.thirdparty.api`) are written as projects write them: hooks
and authorization classes hand ``bundle.obj`` (and model methods ``self``) to Django's
ORM, check ``isinstance``, and read taggit tags, sortedm2m exercises in the user's
order, mptt trees, polymorphic and model-utils subclasses, money and countries; and
hooks that write through taggit and sortedm2m while a page is read (what follows the
write shows it, as on ModelResource).
"""

from __future__ import annotations

import io
import json
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from tests.thirdparty import testing

PREFIXES = ("/thirdparty/v2/", "/thirdparty/v3/")


@pytest.fixture(scope="module")
def transactional_db(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        testing.drop_users()
        testing.create_users()
        try:
            with testing.noting_changes():
                yield
        finally:
            testing.reset()
            testing.drop_users()


pytestmark = pytest.mark.usefixtures("transactional_db")


def run(api: str, requests: list[tuple], user: str | None) -> list:
    """Reset (where a statement since the last reset may have changed a table), then
    each request; its status, body (JSON) and every table after it."""
    testing.reset_if_changed()
    client = Client(SERVER_NAME="api.example", raise_request_exception=False)
    if user is not None:
        with testing.outside_the_tables():
            client.force_login(User.objects.get(username=user))
    out = []
    for method, path, *body in requests:
        url = f"/thirdparty/{api}/{path}"
        data = json.dumps(body[0]).replace("/API/", f"/thirdparty/{api}/") if body else ""
        response = getattr(client, method)(url, data, content_type="application/json")
        text = response.content.decode().replace(f"/thirdparty/{api}/", "/API/")
        try:
            content = json.loads(text) if text else None
        except ValueError:
            content = text
        out.append(
            {
                "request": f"{method} {path}",
                "status": response.status_code,
                "body": content,
                "tables": testing.snapshot(),
            }
        )
    return out


READS = [
    "user/",
    "user/901/",
    "pin/",
    "pin/1/",
    "pin/?submitter__username=ann",
    "pin/set/1;3/",
    "workout/",
    "workout/1/",
    "workout/?order_by=title",
    "workout/?owner__username=ben",
    "category/",
    "category/2/",
    "category/?limit=2&offset=1",
    "project/",
    "project/2/",
    "real_project/",
    "real_project/2/",
    "post/",
    "post/1/",
    "place/",
    "place/2/",
    "product/",
    "product/2/",
    "address/",
    "address/?country=NZ",
    "address/1/",
    "exercise/",
    "tag/",
    "tagged/",
    "tagged/1/",
    "routine/",
    "routine/1/",
    "drill/",
    "drill/1/",
    "drill/?title__in=core,rest",
    # read hooks that write through taggit and sortedm2m: later objects show the writes
    "retagging/",
    "retagging/set/1;2;3/",
    "reordering/?order_by=title",
]


@pytest.mark.parametrize("path", READS)
@pytest.mark.parametrize("user", [None, "ann"])
def test_reads(path: str, user: str | None) -> None:
    requests = [("get", path + ("&" if "?" in path else "?") + "format=json")]
    want, got = run("v2", requests, user), run("v3", requests, user)
    assert want[0]["status"] == 200, want[0]
    assert got == want


WRITES = {
    "pin": [
        ("post", "pin/", {"submitter": "/API/user/902/", "url": "https://new.example"}),
        ("get", "pin/4/"),
    ],
    "workout": [
        (
            "post",
            "workout/",
            {
                "owner": "/API/user/901/",
                "title": "pull",
                "exercises": ["/API/exercise/3/", "/API/exercise/1/"],
            },
        ),
        ("get", "workout/4/"),
        ("patch", "workout/1/", {"exercises": ["/API/exercise/2/", "/API/exercise/1/"]}),
        ("get", "workout/1/"),
    ],
    "category": [
        ("post", "category/", {"name": "banana", "parent": "/API/category/2/"}),
        ("get", "category/2/"),
    ],
    "post": [
        ("post", "post/", {"title": "new", "author": "/API/user/902/", "status": "draft"}),
        ("get", "post/3/"),
    ],
    "address": [
        ("post", "address/", {"owner": "/API/user/901/", "country": "FR", "city": "Lyon"}),
        ("get", "address/3/"),
    ],
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes(name: str) -> None:
    requests = WRITES[name]
    want, got = run("v2", requests, None), run("v3", requests, None)
    assert want[0]["status"] == 201, want[0]
    assert got == want


@pytest.mark.parametrize("path", ["tagged/", "routine/"])
def test_queries_per_page_do_not_grow(path: str) -> None:
    """The page's tags and sortedm2m exercises are read per page, not per object."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.thirdparty.models import Exercise, Pin, Workout

    testing.reset()
    client = Client()
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/thirdparty/v3/{path}?format=json")
        assert response.status_code == 200
        counts.append((len(json.loads(response.content)["objects"]), len(queries)))
        ann = User.objects.get(username="ann")
        exercises = list(Exercise.objects.all())
        for n in range(5):
            pin = Pin.objects.create(submitter=ann, url=f"https://more.example/{n}")
            pin.tags.add("red", f"t{n}")
            Workout.objects.create(owner=ann, title=f"w{n}").exercises.set(exercises[::-1])
    (small, few), (large, many) = counts
    assert large == small + 5 and many == few, counts


def test_check_names_the_fields_django_serves() -> None:
    """``check`` passes with djony installed; each to-many field Django serves is named."""
    out = io.StringIO()
    call_command("check", stdout=out, stderr=out)
    text = out.getvalue()
    for field in ("thirdparty.Pin.tags", "thirdparty.Workout.exercises"):
        assert f"{field}: (djony.I001) {field} is not mapped by djony" in text


def test_migrate_runs_with_djony_installed() -> None:
    """The test database was migrated with djony installed; ``migrate`` finds nothing to do."""
    out = io.StringIO()
    call_command("migrate", "--plan", stdout=out, stderr=out)
    assert "No planned migration operations." in out.getvalue()


def test_polymorphic_objects_are_their_real_classes() -> None:
    """A polymorphic queryset's objects are each their subclass's instance, as on
    ModelResource; ``get_real_instance()`` works on the base class's objects."""
    (real,) = run("v3", [("get", "real_project/")], None)
    classes = {(o["class"], o["real_class"], o["is_base"]) for o in real["body"]["objects"]}
    assert ("ArtProject", "ArtProject", False) in classes
    assert all(o["class"] == o["real_class"] and o["same_row"] for o in real["body"]["objects"])
    (base,) = run("v3", [("get", "project/")], None)
    assert {o["real_class"] for o in base["body"]["objects"]} >= {"Project", "ArtProject"}


@pytest.mark.parametrize(("user", "per_page"), [("ann", True), (None, False)])
def test_related_reads_behind_a_project_s_manager_are_per_page_while_it_adds_nothing(
    user: str | None, per_page: bool
) -> None:
    """``DrillResource``'s hooks (``self.reps.get(...)``, counts, ``exists()``) over
    managers with a ``get_queryset`` of the project's: read once per page while those give
    everything (a signed-in user), each routine's own queries while the request's scope
    filters (anonymous) or the manager always does, as on Django; the answers are
    ModelResource's (``test_reads``)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.thirdparty.models import Rep, Routine

    testing.reset()
    client = Client()
    if user is not None:
        client.force_login(User.objects.get(username=user))
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/thirdparty/v3/drill/?format=json")
        assert response.status_code == 200
        objects = json.loads(response.content)["objects"]
        # the reps' and warmups' counts (the cooldowns' manager always filters,
        # AcceptedManager: a count per routine; a text get() is per routine on MariaDB)
        related = [
            q
            for q in queries
            if "COUNT(" in q["sql"] and re.search(r"thirdparty_(rep|routine_warmups)\W", q["sql"])
        ]
        counts.append((len(objects), len(related)))
        for n in range(4):
            routine = Routine.objects.create(title=f"more {n}")
            Rep.objects.create(routine=routine, kind="squat", count=n)
    (small, few), (large, many) = counts
    assert large == small + 4
    assert (many == few) is per_page, counts
