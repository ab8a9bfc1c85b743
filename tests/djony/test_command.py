"""``manage.py djony_mapping``: the mapping as Pony sees it."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def run(*labels: str) -> str:
    out = io.StringIO()
    call_command("djony_mapping", *labels, stdout=out)
    return out.getvalue()


def line_of(output: str, name: str) -> list[str]:
    for line in output.splitlines():
        cells = line.split()
        if cells and cells[0] == name:
            return cells
    raise AssertionError(f"no line for {name!r} in:\n{output}")


def test_one_model() -> None:
    output = run("auth.User")
    assert output.splitlines()[0] == "auth.User -> entity User, table auth_user"
    assert line_of(output, "id") == ["id", "PrimaryKey", "int", "column", "id"]
    assert line_of(output, "username") == ["username", "Optional", "str", "column", "username"]
    assert line_of(output, "date_joined")[:3] == ["date_joined", "Optional", "datetime"]
    assert line_of(output, "groups") == [
        "groups",
        "Set",
        "Group",
        "table",
        "auth_user_groups,",
        "column",
        "group_id",
    ]
    assert line_of(output, "logentry_set") == [
        "logentry_set",
        "Set",
        "LogEntry",
        "reverse",
        "of",
        "LogEntry.user",
    ]
    assert "Permission" not in output.splitlines()[0]


def test_whole_app() -> None:
    output = run("auth")
    headers = [line for line in output.splitlines() if " -> entity " in line]
    assert headers == [
        "auth.Permission -> entity Permission, table auth_permission",
        "auth.Group -> entity Group, table auth_group",
        "auth.User -> entity User, table auth_user",
    ]
    assert line_of(output, "content_type") == [
        "content_type",
        "Required",
        "ContentType",
        "column",
        "content_type_id",
    ]


def test_relations_columns_and_unmapped_fields() -> None:
    output = run("testapp.Landmark", "testapp.Author", "testapp.AllTypes", "testapp.Pizzeria")
    assert "testapp.Landmark -> entity Landmark, table testapp_landmark" in output
    assert (
        "location: djony has no column type for 'PointField'; map it with DJONY_DATA_TYPES"
        in output
    )
    assert line_of(output, "mentor") == ["mentor", "Optional", "Author", "column", "mentor_id"]
    assert line_of(output, "country_by_code_id") == [
        "country_by_code_id",
        "Optional",
        "str",
        "column",
        "country_code",
    ]
    assert "country_by_code: to_field='code'" in output
    assert line_of(output, "custom_column") == [
        "custom_column",
        "Optional",
        "int",
        "column",
        "CustomCol",
    ]
    assert line_of(output, "data")[:3] == ["data", "Optional", "Json"]
    assert line_of(output, "restaurant_ptr") == [
        "restaurant_ptr",
        "PrimaryKey",
        "Restaurant",
        "column",
        "restaurant_ptr_id",
    ]
    assert "name = restaurant_ptr.place_ptr.name" in output


def test_unknown_labels() -> None:
    with pytest.raises(CommandError, match="nosuchapp"):
        run("nosuchapp")
    with pytest.raises(CommandError, match="auth.Nobody"):
        run("auth.Nobody")
