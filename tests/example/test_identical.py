"""The example's identical-bodies check: v2 == v3 on the showcase endpoints,
and a difference (a monkeypatched response) is caught and stops ``compare``."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from example_project.showcase import seeding
from example_project.showcase.benchmark import identical
from example_project.showcase.benchmark.endpoints import ENDPOINTS, ENDPOINTS_BY_NAME
from tastypie_djony.verify import differences

pytestmark = [pytest.mark.django_db, pytest.mark.urls("example_project.urls")]

USER_DETAIL = ENDPOINTS_BY_NAME["user-detail"]


@pytest.fixture
def seeded():
    seeding.seed(users=40, progress=None)


def tampering_fetch(api_prefix: str, change, real=None):
    """The in-process fetch, with ``change`` applied to one API's answers."""
    real = real or identical.django_client_fetch()

    def fetch(url: str) -> identical.Fetched:
        answer = real(url)
        return change(answer) if url.startswith(api_prefix) else answer

    return fetch


def test_v2_and_v3_answer_identical_bodies_and_drf_the_same_data(seeded):
    results = identical.check_identical(ENDPOINTS)

    for result in results:
        assert result.identical, result.problem
        assert result.drf_same_data, result.drf_problem
        assert result.statuses == {"v2": 200, "v3": 200, "drf": 200}
    detail = json.loads(results[0].bodies["v3"])
    assert detail["resource_uri"] == "/api/v3/auth/user/3/"
    assert len(detail["user_permissions"]) == 159
    listing = json.loads(results[1].bodies["v2"])
    assert listing["meta"]["total_count"] == 40 and len(listing["objects"]) == 40


def test_a_changed_body_is_caught_with_the_place_it_differs(seeded):
    def swap_two_permissions(answer):
        data = json.loads(answer.body)
        data["user_permissions"][1], data["user_permissions"][2] = (
            data["user_permissions"][2],
            data["user_permissions"][1],
        )
        body = json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
        return identical.Fetched(answer.status, answer.content_type, body)

    [result] = identical.check_identical(
        [USER_DETAIL], tampering_fetch("/api/v3/", swap_two_permissions)
    )

    assert not result.identical
    assert "v2 and v3 differ on auth/user/3/?format=json" in result.problem
    assert "first difference at byte" in result.problem
    assert "$.user_permissions[1]" in result.problem


def test_whitespace_alone_is_a_difference(seeded):
    def reformat(answer):
        compact = json.dumps(json.loads(answer.body), sort_keys=True, separators=(",", ":"))
        return identical.Fetched(answer.status, answer.content_type, compact.encode())

    [result] = identical.check_identical([USER_DETAIL], tampering_fetch("/api/v3/", reformat))
    assert not result.identical and "JSON difference" not in result.problem


def test_a_different_status_or_content_type_is_caught(seeded):
    def error(answer):
        return identical.Fetched(500, "text/html", answer.body)

    [result] = identical.check_identical([USER_DETAIL], tampering_fetch("/api/v3/", error))
    assert not result.identical and "status 200 vs 500" in result.problem


def test_v2_failing_points_at_seeding():
    [result] = identical.check_identical([USER_DETAIL])  # empty database: 404
    assert not result.identical and "manage.py seed" in result.problem


def test_drf_differences_are_reported_not_fatal(seeded):
    def rename(answer):
        data = json.loads(answer.body)
        data["username"] = "someone-else"
        return identical.Fetched(answer.status, answer.content_type, json.dumps(data).encode())

    [result] = identical.check_identical([USER_DETAIL], tampering_fetch("/api/drf/", rename))
    assert result.identical
    assert result.drf_same_data is False and "$.username" in result.drf_problem


def test_json_difference_paths():
    assert differences.json_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) is None
    assert (
        differences.json_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]})
        == "$.a[1].b: 2 != 3"
    )
    assert differences.json_difference({"a": 1}, {}) == "$.a: only in the first"
    assert differences.json_difference([1, 2], [1]) == "$: 2 items != 1 items"
    assert differences.json_difference(1, "1") == "$: 1 != '1'"


def test_compare_stops_with_a_clear_message_and_saves_the_bodies(seeded, monkeypatch, tmp_path):
    def drop_last_byte(answer):
        return identical.Fetched(answer.status, answer.content_type, answer.body[:-1])

    real = identical.django_client_fetch
    monkeypatch.setattr(
        identical,
        "django_client_fetch",
        lambda: tampering_fetch("/api/v3/", drop_last_byte, real()),
    )
    with pytest.raises(CommandError) as raised:
        call_command(
            "compare",
            check_only=True,
            endpoint=["user-detail"],
            bodies=str(tmp_path),
            stdout=StringIO(),
            stderr=StringIO(),
        )
    message = str(raised.value)
    assert "v2 and v3 do not answer identical bodies" in message
    assert "5" in message and str(tmp_path) in message
    assert (tmp_path / "user-detail.v2.json").read_bytes()[:-1] == (
        tmp_path / "user-detail.v3.json"
    ).read_bytes().replace(b"/api/v3/", b"/api/v2/")


def test_compare_check_only_passes_on_seeded_data(seeded):
    out, err = StringIO(), StringIO()
    call_command("compare", check_only=True, stdout=out, stderr=err)
    assert "identical bodies" in out.getvalue()
    assert err.getvalue().count("v2 == v3") == len(ENDPOINTS)
