"""The seed rows of the pattern corpus, written through the ORM in a fixed order.

After :func:`tests.patterns.testing.reset` every counter is at 1, so the rows
get the keys written next to them here on every backend.  Users have fixed
keys (:data:`USER_IDS`) and live for a whole test module.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.contrib.contenttypes.models import ContentType

from tests.patterns import models as m

USER_IDS = {"alice": 9001, "bob": 9002, "proxy_user": 9003, "concrete_user": 9004}
TOKEN_A = uuid.UUID("aaaaaaaa-0000-4000-8000-000000000001")
TOKEN_B = uuid.UUID("bbbbbbbb-0000-4000-8000-000000000002")
TOKENS = {str(TOKEN_A), str(TOKEN_B)}


def create() -> None:
    alice, bob = USER_IDS["alice"], USER_IDS["bob"]
    # Writers 1-3; Labels 1-4 (ordered "-name": space, short, classic, ai).
    ann = m.Scribe.objects.create(
        name="Ann Leckie", slug="ann", first_name="Ann", last_name="Leckie", status="a",
        keywords=["space", "ai"], owner_id=alice,
    )  # fmt: skip
    bo = m.Scribe.objects.create(
        name="Bo Bardi", slug="bo", first_name="Bo", last_name="Bardi", status="d", owner_id=bob
    )
    cy = m.Scribe.objects.create(
        name="Cy Twombly", slug="cy", first_name="Cy", last_name="Twombly", status="r",
        keywords=["art"],
    )  # fmt: skip
    space, ai, classic, _short = (
        m.Label.objects.create(name=name) for name in ("space", "ai", "classic", "short")
    )
    justice = m.Novel.objects.create(title="Ancillary Justice", year=2013, writer=ann)
    justice.labels.set([space, ai, classic])
    sword = m.Novel.objects.create(title="Ancillary Sword", year=2014, writer=ann)
    sword.labels.set([space])
    m.Novel.objects.create(title="Zero", year=1999, writer=bo)
    m.Critique.objects.create(novel=justice, text="great")
    m.Critique.objects.create(novel=justice, text="not yet", published=False)
    m.Critique.objects.create(novel=sword, text="fine")
    m.Article.objects.create(title="On AI").authors.set([ann, bo])
    m.Article.objects.create(title="Solo").authors.set([cy])
    # Notes 1-3: two of alice's, one of bob's.
    m.Jotting.objects.create(title="alice's note", body="one", owner_id=alice)
    m.Jotting.objects.create(title="alice again", body="two", owner_id=alice)
    m.Jotting.objects.create(title="bob's note", body="three", owner_id=bob)
    m.Document.objects.create(
        title="Spec",
        summary="short",
        data={"a": [1, 2], "b": None, "c": "x"},
        attachment="docs/spec.pdf",
        picture="",
        blob=b"\x00\x01\xff",
        price=Decimal("1.50"),
        remark="keep",
    )
    acme = m.Account.objects.create(name="acme")
    m.Account.objects.create(name="solo")
    m.AccountProfile.objects.create(account=acme, bio="we make things")
    m.Invoice.objects.create(account=acme, amount=Decimal("10.00"))
    kept, lent, _empty = (m.Shelf.objects.create(name=n) for n in ("kept", "lent", "empty"))
    m.Keeper.objects.create(shelf=kept, name="k1")
    m.Lender.objects.create(shelf=lent, name="l1")
    m.Topic.objects.create(slug="django", title="Django")
    m.Topic.objects.create(slug="pony", title="Pony")
    m.Token.objects.create(id=TOKEN_A, label="first")
    m.Token.objects.create(id=TOKEN_B, label="second")
    m.Venue.objects.create(name="Hall")
    m.Cafe.objects.create(name="Corner", seats=12)
    root = m.Category.objects.create(name="root")
    child = m.Category.objects.create(name="child a", parent=root)
    m.Category.objects.create(name="child b", parent=root)
    m.Category.objects.create(name="grandchild", parent=child)
    ada = m.Quote.objects.create(byline="Ada", content="The engine weaves")
    m.Quote.objects.create(byline="Bob", content="Unrated")
    memo = m.Memo.objects.create(title="memo", content="remember")
    quote_type = ContentType.objects.get_for_model(m.Quote)
    memo_type = ContentType.objects.get_for_model(m.Memo)
    m.Rating.objects.create(rating=4, content_type=quote_type, object_id=ada.pk)
    m.Rating.objects.create(rating=5, content_type=quote_type, object_id=ada.pk)
    m.Rating.objects.create(rating=2, content_type=memo_type, object_id=memo.pk)
