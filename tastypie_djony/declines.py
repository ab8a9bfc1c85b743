"""How a serving path declines, so that Tastypie's general path answers instead.

A path is an optimisation that declines, never a second opinion.  It declines at one
of two moments, and the client never sees either:

* :class:`NotPlannable`, when a plan is built (once per resource and page kind):
  the resource has a hook or a field the plan cannot reproduce;
* :class:`Fallback`, while a request is served, before any of the resource's own code
  ran: a row the plan cannot reproduce (a NULL where the field allows none), an
  object list that is not a query.
"""

from __future__ import annotations


class NotPlannable(Exception):
    """This resource or page kind needs Tastypie's general path."""


class Fallback(Exception):
    """This request needs Tastypie's own handling (e.g. a missing non-null value)."""
