"""The zoo's rows: numbers out of key order (ordering shows), a dead animal (the default
manager leaves it out), keepers and labels without ``Meta.ordering``, a dangling key."""

from __future__ import annotations

import datetime
import uuid
from decimal import Decimal

from tests.zoo.models import (
    Animal,
    Badge,
    Bird,
    Caretaker,
    Enclosure,
    Feeding,
    Habitat,
    Scribble,
    Zone,
)

MISSING_KEEPER = 987654


def create() -> dict[str, object]:
    """Write the zoo; return placeholder name -> detail key, for URLs like ``animal/<a1>/``."""
    keepers = [Caretaker.objects.create(name=name) for name in ("Zoe", "Adam", "Mia", "Ben")]
    labels = [
        Badge.objects.create(id=uuid.UUID(int=n * 7919), text=text)
        for n, text in enumerate(["loud", "lazy", "shy", "long", "quiet"], start=1)
    ]
    born = datetime.datetime(2019, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)
    specs = [
        # name, nickname, remarks, number, keeper, born, weight
        ("Zebra", None, None, 40, 1, born, Decimal("310.50")),
        ("Aardvark", "Ardy", "digs", 12, 0, None, None),
        ("Mole", "anon", "", 31, 1, born, Decimal("0.10")),
        ("Otter", None, "swims", 7, None, None, Decimal("11.00")),
        ("Lynx", "Lyn", None, 25, 2, born, None),
        ("Ghost", None, None, 3, 0, None, None),
    ]
    animals = []
    for name, nickname, remarks, number, keeper, when, weight in specs:
        animals.append(
            Animal.objects.create(
                name=name,
                nickname=nickname,
                remarks=remarks,
                number=number,
                slug=name.lower(),
                keeper=keepers[keeper] if keeper is not None else None,
                born=when,
                weight=weight,
                alive=name != "Ghost",
            )
        )
    animals[1].mother = animals[0]
    animals[1].save()
    animals[4].mother = animals[0]
    animals[4].save()
    animals[2].mother = animals[1]
    animals[2].save()
    for animal, picked in zip(
        animals, ([4, 0, 1], [1, 3], [], [2, 3, 0, 1], [0], [1]), strict=True
    ):
        animal.labels.set([labels[i] for i in picked])
    animals[0].keepers.set([keepers[3], keepers[0], keepers[2]])
    animals[2].keepers.set([keepers[0]])
    animals[5].keepers.set([keepers[0]])
    bird = Bird.objects.create(name="Robin", number=55, slug="robin", keeper=keepers[3], wingspan=9)
    bird.labels.set([labels[2], labels[1]])
    savanna = Habitat.objects.create(code="savanna", name="Savanna")
    river = Habitat.objects.create(code="river-bank", name="River bank")
    savanna.animals.set([animals[0], animals[4], animals[1], animals[5]])
    river.animals.set([animals[3]])
    for animal, text in ((animals[0], "stripes"), (animals[0], "bites"), (animals[3], "wet")):
        Scribble.objects.create(target=animal, text=text)
    Scribble.objects.create(target=keepers[0], text="keeper note")
    north = Zone.objects.create(code="N-1", name="North")
    Zone.objects.create(code="S-2", name="South")
    enclosures = [
        Enclosure.objects.create(name=name, zone=north, warden_id=warden, guard_id=guard)
        for name, warden, guard in (
            ("Alpha", keepers[0].pk, keepers[1].pk),
            ("Delta", MISSING_KEEPER, keepers[2].pk),
            ("Bravo", None, keepers[0].pk),
        )
    ]
    missing_guard = Enclosure.objects.create(
        name="Lost", zone=north, warden_id=None, guard_id=MISSING_KEEPER
    )
    Feeding.objects.create(animal=animals[0], keeper=keepers[0], grams=500)
    ids: dict[str, object] = {f"a{i}": animal.pk for i, animal in enumerate(animals)}
    ids.update({f"slug{i}": animal.slug for i, animal in enumerate(animals)})
    ids.update({f"n{i}": animal.number for i, animal in enumerate(animals)})
    ids.update({f"k{i}": keeper.pk for i, keeper in enumerate(keepers)})
    ids.update({f"l{i}": label.pk for i, label in enumerate(labels)})
    ids.update({f"e{i}": enclosure.pk for i, enclosure in enumerate(enclosures)})
    ids.update(
        bird=bird.pk, north=north.pk, savanna=savanna.pk, river=river.pk, lost=missing_guard.pk
    )
    return ids
