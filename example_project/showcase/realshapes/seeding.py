"""Deterministic rows for the real-world shapes (:mod:`.models`).

``seed_shapes(authors=30)`` writes pins by users 1..``authors`` (the users
:func:`example_project.showcase.seeding.seed` made), each of its own image, with up to
five of 40 tags and one in ten private; 200 exercises in eight categories, each working
one to four of 15 muscles; 600 points among users 1..20 (the demo user, 1, has 30).
Every row has a fixed id and comes from a fixed random state: two runs, and two
databases, hold the same rows.  Rows already there in exactly these numbers are kept.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils.text import slugify

from example_project.showcase.realshapes.models import (
    Exercise,
    ExerciseCategory,
    Image,
    Muscle,
    Pin,
    Points,
    Tag,
    Thumbnail,
)
from example_project.showcase.seeding import RANDOM_SEED, WORDS

CATEGORIES = ["Abs", "Arms", "Back", "Calves", "Chest", "Legs", "Shoulders", "Cardio"]
MUSCLES = [
    "Biceps brachii", "Triceps brachii", "Deltoid", "Pectoralis major", "Latissimus dorsi",
    "Trapezius", "Rectus abdominis", "Obliquus externus", "Gluteus maximus", "Quadriceps",
    "Biceps femoris", "Gastrocnemius", "Soleus", "Serratus anterior", "Brachialis",
]  # fmt: skip
MOVES = ["press", "curl", "row", "raise", "squat", "lunge", "pull", "push", "fly", "crunch"]
GEAR = ["barbell", "dumbbell", "cable", "kettlebell", "machine", "band", "bodyweight"]
POINT_TYPES = ["activitycompleted", "quizattempt", "coursedownloaded", "signup"]
START = datetime(2012, 3, 1, 8, 0, tzinfo=timezone.utc)
#: Each image's thumbnails: (size, width), pinry's sizes.
THUMBNAILS = [("standard", 600), ("thumbnail", 240), ("square", 240)]


@dataclass(frozen=True)
class Sizes:
    pins: int = 300
    tags: int = 40
    exercises: int = 200
    points: int = 600
    point_users: int = 20


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _pins(rng: random.Random, sizes: Sizes, authors: int) -> None:
    tags = [Tag(id=n, name=f"{WORDS[(n - 1) % len(WORDS)]}-{n}") for n in range(1, sizes.tags + 1)]
    Tag.objects.bulk_create(tags)
    images, pins, links = [], [], []
    for number in range(1, sizes.pins + 1):
        images.append(
            Image(
                id=number,
                image=f"pins/{number:05d}.jpg",
                width=rng.choice([320, 640, 800, 1024, 1280]),
                height=rng.choice([240, 480, 600, 768, 960]),
            )
        )
        pins.append(
            Pin(
                id=number,
                submitter_id=(number - 1) % authors + 1,
                image_id=number,
                url=f"https://images.example.com/{number:05d}.jpg",
                origin=f"https://blog.example.org/{rng.choice(WORDS)}/{number}/",
                description=_words(rng, 3, 25).capitalize(),
                private=rng.random() < 0.1,
                published=START + timedelta(minutes=97 * number),
            )
        )
        for tag in rng.sample(tags, rng.randint(0, 5)):
            links.append(Pin.tags.through(pin_id=number, tag_id=tag.id))
    Image.objects.bulk_create(images)
    Thumbnail.objects.bulk_create(
        Thumbnail(
            original_id=image.id,
            image=f"thumbnails/{image.id:05d}-{size}.jpg",
            size=size,
            width=width,
            height=image.height * width // image.width,
        )
        for image in images
        for size, width in THUMBNAILS
    )
    Pin.objects.bulk_create(pins)
    Pin.tags.through.objects.bulk_create(links)


def _exercises(rng: random.Random, sizes: Sizes) -> None:
    ExerciseCategory.objects.bulk_create(
        ExerciseCategory(id=n, name=name) for n, name in enumerate(CATEGORIES, 1)
    )
    Muscle.objects.bulk_create(
        Muscle(id=n, name=name, is_front=rng.random() < 0.5) for n, name in enumerate(MUSCLES, 1)
    )
    exercises, links = [], []
    for number in range(1, sizes.exercises + 1):
        name = f"{rng.choice(GEAR).capitalize()} {rng.choice(MOVES)} {number}"
        exercises.append(
            Exercise(
                id=number,
                name=name,
                slug=slugify(name),
                description=(
                    f"<p>{_words(rng, 10, 60).capitalize()}.</p><p>{_words(rng, 5, 20)}</p>"
                ),
                category_id=rng.randint(1, len(CATEGORIES)),
                creation_date=date(2013, 1, 1) + timedelta(days=3 * number),
                license_author=rng.choice(["wger.de", "", "community"]),
            )
        )
        for muscle in rng.sample(range(1, len(MUSCLES) + 1), rng.randint(1, 4)):
            links.append(Exercise.muscles.through(exercise_id=number, muscle_id=muscle))
    Exercise.objects.bulk_create(exercises)
    Exercise.muscles.through.objects.bulk_create(links)


def _points(rng: random.Random, sizes: Sizes) -> None:
    Points.objects.bulk_create(
        Points(
            id=number,
            user_id=(number - 1) % sizes.point_users + 1,
            type=rng.choice(POINT_TYPES),
            description=_words(rng, 2, 8).capitalize(),
            points=rng.choice([5, 10, 20, 50, 100]),
            date=START + timedelta(hours=5 * number, seconds=number),
        )
        for number in range(1, sizes.points + 1)
    )


def _there(sizes: Sizes) -> bool:
    return (
        Pin.objects.count() == sizes.pins
        and Tag.objects.count() == sizes.tags
        and Exercise.objects.count() == sizes.exercises
        and Points.objects.count() == sizes.points
        and Thumbnail.objects.count() == sizes.pins * len(THUMBNAILS)
    )


def seed_shapes(authors: int = 30, sizes: Sizes = Sizes()) -> bool:
    """Write the shapes' rows (users 1..``authors`` must exist); ``False`` if already there."""
    if sizes.point_users > authors:
        raise ValueError(f"points go to users 1..{sizes.point_users}: need that many authors")
    if _there(sizes):
        return False
    models = [Pin, Thumbnail, Image, Tag, Exercise, ExerciseCategory, Muscle, Points]
    rng = random.Random(RANDOM_SEED + 2)
    with transaction.atomic():
        for model in models:
            model.objects.all().delete()
        _pins(rng, sizes, authors)
        _exercises(rng, sizes)
        _points(rng, sizes)
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(sql)
    return True
