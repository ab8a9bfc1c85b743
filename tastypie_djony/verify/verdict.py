"""Whether a run proved anything, and if not, why: the command's one-line reason.

A run passes when answers were compared and every one compared was the same.
A resource the command could not compare (its list URI is empty or answered by
something that is not that resource, see :func:`unreachable`; its twin cannot
be built; ...) does not fail the run: it is named with its reason, and
:func:`not_compared_line` counts those resources (and requests that could not
be sent) on a line of its own.  The run fails, with one line saying why, when:

* the twin machinery itself raised (a ModelResource answer whose exception
  was raised inside tastypie_djony, where only djony_verify's twins run);
* nothing was compared, or nothing read: every resource compared refuses its
  list and detail GETs with a 405 on both sides (:mod:`tastypie_djony.verify.refusals`);
* most of a resource's answers are errors on both sides (every answer a
  401 means the requests never got in: pass ``--user``); a 405 on both sides
  is a method the resource does not allow, not such an error;
* most answers changed between two identical requests (nothing to compare);
* an answer differs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.urls import Resolver404, resolve

from tastypie_djony.verify.budget import LeftOut
from tastypie_djony.verify.discovery import tastypie_view
from tastypie_djony.verify.refusals import refused_on_both
from tastypie_djony.verify.report import ResourceSummary

#: Above this share of errors on both sides, a resource's answers prove nothing.
MOSTLY = 0.5


def unreachable(resource: Any, uri: str) -> str | None:
    """Why ``resource``'s list URI ``uri`` does not reach it, or ``None`` if it does."""
    if not uri:
        return (
            "get_resource_uri() is '' and none of its URLs is named api_dispatch_list (a "
            "base_urls() of its own?): no list URI to send its requests to"
        )
    try:
        match = resolve(uri)
    except Resolver404:
        return f"its list URI {uri} resolves to no view"
    owner = getattr(tastypie_view(match.func), "owner", None)
    if is_served_by(owner, resource):
        return None
    served_by = match.view_name or getattr(match.func, "__name__", repr(match.func))
    return f"its list URI {uri} is served by {served_by}, not by this resource"


def is_served_by(owner: Any, resource: Any) -> bool:
    """Whether the resource ``owner`` behind a view answers for ``resource``: it is, or it
    is of the same class under the same ``api_name``."""
    return owner is resource or (
        type(owner) is type(resource)
        and getattr(owner._meta, "api_name", None) == resource._meta.api_name
    )


def both_errors(summary: ResourceSummary) -> list[Any]:
    """The outcomes both sides answered with an error other than a 405 on both."""
    return [
        o
        for o in summary.outcomes
        if all(a.status >= 400 for a in o.answers.values()) and not refused_on_both(o)
    ]


def _mostly_errors(summary: ResourceSummary) -> bool:
    """Whether most of what counts of ``summary``'s answers were errors on both sides."""
    counted = weighed(summary)
    return bool(counted) and len(both_errors(summary)) > MOSTLY * len(counted)


def weighed(summary: ResourceSummary) -> list[Any]:
    """The outcomes that count towards "mostly errors": all but the 405s on both sides."""
    return [o for o in summary.outcomes if not refused_on_both(o)]


def reason(summaries: list[ResourceSummary], not_compared: list[str], user: str | None) -> str:
    """The one line saying why the run proves nothing or fails, or ``""`` for a pass."""
    outcomes = [o for s in summaries for o in s.outcomes]
    for outcome in outcomes:
        answer = outcome.answers["ModelResource"]
        if answer.in_djony:
            first = answer.exception.splitlines()[0]
            return (
                f"the ModelResource side of {outcome.request} raised inside tastypie_djony "
                f"({first}): a djony_verify bug, please report it"
            )
    if not outcomes:
        why = f" ({not_compared[0]})" if not_compared else ""
        return f"nothing was compared{why}"
    if all(s.not_readable is not None and s.not_readable.whole for s in summaries):
        first = summaries[0]
        return (
            "nothing read was compared: every resource's GETs answer 405 on both sides "
            f"({first.uri}: {first.not_readable})"
        )
    erring = [s for s in summaries if _mostly_errors(s)]
    if erring:
        first = erring[0]
        line = _errors_reason(first, both_errors(first), weighed(first), user)
        if len(erring) > 1:
            others = ", ".join(s.uri for s in erring[1:])
            line += f"; and so for {len(erring) - 1} more: {others}"
        return line
    volatile = [o for o in outcomes if o.volatile]
    if len(volatile) > MOSTLY * len(outcomes):
        return (
            f"{len(volatile)} of {len(outcomes)} answers changed between two identical "
            "requests: nothing could be compared"
        )
    different = [o for o in outcomes if not o.identical]
    if different:
        return f"{len(different)} of {len(outcomes)} answers differ"
    return ""


def not_compared_line(
    compared: int, not_compared: int, not_sent: int, left: Sequence[LeftOut] = ()
) -> str:
    """``Not compared: ...``: the resources and requests the run left out, or ``""``;
    ``left``: the requests ``--max-requests`` or ``--seconds`` kept from being sent."""
    parts = []
    if not_compared:
        parts.append(
            f"{not_compared} of {compared + not_compared} resources "
            '(each named above after "not compared:")'
        )
    if not_sent:
        parts.append(f'{not_sent} requests (each named above after "not sent:")')
    for bound in left:
        parts.append(f"{bound.total} requests cut off by {bound.option} (per resource above)")
    return f"Not compared: {'; '.join(parts)}." if parts else ""


def _errors_reason(
    summary: ResourceSummary, errors: list[Any], counted: list[Any], user: str | None
) -> str:
    statuses = Counter(o.answers["ModelResource"].status for o in errors)
    status, count = statuses.most_common(1)[0]
    head = f"{summary.uri}: {len(errors)} of {len(counted)} answers were errors on both sides"
    if status in (401, 403) and count == len(counted):
        if user is None:
            return f"{head}: every answer was {status}: pass --user USERNAME"
        return (
            f"{head}: every answer was {status} as --user {user} (an authentication "
            "djony_verify cannot satisfy? see --credentials)"
        )
    sample = next(o for o in errors if o.answers["ModelResource"].status == status)
    exception = sample.answers["ModelResource"].exception.splitlines()
    detail = f", e.g. {sample.request}: {exception[0]}" if exception else ""
    return f"{head} (mostly {status}{detail})"
