"""How a serving path declines, so that Tastypie's general path answers instead.

A path is an optimisation that declines, never a second opinion.  It declines at one
of two moments, and the client never sees either:

* when a plan is built (once per resource and page kind): :class:`Declined`, which says
  why (the hook, field or option the plan cannot reproduce); the reason is kept with the
  resource and told by ``djony_verify`` and the system checks;
* :class:`Fallback`, while a request is served, before any of the resource's own code
  ran: a row the plan cannot reproduce (a NULL where the field allows none), an
  object list that is not a query.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Declined:
    """No plan serves this resource's page kind, and why."""

    reason: str


class Fallback(Exception):
    """This request needs Tastypie's own handling (e.g. a missing non-null value)."""
