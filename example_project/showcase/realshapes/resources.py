"""Every real-world shape's resources on one base class (see :mod:`..realshapes`)."""

from __future__ import annotations

from typing import Any

from example_project.showcase.realshapes.exercises import exercise_resources
from example_project.showcase.realshapes.pins import pin_resources
from example_project.showcase.realshapes.points import points_resources


def shape_resources(base: type, prefetch: bool = False) -> list[Any]:
    """The pin board's, the exercise wiki's and the points' resources on ``base``."""
    return [
        *pin_resources(base, prefetch),
        *exercise_resources(base, prefetch),
        *points_resources(base, prefetch),
    ]
