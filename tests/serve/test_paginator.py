"""StockPaginator writes the page links Tastypie's Paginator writes, for any query string."""

from __future__ import annotations

import pytest
from django.http import QueryDict
from tastypie.paginator import Paginator

from tastypie_djony.paginator import StockPaginator, paginator_class

QUERIES = [
    "",
    "format=json",
    "format=json&limit=5&offset=10",
    "offset=3&format=json&limit=2&limit=7",
    "title__in=a&title__in=b&order_by=-id&title__in=c",
    "q=caf%C3%A9+cr%C3%A8me&emoji=%F0%9F%90%8D",
    "a+b=c%26d&e%3Df=%2B%25&slash=%2Fx%2Fy&empty=&flag",
    "limit=0&offset=0",
    "key=1;other=2",
]


def _both(query: str, encoding: str | None = None, **kwargs) -> tuple:
    data = QueryDict(query, encoding=encoding)
    made = []
    for kind in (Paginator, StockPaginator):
        paginator = kind(data, list(range(50)), resource_uri="/api/v1/entry/", **kwargs)
        links = (paginator._generate_uri(20, 0), paginator._generate_uri(0, 7))
        made.append((paginator.page()["meta"], *links))
    return made


@pytest.mark.parametrize("query", QUERIES)
def test_the_links_are_tastypie_s(query):
    stock, ours = _both(query)
    assert ours == stock


def test_a_request_in_another_encoding():
    stock, ours = _both("name=%E9t%E9&limit=3", encoding="latin-1")
    assert ours == stock
    assert "name=%E9t%E9&" in ours[1]  # in the request's own encoding, as QueryDict writes


def test_no_resource_uri_and_plain_dicts_are_tastypie_s():
    data = {"format": "json", "limit": "5", "name": "été"}
    for uri in (None, "/api/v1/entry/"):
        expected = Paginator(data, [1, 2, 3], resource_uri=uri)._generate_uri(1, 2)
        assert StockPaginator(data, [1, 2, 3], resource_uri=uri)._generate_uri(1, 2) == expected


def test_only_tastypie_s_own_paginator_is_replaced():
    class Stock:
        paginator_class = Paginator

    class Own:
        class paginator_class(Paginator):  # noqa: N801 (a Meta option's name)
            pass

    assert paginator_class(Stock) is StockPaginator
    assert paginator_class(Own) is Own.paginator_class
