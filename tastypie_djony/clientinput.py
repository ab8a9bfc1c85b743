"""Client input ``ModelResource`` answers with a 500, answered with Tastypie's 400.

:class:`ClientInputMixin` holds DjonyResource's fixes of Tastypie's own steps where a
client's query string or an error message breaks them: ``?x__in=true`` (a
``TypeError`` in Tastypie's parsing), a ``__range`` of other than two values (Django's
query fails where it runs), a name ``Meta.filtering`` lists
that is no field (a ``KeyError``), ``set/1;abc/`` (a ``ValueError``), and an error text
XML cannot hold (a control character the client sent, echoed).  Each calls Tastypie's
own method and changes only what it answers for that input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import EmptyResultSet, FieldError, ValidationError
from django.db.models.constants import LOOKUP_SEP
from tastypie.exceptions import BadRequest, ImmediateHttpResponse, InvalidFilterError

from tastypie_djony.stock import bad_request_response


class ClientInputMixin:
    """Tastypie's filter parsing, ``set/`` and error responses, a 400 for bad input."""

    _meta: Any
    fields: dict

    def filter_value_to_python(self, value, field_name, filters, filter_expr, filter_type):
        """Tastypie's parsing; ``?x__in=true`` or a 3-value range is a 400, not a 500."""
        try:
            value = super().filter_value_to_python(
                value, field_name, filters, filter_expr, filter_type
            )
        except TypeError:
            raise InvalidFilterError(
                f"'{filter_expr}' needs a comma-separated list of values, got {value!r}."
            ) from None
        if (
            filter_type == "range"
            and len(value) != 2
            and self._range_values_valid(field_name, filter_expr, value)
        ):
            return WrongCountRange.of(value, filter_expr)
        return value

    def apply_filters(self, request: Any, applicable_filters: dict) -> Any:
        """Tastypie's; a ``__range`` of other than two values is a 400, not a 500.

        ModelResource hands it to Django, whose query then fails (a 500), unless the
        query matches nothing before it: Django compiles the filters in the order of their
        names and runs no query once one matches nothing (``?id=`` an integer beyond 64
        bits), and the page is empty.  So is this one then.
        """
        wrong = [v for v in applicable_filters.values() if type(v) is WrongCountRange]
        if not wrong:
            return super().apply_filters(request, applicable_filters)
        objects = self.get_object_list(request)
        unfiltered = getattr(objects, "queryset", objects)  # a DjonyObjectList's, or a QuerySet
        if matches_nothing(lambda: unfiltered.filter(**applicable_filters)):
            return objects.none()
        # (Tastypie's obj_get_list turns a BadRequest raised here into its "mismatched
        # type" message: the 400 its view gives for this filter's own message instead.)
        refusal = InvalidFilterError(wrong[0].message)
        raise ImmediateHttpResponse(bad_request_response(self, request, refusal))

    def _range_values_valid(self, field_name: str, filter_expr: str, value: list) -> bool:
        """Whether Django takes ``value``'s items for the field (then only their count is wrong).

        Items Django refuses (``?price__range=abc``) are left to ``apply_filters``, which
        answers as ModelResource does (Django's validation message, or Tastypie's
        "mismatched type"); a valid value of the wrong count is ModelResource's 500.
        """
        bits = filter_expr.split(LOOKUP_SEP)[1:-1]
        try:
            lookup_bits = self.check_filtering(field_name, "range", bits)
            self._meta.object_class._base_manager.none().filter(
                **{LOOKUP_SEP.join([*lookup_bits, "range"]): value}
            )
        except (ValueError, TypeError, ValidationError, InvalidFilterError):
            return False
        except FieldError:
            return True  # not a lookup Django takes here (ModelResource: a 500)
        return True

    def check_filtering(self, field_name, filter_type="exact", filter_bits=None):
        """Tastypie's check; a name in ``Meta.filtering`` that is no field is a 400."""
        if field_name in self._meta.filtering and field_name not in self.fields:
            raise InvalidFilterError(
                f"The '{field_name}' field is not a field of the "
                f"'{self._meta.resource_name}' resource, so it cannot be filtered on."
            )
        return super().check_filtering(field_name, filter_type, filter_bits)

    def get_multiple(self, request: Any, **kwargs: Any) -> Any:
        """``set/1;2/``; a key of the wrong type (``set/1;abc/``) is a 400, not a 500."""
        with mismatched_keys_refused():
            return super().get_multiple(request, **kwargs)

    def error_response(self, request: Any, errors: Any, response_class: Any = None) -> Any:
        """Tastypie's; an error XML cannot hold (a control character or noncharacter the
        client sent, echoed in the message: ``?format=xml&limit=%1F``, ``%EF%BF%BE``) is
        told with those characters replaced, a 400 and not Django's 500 page."""
        try:
            return super().error_response(request, errors, response_class)
        except ValueError:  # lxml: "All strings must be XML compatible"
            return super().error_response(request, xml_safe(errors), response_class)


class WrongCountRange(list):
    """The values of a ``__range`` filter that are not two (:meth:`ClientInputMixin.apply_filters`),
    with the message of its 400 (Django copies it as a list of the same class)."""

    message = ""

    @classmethod
    def of(cls, values: list, filter_expr: str) -> WrongCountRange:
        found = cls(values)
        found.message = (
            f"'{filter_expr}' needs two comma-separated values (from,to), got {len(values)}."
        )
        return found


def matches_nothing(filtered: Callable[[], Any]) -> bool:
    """Whether Django compiles the queryset ``filtered()`` builds to no query at all
    (``EmptyResultSet``) before any condition fails to compile (a range of other than two
    values does: its ``ValueError``), and its filters are ones Django takes."""
    try:
        queryset = filtered()
        queryset.query.get_compiler(queryset.db).as_sql()
    except EmptyResultSet:
        return True
    except (FieldError, ValidationError, ValueError, TypeError, IndexError):
        return False
    return False


@contextmanager
def mismatched_keys_refused() -> Iterator[None]:
    """Inside: a ``ValueError`` (Django refusing a key for the lookup: ``set/1;abc/``) is
    Tastypie's 400 "mismatched type"."""
    try:
        yield
    except ValueError:
        raise BadRequest("Invalid resource lookup data provided (mismatched type).") from None


#: Characters XML 1.0 cannot hold: C0 controls but tab, newline and carriage return,
#: lone surrogates, and the noncharacters U+FFFE and U+FFFF.
XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(value: Any) -> Any:
    """``value`` (an error's dicts, lists and strings) with XML-unsafe characters replaced."""
    if isinstance(value, str):
        return XML_UNSAFE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {key: xml_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [xml_safe(item) for item in value]
    return value
