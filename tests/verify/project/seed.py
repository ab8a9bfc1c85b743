"""The project's rows: imprints, poets (one the mentor of two), biographies, themes,
poems, and responses to poems and to poets."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from tests.verify.project.models import Biography, Imprint, Poem, Poet, Response, Theme


def create() -> None:
    north, south = (Imprint.objects.create(name=n) for n in ("North Press", "South Books"))
    ada = Poet.objects.create(name="Ada", imprint=north)
    bea = Poet.objects.create(name="Bea", imprint=south, mentor=ada)
    cy = Poet.objects.create(name="Cy", mentor=ada)
    Biography.objects.create(poet=ada, bio="writes engines")
    Biography.objects.create(poet=bea, bio="")
    crime, poetry, travel = (Theme.objects.create(name=n) for n in ("crime", "poetry", "travel"))
    poems = []
    for number, (title, poet, themes) in enumerate(
        [("Engines", ada, [crime]), ("Looms", ada, [poetry, travel]), ("Rivers", bea, []),
         ("Roads", cy, [travel]), ("Stars", bea, [crime, poetry, travel])], start=1,
    ):  # fmt: skip
        poem = Poem.objects.create(title=f"{title} {number}", poet=poet)
        poem.themes.set(themes)
        poems.append(poem)
    poem_type = ContentType.objects.get_for_model(Poem)
    poet_type = ContentType.objects.get_for_model(Poet)
    for kind, content_type, target in [
        ("like", poem_type, poems[0]), ("like", poem_type, poems[1]),
        ("love", poet_type, ada), ("like", poet_type, bea), ("meh", poem_type, poems[4]),
    ]:  # fmt: skip
        Response.objects.create(kind=kind, content_type=content_type, object_id=target.pk)
