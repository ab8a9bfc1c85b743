"""The to-many relations the object-layer tests load, one of each kind."""

from __future__ import annotations

from tests.testapp.models import Author, Book, Club, Tag

#: (model, relation accessor): forward and reverse many-to-many, reverse foreign keys,
#: a through model, a symmetrical self relation.
RELATIONS = [
    (Book, "tags"),
    (Book, "reviews"),
    (Tag, "books"),
    (Author, "books"),
    (Author, "clubs"),
    (Author, "friends"),
    (Club, "members"),
]
