"""Helpers of the tests of a page's instances (``load_together``): a page, the queries of
an action, and related rows that tie in their sort values."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from djony.objects.peers import load_together
from tests.testapp.models import Author, Book

#: Titles written out of order, three of them twice or more: ties under ``Book``'s order.
TIED_TITLES = ["Zeta", "Alpha", "Mid", "Alpha", "Zeta", "Mid", "Alpha", "Beta"]


def page(queryset: Any) -> list:
    """``queryset``'s objects (a model's: all of them) by key, loaded together."""
    found = list(getattr(queryset, "objects", queryset).order_by("pk"))
    load_together(found)
    return found


def queries(action: Any) -> tuple[int, Any]:
    """How many queries ``action()`` ran, and what it returned."""
    with CaptureQueriesContext(connection) as captured:
        result = action()
    return len(captured), result


def authors_with_tied_books() -> list[Author]:
    """Four authors: three with books tied under three titles, one without ties."""
    authors = [Author.objects.create(name=f"author {n}") for n in range(4)]
    for author in authors[:3]:
        for title in TIED_TITLES:
            Book.objects.create(title=title, author=author)
    for title in ["Zeta", "Alpha", "Mid"]:
        Book.objects.create(title=title, author=authors[3])
    return authors
