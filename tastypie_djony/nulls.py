"""What a field shows when its value is not there: Tastypie's rules, in one place.

Tastypie 0.15's ``ApiField.dehydrate`` walks the attribute and, at the first ``None``,
takes ``None`` when the field is ``null``, else its default (called if callable),
else raises ``ApiFieldError``; a ``RelatedField`` takes ``None`` when ``null`` and
raises otherwise (no default).  The row-built and bundle plans, the nested plans and
the page-aware related fields all ask here; where Tastypie raises, a plan declines
(:class:`~tastypie_djony.declines.Fallback`: the general path raises Tastypie's own
error) and a field raises the error Tastypie's field raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tastypie.exceptions import ApiFieldError

from tastypie_djony.declines import Fallback


def _none() -> None:
    return None


def _decline() -> Any:
    raise Fallback


def scalar_when_absent(field: Any) -> Callable[[], Any]:
    """What ``field.dehydrate`` starts from when its attribute is ``None``, before ``convert``.

    ``None`` for a ``null`` field (checked first, as Tastypie does), else the default
    (called when callable); a field with neither declines.
    """
    if field.null:
        return _none
    if not field.has_default():
        return _decline
    default = field._default
    return default if callable(default) else (lambda: default)


def related_may_be_absent(field: Any) -> bool:
    """Whether a related field shows ``None`` (to-one) or ``[]`` for a missing relation."""
    return bool(field.null)


def empty_attribute(obj: Any, attribute: str) -> ApiFieldError:
    """Tastypie's error for a related field whose object has no value at ``attribute``."""
    return ApiFieldError(
        f"The model '{obj!r}' has an empty attribute '{attribute}' and doesn't allow a null value."
    )


def no_primary_key(obj: Any) -> ApiFieldError:
    """Tastypie's error for a to-many field of an object without a primary key."""
    return ApiFieldError(
        f"The model '{obj!r}' does not have a primary key and can not be used in a ToMany context."
    )
