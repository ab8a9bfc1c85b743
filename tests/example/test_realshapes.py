"""The real-world shapes (pinry, wger, django-oppia) in ``benchmarks.realshapes``: every
flavour answers ModelResource's body before anything is timed, a different body stops the
run, a short run of the command works; the resources' refusals answer alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from tastypie.models import ApiKey

from benchmarks import harness, realshapes
from example_project.showcase.realshapes.models import Pin, Points
from example_project.showcase.realshapes.seeding import seed_shapes

pytestmark = [pytest.mark.django_db, pytest.mark.urls("benchmarks.urls")]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def seeded():
    realshapes.seed()
    return realshapes.headers()


@pytest.fixture
def cases(seeded):
    return realshapes.concrete(realshapes.CASES)


def test_every_flavour_answers_every_case_as_modelresource(client, seeded, cases):
    for case in cases:
        assert realshapes.check(client, case, realshapes.FLAVOURS, seeded) > 0, case.name


def test_the_bodies_are_the_shapes_asked_for(client, seeded, cases):
    by_name = {case.name: case for case in cases}
    pin = json.loads(client.get("/api/shapes-v3/" + by_name["pin-detail"].path).content)
    assert set(pin["submitter"]) == {"gravatar", "username"} and "width" in pin["image"]
    assert pin["tags"] == sorted(pin["tags"]) and "private" not in pin
    page = json.loads(client.get("/api/shapes-v3/" + by_name["pin-submitters"].path).content)
    submitters = set(User.objects.filter(pk__in=[2, 3, 5, 8]).values_list("username", flat=True))
    assert page["objects"] and {o["submitter"]["username"] for o in page["objects"]} == submitters
    exercise = json.loads(client.get("/api/shapes-v3/" + by_name["exercise-detail"].path).content)
    assert exercise["resource_uri"].endswith(f"/exercise/{exercise['slug']}/")
    assert "<p>" not in exercise["description"]
    points = json.loads(
        client.get("/api/shapes-v3/" + by_name["points-page"].path, **seeded).content
    )
    assert points["meta"]["total_count"] == Points.objects.filter(user_id=1).count()
    assert all(isinstance(o["bonus"], bool) for o in points["objects"])


@pytest.mark.parametrize("flavour", ["v2p", "v3", "v3p", "drf", "raw"])
def test_a_different_body_stops_the_run(client, seeded, cases, monkeypatch, flavour):
    real = realshapes.get

    def tampered(client, side, case, extra):
        response = real(client, side, case, extra)
        if side == flavour:
            response.content = response.content.replace(b'"id": 41', b'"id": 42').replace(
                b'"id":41', b'"id":42'
            )
        return response

    monkeypatch.setattr(realshapes, "get", tampered)
    with pytest.raises(harness.NotIdentical, match=f"{flavour} pin-detail"):
        realshapes.check(client, cases[0], realshapes.FLAVOURS, seeded)


@pytest.mark.parametrize("flavour", ["v3", "drf", "raw"])
def test_a_different_xml_body_stops_the_run(client, seeded, cases, monkeypatch, flavour):
    real = realshapes.get
    (case,) = [case for case in cases if case.name == "exercise-detail-xml"]

    def tampered(client, side, case, extra):
        response = real(client, side, case, extra)
        if side == flavour:
            response.content = response.content.replace(b"<name>", b"<name>Not ")
        return response

    assert b"<name>" in real(client, flavour, case, seeded).content
    monkeypatch.setattr(realshapes, "get", tampered)
    with pytest.raises(harness.NotIdentical, match=f"{flavour} exercise-detail-xml"):
        realshapes.check(client, case, realshapes.FLAVOURS, seeded)


def test_a_short_run_times_every_case_and_flavour(client, seeded, cases):
    collections = []  # (a full collection in the suite's process costs about a second)
    sizes, counts, samples = realshapes.run(
        client, cases, realshapes.FLAVOURS, 2, seeded, collect=lambda: collections.append(1)
    )
    assert len(collections) == 2 * len(realshapes.FLAVOURS)  # before each flavour's turn
    assert set(sizes) == {case.name for case in cases}
    assert set(samples) == {(c.name, f) for c in cases for f in realshapes.FLAVOURS}
    assert all(len(times) == 2 and min(times) > 0 for times in samples.values())
    assert all(count >= 1 for count in counts.values())
    value, spread = harness.ratio(samples, "pin-page", "v2", "v3", of="rounds")
    assert value > 0 and "-" in spread


def test_the_command_runs_and_prints_its_tables(tmp_path):
    database = tmp_path / "realshapes.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.realshapes", "--rounds", "2"]
        + ["--database", f"sqlite:///{database}", "--cases", "pin-page,exercise-detail"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "example_project.settings"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert database.stat().st_size > 0  # the run's own database, migrated and seeded
    assert "bodies identical to ModelResource's" in done.stdout
    assert "queries per request" in done.stdout
    assert "| wger exercise: detail by slug |" in done.stdout
    assert "medians of per-round ratios" in done.stdout


def test_seeding_is_deterministic_and_kept(seeded):
    first = list(Pin.objects.values_list("id", "submitter_id", "description", "private"))
    tags = list(Pin.tags.through.objects.order_by("id").values_list("pin_id", "tag_id"))
    assert seed_shapes(authors=realshapes.AUTHORS) is False  # already there
    Pin.objects.filter(pk=1).delete()
    assert seed_shapes(authors=realshapes.AUTHORS) is True
    assert list(Pin.objects.values_list("id", "submitter_id", "description", "private")) == first
    again = Pin.tags.through.objects.order_by("id").values_list("pin_id", "tag_id")
    assert list(again) == tags


def _alike(client, path: str, headers: dict) -> int:
    v2 = client.get(f"/api/shapes-v2/{path}", **headers)
    v3 = client.get(f"/api/shapes-v3/{path}", **headers)
    assert v3.status_code == v2.status_code
    assert v3.content.replace(b"/api/shapes-v3/", b"/api/shapes-v2/") == v2.content
    return v2.status_code


def test_a_private_pin_is_refused_alike(client, seeded):
    private = Pin.objects.filter(private=True).order_by("id").first()
    assert _alike(client, f"pin/{private.pk}/?format=json", {}) == 401


def test_the_tag_filter_answers_alike(client, seeded):
    tagged = next(pin for pin in Pin.objects.order_by("id") if pin.tags.count() >= 2)
    tags = ",".join(tagged.tags.values_list("name", flat=True)[:2])
    assert _alike(client, f"pin/?format=json&tag={tags}", {}) == 200


def test_points_need_the_key_and_are_the_users_own(client, seeded):
    assert _alike(client, "points/?format=json", {}) == 401
    someone_elses = Points.objects.filter(user_id=2).first()
    assert _alike(client, f"points/{someone_elses.pk}/?format=json", seeded) == 401
    user = User.objects.get(pk=2)
    key = ApiKey.objects.get_or_create(user=user)[0].key
    theirs = {"HTTP_AUTHORIZATION": f"ApiKey {user.username}:{key}"}
    User.objects.filter(pk=2).update(is_active=True)
    assert _alike(client, f"points/{someone_elses.pk}/?format=json", theirs) == 200
