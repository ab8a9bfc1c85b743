"""Every output format, chosen by ``?format=``, by ``callback`` (JSONP) and by
the ``Accept`` header, compared with ModelResource."""

import pytest

from tests.differential.harness import TARGETS, Case, accept

pytestmark = pytest.mark.django_db

FORMATS = ["json", "xml", "yaml", "plist"]

TARGET_URLS = [
    "book/",
    "book/<b1>/",
    "book/set/<b1>;0;<b2>/",
    "book/?order_by=nonexistent",
    "book/0/",
    "book/?limit=3&title__startswith=Ödön",
    "tag/",
    "alltypes/",
    "alltypes/<x1>/",
    "alltypes/<x7>/",
    "bookfull/<b2>/",
    "author/?limit=3",
    "auth/user/<u3>/",
    "restaurant/",
]

BY_PARAMETER = [
    Case(f"{url}{'&' if '?' in url else '?'}format={fmt}") for url in TARGET_URLS for fmt in FORMATS
] + [Case(f"tag/schema/?format={fmt}") for fmt in FORMATS]  # book's shows a default of now()

JSONP = [
    Case("book/?format=jsonp&callback=cb"),
    Case("book/?callback=cb"),
    Case("book/<b1>/?callback=jQuery123_456"),
    Case("book/?format=jsonp"),
    Case("book/?format=jsonp&callback=a.b.c"),
    Case("book/?format=jsonp&callback=$"),
    Case("tag/?callback=cb&limit=2"),
    Case("tag/?callback=cb&title__foo=1"),
    Case("book/?callback=cb&title__foo=1"),
    Case("book/?callback=cb&limit=-1"),
    Case("author/?callback=cb"),  # JSONP is not among this resource's formats
    Case("author/?format=jsonp&callback=cb"),
    Case("book/?format=jsonp&callback=bad-name!"),
    Case("book/?format=jsonp&callback=alert(1)"),
    Case("book/?format=jsonp&callback="),
]

BY_ACCEPT = [
    Case("book/", headers=accept("application/xml")),
    Case("book/", headers=accept("text/xml")),
    Case("book/", headers=accept("text/yaml")),
    Case("book/", headers=accept("application/x-plist")),
    Case("book/", headers=accept("text/javascript")),
    Case("book/", headers=accept("application/json;q=0.5, application/xml;q=0.9")),
    Case("book/", headers=accept("*/*")),
    Case("book/", headers=accept("application/*")),
    Case("book/", headers=accept("text/html")),
    Case("book/", headers=accept("foo")),
    Case("book/", headers=accept("")),
    Case("book/<b2>/", headers=accept("application/xml")),
    Case("book/<b2>/", headers=accept("text/yaml")),
    Case("book/?format=json", headers=accept("application/xml")),
    Case("book/?format=csv", headers=accept("application/xml")),
    Case("book/?title__foo=x", headers=accept("application/xml")),
    Case("book/0/", headers=accept("application/xml")),
    Case("alltypes/", headers=accept("text/yaml")),
    Case("alltypes/", headers=accept("application/x-plist")),
    Case("author/", headers=accept("text/javascript")),
    Case("auth/user/?limit=5", headers=accept("application/xml")),
]

OTHER = [
    Case("book/?format=csv"),
    Case("book/?format="),
    Case("book/?format=XML"),
    Case("book/?format=json&format=xml"),
    Case("book/?title__foo=x&format=xml"),
    Case("book/?limit=-1&format=yaml"),
    Case("book/?order_by=isbn&format=plist"),
    Case("book/?pages__gte=1&format=yaml"),
]

CASES = BY_PARAMETER + JSONP + BY_ACCEPT + OTHER


@pytest.mark.parametrize("api", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_format(differential, case, api):
    differential.check(case, api)
