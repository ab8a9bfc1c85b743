"""Ask the three zoo APIs the same question; ModelResource's answer is the reference.

Reuses the differential suite's :class:`~tests.differential.harness.Answer` (status, headers
and body with the API prefix replaced) and its diff.  ``/zm/``, ``/zf/`` and ``/zg/`` have the
same length, so bodies are also compared byte for byte.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection, transaction

from tests.differential.harness import Answer, _diff, _show, api_client
from tests.zoo import data
from tests.zoo.api import KINDS, REFERENCE

PLACEHOLDER = re.compile(r"<(\w+)>")
TARGETS = tuple(api for api in KINDS if api != REFERENCE)
FORMATS = ("json", "xml")


class Zoo:
    """The zoo's data and a client; :meth:`check` compares one URL across the APIs."""

    def __init__(self, ids: dict[str, object]) -> None:
        self.ids = ids
        self.client = api_client()

    def url(self, url: str, api: str, prefix: str = "") -> str:
        return f"{prefix}/{api}/" + PLACEHOLDER.sub(lambda m: str(self.ids[m.group(1)]), url)

    def get(self, url: str, api: str, prefix: str = "", **headers: str):
        # connection.savepoint(): transaction.savepoint() is deprecated in Django 6.1.
        savepoint = connection.savepoint()
        try:
            return self.client.get(self.url(url, api, prefix), headers=headers)
        finally:
            connection.savepoint_rollback(savepoint)

    def answers(self, url: str, prefix: str = "", **headers: str) -> dict[str, Answer]:
        return {api: Answer.of(self.get(url, api, prefix, **headers), api) for api in KINDS}

    def check(self, url: str, prefix: str = "", status: int | None = None, **headers) -> Answer:
        """Assert every DjonyResource API answers ``url`` as ModelResource does."""
        answers = self.answers(url, prefix, **headers)
        expected = answers[REFERENCE]
        if status is not None:
            assert expected.status == status, f"ModelResource: {expected.status}\n" + _show(
                expected.body
            )
        for api in TARGETS:
            got = answers[api]
            assert got.status == expected.status, (
                f"{api}: status {got.status}, ModelResource: {expected.status}\n"
                f"{api}: {_show(got.body)}\n{REFERENCE}: {_show(expected.body)}"
            )
            assert got.headers == expected.headers, f"{api}: headers {got.headers}"
            if got.exact != expected.exact:
                raise AssertionError(f"{api}: body differs:\n{_diff(expected.body, got.body)}")
        return expected


def with_format(url: str, fmt: str) -> str:
    return url + ("&" if "?" in url else "?") + f"format={fmt}"


@pytest.fixture(scope="module")
def zoo(django_db_setup, django_db_blocker):
    """The zoo's rows for one test module, rolled back afterwards."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield Zoo(data.create())
        transaction.set_rollback(True)
