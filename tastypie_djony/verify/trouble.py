"""What the command could not do, and why, in words a user can act on.

A project can hold anything a Tastypie project may: a field whose related
resource is a plain ``Resource`` or a callable, a ``get_resource_uri()`` that
raises, a ``Meta`` the other base refuses.  None of it may end a run with a
traceback: a resource the command cannot verify is :class:`NotCompared`
(named, with the reason) and the run goes on with the others.

:func:`describe` is the one-line form of an exception: its type, its message
and where it was raised.  One raised inside ``tastypie_djony.verify`` itself is
the command's own bug, and says so.  :func:`on_field` adds the field the
command was working on to an exception raised there (:class:`FieldTrouble`).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from django.core.exceptions import ImproperlyConfigured

#: Where the command's own code lives: an exception raised here is a djony_verify bug.
OWN_CODE = str(Path(__file__).parent)
BUG = "a djony_verify bug, please report it"


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


@dataclass(frozen=True)
class NotCompared:
    """A resource the command did not compare with its twin."""

    resource: str  # the resource's class name
    reason: str

    def __str__(self) -> str:
        return f"{self.resource}: {self.reason}"


class Refusal(Exception):
    """An exception whose message says why in full (where it was raised adds nothing)."""


class Unverifiable(Refusal):
    """A resource the command cannot compare; the message is the reason, as it is shown."""


class FieldTrouble(Exception):
    """An exception raised while the command worked on one field of a resource."""

    def __init__(self, field: str, error: BaseException, owner: str = "") -> None:
        self.field = field
        self.error = error
        where = f"{owner}.{field}" if owner else f"field {field!r}"
        super().__init__(f"{where}: {describe(error)}")


@contextmanager
def on_field(name: str, owner: str = "") -> Iterator[None]:
    """Name field ``name`` (of resource class ``owner``, if given) in any exception raised
    inside the block; an exception that names a field already keeps its own."""
    try:
        yield
    except FieldTrouble:
        raise
    except Exception as error:
        raise FieldTrouble(name, error, owner) from error


def describe(error: BaseException) -> str:
    """``Type: message (raised at file:line in function)``, in one line.

    A :class:`FieldTrouble` or a :class:`Refusal` is its own message, an
    ``ImproperlyConfigured`` (written to be read) its type and message; an
    exception raised in the command's own code ends with :data:`BUG`.
    """
    if isinstance(error, (FieldTrouble, Refusal)):
        return str(error)
    lines = str(error).strip().splitlines()
    text = type(error).__name__ + (f": {lines[0]}" if lines else "")
    stack = traceback.extract_tb(error.__traceback__)
    if not stack or isinstance(error, ImproperlyConfigured):
        return text
    last = stack[-1]
    text += f" (raised at {_short(last.filename)}:{last.lineno} in {last.name})"
    if last.filename.startswith(OWN_CODE):
        text += f": {BUG}"
    return text


def _short(filename: str) -> str:
    """``filename`` from its package down (``tastypie/fields.py``), not the whole path."""
    parts = Path(filename).parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return "/".join(parts[parts.index(marker) + 1 :])
    package = Path(OWN_CODE).parent.parent
    try:
        return str(Path(filename).relative_to(package))
    except ValueError:
        return filename


class Ledger:
    """The resources not compared, and why, entered as the command goes."""

    def __init__(self) -> None:
        self.entries: list[NotCompared] = []

    def keep(self, targets: list[T], doing: str, step: Callable[[T], object]) -> list[T]:
        """The ``targets`` on which ``step`` ran without an exception, in order.

        Each other one is entered as not compared: an :class:`Unverifiable` with its
        message, any other exception as ``doing: <what it raised>`` (:func:`describe`).
        """
        kept = []
        for target in targets:
            try:
                step(target)
            except Unverifiable as error:
                self.entries.append(NotCompared(target.name, str(error)))
            except Exception as error:  # noqa: BLE001 - entered with the reason, the run goes on
                reason = f"{doing}: {describe(error)}" if doing else describe(error)
                self.entries.append(NotCompared(target.name, reason))
            else:
                kept.append(target)
        return kept
