"""The project's rows: publishers, writers (one the mentor of two), profiles, genres,
stories, and reactions to stories and to writers."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from tests.verify.project.models import Genre, Profile, Publisher, Reaction, Story, Writer


def create() -> None:
    north, south = (Publisher.objects.create(name=n) for n in ("North Press", "South Books"))
    ada = Writer.objects.create(name="Ada", publisher=north)
    bea = Writer.objects.create(name="Bea", publisher=south, mentor=ada)
    cy = Writer.objects.create(name="Cy", mentor=ada)
    Profile.objects.create(writer=ada, bio="writes engines")
    Profile.objects.create(writer=bea, bio="")
    crime, poetry, travel = (Genre.objects.create(name=n) for n in ("crime", "poetry", "travel"))
    stories = []
    for number, (title, writer, genres) in enumerate(
        [("Engines", ada, [crime]), ("Looms", ada, [poetry, travel]), ("Rivers", bea, []),
         ("Roads", cy, [travel]), ("Stars", bea, [crime, poetry, travel])], start=1,
    ):  # fmt: skip
        story = Story.objects.create(title=f"{title} {number}", writer=writer)
        story.genres.set(genres)
        stories.append(story)
    story_type = ContentType.objects.get_for_model(Story)
    writer_type = ContentType.objects.get_for_model(Writer)
    for kind, content_type, target in [
        ("like", story_type, stories[0]), ("like", story_type, stories[1]),
        ("love", writer_type, ada), ("like", writer_type, bea), ("meh", story_type, stories[4]),
    ]:  # fmt: skip
        Reaction.objects.create(kind=kind, content_type=content_type, object_id=target.pk)
