"""The URLconf djony_verify times a request's cost outside its resource with: the chosen
resources' views answer at once, everything else is the project's."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import resolve

from example_project import urls as project_urls
from tastypie_djony.verify.discovery import tastypie_view
from tastypie_djony.verify.urlconf import answer_at_once, outside_urlconf

pytestmark = pytest.mark.urls("example_project.urls")


def _owner(path: str, urlconf=None):
    return tastypie_view(resolve(path, urlconf).func).owner


def test_the_chosen_resources_views_answer_at_once_and_the_rest_is_the_projects() -> None:
    entry = _owner("/api/v3/entry/")
    module = outside_urlconf({id(entry)}, "example_project.urls")
    for path in ("/api/v3/entry/", "/api/v3/entry/7/", "/api/v3/entry/schema/",
                 "/api/v3/entry/set/1;2/"):  # fmt: skip
        assert resolve(path, module).func is answer_at_once, path
    assert _owner("/api/v2/entry/", module) is _owner("/api/v2/entry/")  # not chosen
    assert _owner("/api/v3/user/", module) is _owner("/api/v3/user/")
    for handler in ("handler400", "handler403", "handler404", "handler500"):
        assert getattr(module, handler, None) is getattr(project_urls, handler, None)


def test_the_answer_is_an_empty_200_exempt_from_csrf_as_a_resource_s_views_are() -> None:
    response = answer_at_once(RequestFactory().post("/api/v3/entry/"), pk="7")
    assert (response.status_code, response.content) == (200, b"")
    assert answer_at_once.csrf_exempt
